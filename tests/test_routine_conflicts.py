"""Changes of the user's routines and states said in everyday words (found by a tester: 7 of 70 such changes
were noticed): a medicine's dose and the way to work are one value at a time (ingest/extract_routines.py), a diet
is one value and ends eating meat, a pet's death ends the memory naming it; the remains of a superseded memory
never keep what its winner ends. First the extraction and the rules alone, then through ingest and recall against
the real Neo4j."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from graph.conflicts import ConflictKind, ConflictStatus
from ingest.conflict_rules import Fact, Similar, detect, diet_conflict, pet_gone_conflict
from ingest.extract import RuleTripleExtractor, single_valued_slot
from ingest.extract_routines import medicine_of, routine_facts
from ingest.lexicon import SAFETY_RE
from ingest.remains import Fact as WinnerFact
from ingest.remains import remains
from ingest.turns import TurnInput

EXTRACTOR = RuleTripleExtractor()
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def triples(text: str) -> set[tuple[str, str, str, int]]:
    return {(t.subject, t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(text)}


def facts(memory_id: str, text: str) -> list[Fact]:
    return [Fact(memory_id, t.subject, t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(text)]


def told_then_changed(container: Container, tenant: str, old: str, new: str, *,
                      after: timedelta = timedelta(days=3)) -> None:
    """Ingest `old`, then `new` `after` later (user "ann", a session each), and check the new memory superseded the
    old: one RESOLVED conflict, the new one its winner."""
    first = container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s1", speaker="user", text=old,
                                                           at=START))
    second = container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s2", speaker="user", text=new,
                                                            at=START + after))
    [old_memory], [new_memory] = first.memories, second.memories
    [conflict] = container.conflicts.conflicts(tenant, "ann", status=ConflictStatus.RESOLVED)
    assert (conflict.winner_id, conflict.loser_id) == (new_memory.id, old_memory.id)


def found(old_text: str, new_text: str) -> list[tuple[ConflictKind, str]]:
    findings = detect(new_memory_id="new", new_text=new_text, new_facts=facts("new", new_text),
                      old_facts=facts("old", old_text), similar=[Similar("old", old_text, 0.5)],
                      similarity_threshold=0.75)
    return [(f.kind, f.reason) for f in findings]


@pytest.mark.parametrize(("text", "expected"), [
    ("I take levothyroxine 50 mcg every morning.", {("user", "takes_dose", "levothyroxine 50 mcg", 1)}),
    ("My doctor increased my levothyroxine to 75 mcg at my last checkup.",
     {("user", "takes_dose", "levothyroxine 75 mcg", 1)}),
    ("I take 20 units of Lantus every night.", {("user", "takes_dose", "Lantus 20 units", 1)}),
    ("We bumped my Lantus up to 24 units after my last A1C.", {("user", "takes_dose", "Lantus 24 units", 1)}),
    ("I'm on 10 mg of lisinopril.", {("user", "takes_dose", "lisinopril 10 mg", 1)}),
    # the dose, not something eaten (it read eats 二甲双胍500毫克)
    ("我每天早上吃二甲双胍500毫克。", {("user", "takes_dose", "二甲双胍 500毫克", 1)}),
    ("医生把我的二甲双胍加到了每天1000毫克。", {("user", "takes_dose", "二甲双胍 1000毫克", 1)}),
    ("I drive to work every morning, it's usually about 25 minutes.", {("user", "commutes_by", "car", 1)}),
    ("I'll take the bus to work from now on.", {("user", "commutes_by", "bus", 1)}),
    ("I bike to work.", {("user", "commutes_by", "bike", 1)}),
    ("我每天坐地铁上班。", {("user", "commutes_by", "subway", 1)}),
    ("我现在改骑车上班了。", {("user", "commutes_by", "bike", 1)}),
    ("I eat meat again.", {("user", "eats", "meat", 1)}),  # it read "meat again"
])
def test_what_each_sentence_yields(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize("text", [
    "I took the bus today because of rain.",  # once
    "I don't drive to work anymore.",
    "My dad's doctor increased his metformin to 1000 mg.",  # someone else's
    "I had 200 mg of caffeine today.",  # not a medicine
    "I'm taking 4 units this semester.",
])
def test_no_routine_is_read(text: str) -> None:
    assert not routine_facts(text)


def test_one_dose_per_medicine_one_way_to_work_one_diet() -> None:
    assert single_valued_slot("takes_dose", "levothyroxine 75 mcg") == "takes_dose:levothyroxine"
    assert single_valued_slot("takes_dose", "二甲双胍 1000毫克") == "takes_dose:二甲双胍"
    assert medicine_of("Lantus 24 units") == "Lantus"
    assert single_valued_slot("commutes_by", "bus") == "commutes_by"
    assert single_valued_slot("is_a", "pescatarian") == single_valued_slot("is_a", "素食者") == "diet"
    assert single_valued_slot("is_a", "mother") is None


@pytest.mark.parametrize(("old", "new", "kind"), [
    ("I take levothyroxine 50 mcg every morning.", "My doctor increased my levothyroxine to 75 mcg.",
     ConflictKind.SINGLE_VALUED),
    ("我每天早上吃二甲双胍500毫克。", "医生把我的二甲双胍加到了每天1000毫克。", ConflictKind.SINGLE_VALUED),
    ("I drive to work every morning.", "I'll take the bus to work from now on.", ConflictKind.SINGLE_VALUED),
    ("我每天开车上班。", "我现在改坐地铁上班了。", ConflictKind.SINGLE_VALUED),
    ("I'm a vegetarian.", "so I guess I'm pescatarian now.", ConflictKind.SINGLE_VALUED),
    ("我是素食者。", "我现在吃肉了。", ConflictKind.POLARITY),
    ("I eat chicken every day.", "I'm a vegetarian now.", ConflictKind.POLARITY),
    ("I have a dog named Biscuit.", "Biscuit passed away last week, the house feels so empty.",
     ConflictKind.NEGATION),
    ("I have a cat named Mochi.", "We had to rehome Mochi because of my daughter's allergy.", ConflictKind.NEGATION),
    # a drink switched to ends the one of its kind
    ("i drink like 4 coffees a day which probably doesn't help haha",
     "also switched to matcha, down to one a day, migraines a bit better", ConflictKind.SINGLE_VALUED),
    ("I drink coffee every morning.", "Lately I've switched from coffee to tea.", ConflictKind.SINGLE_VALUED),
    ("I drink coffee every morning", "I switched to decaf, coffee was keeping me up at night",
     ConflictKind.SINGLE_VALUED),
    ("我每天喝三杯咖啡。", "最近改喝绿茶了，胃舒服多了", ConflictKind.SINGLE_VALUED),
])
def test_the_change_is_found(old: str, new: str, kind: ConflictKind) -> None:
    assert [k for k, _ in found(old, new)] == [kind]


@pytest.mark.parametrize(("old", "new"), [
    ("I take levothyroxine 50 mcg every morning.", "I take metformin 500 mg twice a day."),  # two medicines
    ("I take metformin 500 mg twice a day.", "My dad's doctor increased his metformin to 1000 mg."),
    ("I drive to work every morning.", "I took the bus today because of rain."),
    ("I'm a vegetarian.", "I'm a mother of two."),
    ("I'm a pescatarian.", "I love fish."),
    ("I have a dog named Biscuit.", "My neighbour's dog died last week."),
    ("I have a dog named Biscuit.", "Biscuit learned a new trick!"),
    ("I drink a glass of red wine with dinner.", "also switched to matcha in the afternoons"),  # another kind of drink
    ("I drink coffee every morning.", "I drink matcha too, in the afternoon."),  # one more, no switch
    ("I drink coffee every morning.", "My husband switched to decaf."),  # his
    ("我每天喝三杯咖啡。", "要不换成绿茶吧？"),  # a suggestion
])
def test_no_change_is_found(old: str, new: str) -> None:
    assert found(old, new) == []


def test_the_rules_alone() -> None:
    pet = Fact("old", "user", "pet", "旺财", 1)
    assert pet_gone_conflict("旺财上个月走了，我到现在还很难过。", pet)
    assert pet_gone_conflict("旺财今天很开心", pet) is None
    assert pet_gone_conflict("Biscuit died", Fact("old", "my sister", "pet", "Biscuit", 1)) is None  # not the user's
    fish = Fact("new", "user", "eats", "fish", 1)
    assert diet_conflict(fish, Fact("old", "user", "is_a", "vegan", 1))
    assert diet_conflict(fish, Fact("old", "user", "is_a", "pescatarian", 1)) is None


def test_the_remains_keep_nothing_the_winner_ends() -> None:
    """They did: "我是素食者" stayed as the remains of "我是素食者，不吃肉", contradicted "我现在吃肉了" in its turn,
    won as the newer, and the two superseded each other until the stack ran out."""
    clauses = EXTRACTOR.by_clause("我是素食者，不吃肉。")
    winner = [WinnerFact.of("user", "eats", "肉", 1)]
    assert remains(clauses, winner, winner_text="我现在吃肉了。") is None
    pet = EXTRACTOR.by_clause("I have a dog named Biscuit.")
    assert remains(pet, [], winner_text="Biscuit passed away last week.") is None
    assert remains(pet, [], winner_text="We cancelled the trip.") is not None  # who the pet is stays otherwise


def test_a_changed_dose_is_a_safety_memory_too() -> None:
    for text in ("We bumped my Lantus up to 24 units after my last A1C.", "I take 20 units of Lantus every night.",
                 "医生把我的二甲双胍加到了每天1000毫克。"):
        assert SAFETY_RE.search(text), text


# ----- through ingest and recall ------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "question"), [
    ("I take levothyroxine 50 mcg every morning.", "My doctor increased my levothyroxine to 75 mcg at my last "
                                                   "checkup.", "How much levothyroxine do I take?"),
    ("I drive to work every morning, it's usually about 25 minutes.",
     "I'll take the bus to work from now on, parking downtown got way too expensive.", "How do I get to work?"),
    ("我是素食者，不吃肉。", "我现在吃肉了。", "我吃素吗？"),
    ("I drive a 2015 Honda Civic.", "We sold the Civic and got a Model 3 last month.", "What car do I drive?"),
    ("我用的是华为Mate 40。", "手机换成iPhone 15了。", "我用什么手机？"),
    ("I have a dog named Biscuit.", "Biscuit passed away last week, the house feels so empty without him.", None),
])
def test_the_change_supersedes_and_recall_answers_with_the_new(container: Container, tenant: str, old: str,
                                                               new: str, question: str | None) -> None:
    told_then_changed(container, tenant, old, new)
    assert [m.text for m in container.memories.page(tenant, "ann").items] == [new]  # no remains either
    if question is not None:
        answer = container.recall.recall(tenant, RecallRequest(user_id="ann", query=question))
        assert [m.memory.text for m in answer.memories] == [new]


@pytest.mark.parametrize(("new", "old", "stopped"), [
    ("I stopped keto in February, I eat carbs again.", "I'm doing keto, no bread or pasta for me.", True),
    ("I gave up on Spanish, I'm doing Japanese now.", "I'm learning Spanish on Duolingo.", True),
    ("我已经戒烟半年了。", "我每天抽一包烟。", True),
    ("I stopped by the bakery on Main St today", "I love the bakery on Main St", False),  # a visit
    ("My wife quit her job at the bank", "My wife works at the bank", False),  # someone else's
    ("I stopped eating bread", "I'm doing keto, no bread or pasta for me.", False),  # what it said no to
    ("I quit for good.", "I smoke about half a pack a day.", False),  # nothing named
])
def test_a_habit_the_user_stopped(new: str, old: str, stopped: bool) -> None:
    from ingest.conflict_rules import stopped_conflict

    assert (stopped_conflict(new, Similar("old", old, 0.5), 0.35) is not None) is stopped
    assert stopped_conflict(new, Similar("old", old, 0.3), 0.35) is None  # under the line: unrelated


def test_a_move_with_what_was_moved_between_the_words() -> None:
    """"The studio moved my yoga class to Wednesday mornings" (it needed "my yoga class moved to ...")."""
    from ingest.conflict_rules import reschedule_conflict

    old = Similar("old", "My yoga class is on Thursday evenings.", 0.6)
    assert reschedule_conflict("The studio moved my yoga class to Wednesday mornings.", old, 0.35)
    assert reschedule_conflict("I moved my car to the garage", Similar("old", "I park my car on the street", 0.6),
                               0.35) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("I use an iPhone 12.", {("user", "uses_phone", "iPhone 12", 1)}),
    ("I switched to a Pixel 8 last week.", {("user", "uses_phone", "Pixel 8", 1)}),
    ("我用的是华为Mate 40。", {("user", "uses_phone", "华为Mate 40", 1)}),
    ("手机换成iPhone 15了。", {("user", "uses_phone", "iPhone 15", 1)}),
    ("I drive a 2015 Honda Civic.", {("user", "drives", "2015 Honda Civic", 1)}),
    ("We sold the Civic and got a Model 3 last month.", {("user", "drives", "Model 3", 1)}),
    ("朗逸卖了，换了一辆比亚迪汉。", {("user", "drives", "比亚迪汉", 1)}),
    # a car taken delivery of (提车: the subject dropped, as chat does), picked up, or named as mine
    ("最后提了比亚迪汉 老婆选的颜色 还挺好看", {("user", "drives", "比亚迪汉", 1)}),
    ("I picked up the Model Y yesterday", {("user", "drives", "Model Y", 1)}),
    ("my new car is a Civic", {("user", "drives", "Civic", 1)}),
    ("朋友换了一辆宝马", set()), ("老公买了一辆比亚迪", set()),  # someone else's (the friend's, the husband's)
    ("I want to get an iPhone 15", set()),  # a wish
    ("I got a new phone", set()),  # no model named
    ("My wife drives a Toyota", set()),  # someone else's
])
def test_the_phone_and_the_car(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert {t for t in triples(text) if t[1] in ("uses_phone", "drives")} == expected


@pytest.mark.parametrize(("old", "new", "replaced"), [
    ("I use an iPhone 12.", "I switched to a Pixel 8 last week.", True),
    ("我用的是华为Mate 40。", "手机换成iPhone 15了。", True),
    ("I drive a 2015 Honda Civic.", "We sold the Civic and got a Model 3 last month.", True),
    ("我开一辆大众朗逸。", "朗逸卖了，换了一辆比亚迪汉。", True),
    ("I drive a 2015 Honda Civic.", "We got a second car, a Toyota Corolla.", False),  # one more
    ("I drive a 2015 Honda Civic.", "We also bought a Toyota Corolla for my wife.", False),
])
def test_a_new_phone_or_car_replaces_the_old_one_more_does_not(old: str, new: str, replaced: bool) -> None:
    assert ([k for k, _ in found(old, new)] == [ConflictKind.SINGLE_VALUED]) is replaced


@pytest.mark.parametrize(("question", "slot"), [
    ("What car do I drive?", "drives"), ("我开什么车？", "drives"), ("What phone do I have?", "uses_phone"),
    ("我用什么手机？", "uses_phone"), ("Do I have a dog?", "pet"), ("我有狗吗？", "pet"),
    ("How do I get to work?", "commutes_by"), ("How much Lantus do I take?", "takes_dose"),
])
def test_the_questions_that_ask_for_them(question: str, slot: str) -> None:
    from ingest.slots import asked_slots

    assert slot in asked_slots(question)
