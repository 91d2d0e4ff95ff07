"""Everyday changes of mind found missed by a tester (/work/scratch/helper-q cases, 'Q'): a medicine replaced by
another or stopped, a routine's new time or days, a new provider (phone carrier, bank, GP), a favourite said with
"has to be". Each rule with the exact sentence it was written for, and the near misses that must not fire
(someone else's, one time only, a plan or a thought, a question, one more rather than another)."""

from __future__ import annotations

import pytest

from graph.conflicts import ConflictKind
from ingest.conflict_rules import Fact, Similar, detect
from ingest.extract import RuleTripleExtractor

EXTRACTOR = RuleTripleExtractor()


def triples(text: str) -> set[tuple[str, str, int]]:
    return {(t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(text) if t.subject == "user"}


def facts(memory_id: str, text: str) -> list[Fact]:
    return [Fact(memory_id, t.subject, t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(text)]


def kinds(old_text: str, new_text: str, cosine: float = 0.5) -> list[ConflictKind]:
    findings = detect(new_memory_id="new", new_text=new_text, new_facts=facts("new", new_text),
                      old_facts=facts("old", old_text), similar=[Similar("old", old_text, cosine)],
                      similarity_threshold=0.75, favourite_threshold=0.45, cancel_threshold=0.35)
    return [f.kind for f in findings]


# ----- medicines ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("My cardiologist took me off lisinopril and put me on amlodipine 5 mg.",
     {("takes_dose", "amlodipine 5 mg", 1), ("takes_dose", "lisinopril", -1)}),
    ("我每天晚上吃一片阿托伐他汀。", {("takes_dose", "阿托伐他汀 1片", 1)}),
    ("医生说我的血脂正常了，阿托伐他汀不用再吃了。", {("takes_dose", "阿托伐他汀", -1)}),
    ("I don't need the melatonin anymore, I sleep fine without it.", {("takes_dose", "melatonin", -1)}),
    ("I stopped taking melatonin.", {("takes_dose", "melatonin", -1)}),
])
def test_a_medicine_replaced_or_stopped_is_read(text: str, expected: set[tuple[str, str, int]]) -> None:
    assert {t for t in triples(text) if t[0] == "takes_dose"} == expected


@pytest.mark.parametrize("text", [
    "My dad's doctor took him off lisinopril.",  # someone else's
    "我妈停了阿托伐他汀。",
    "My doctor might take me off lisinopril.",  # a thought
    "My doctor wants to put me on amlodipine 5 mg.",
    "Should my doctor put me on amlodipine 5 mg?",  # a question
    "I stopped taking ibuprofen for a week.",  # not for good
    "I stopped taking melatonin before the surgery.",
    "They took me off the waitlist.",  # no medicine
    "I quit taking the vitamins.",
    "我每天吃一片面包。",  # a slice of bread is no dose
])
def test_no_medicine_change_is_read(text: str) -> None:
    assert not {t for t in triples(text) if t[0] == "takes_dose"}


@pytest.mark.parametrize(("old", "new"), [
    ("I take 10 mg of lisinopril for my blood pressure.",
     "My cardiologist took me off lisinopril and put me on amlodipine 5 mg."),
    ("我每天晚上吃一片阿托伐他汀。", "医生说我的血脂正常了，阿托伐他汀不用再吃了。"),
])
def test_a_stopped_medicine_ends_its_dose(old: str, new: str) -> None:
    assert kinds(old, new) == [ConflictKind.POLARITY]


def test_a_new_medicine_leaves_another_medicine_alone() -> None:
    assert kinds("I take 10 mg of lisinopril for my blood pressure.", "My doctor put me on metformin 500 mg.") == []


def test_a_medicine_question_naming_its_use_asks_for_the_dose() -> None:
    from ingest.slots import asked_slots
    assert asked_slots("What blood pressure medication do I take?") == ("takes_dose",)
    assert "takes_dose" not in asked_slots("What medication does my dad take?")
