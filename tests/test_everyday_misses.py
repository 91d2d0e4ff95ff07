"""Three everyday facts the rules missed (found by a tester's cases of changes of mind): a pet named before its kind
(我养了一只叫旺财的柯基) and its death (旺财上个月走了); the name the user goes by ("I go by Kat these days") and the
questions asking for it ("What should you call me?"); a past trip whose sentence goes on with what was done there
every day. First the rules alone, with the near misses that must not fire, then through ingest and recall against
the real Neo4j."""

from __future__ import annotations

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from graph.conflicts import ConflictKind
from ingest.conflict_rules import Fact, pet_gone_conflict
from ingest.remains import Fact as WinnerFact
from ingest.remains import remains
from ingest.slots import asked_slots
from tests.test_routine_conflicts import EXTRACTOR, found, told_then_changed, triples

# ----- 1. a pet named before its kind, and its death ------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("我养了一只叫旺财的柯基。", {("user", "pet", "旺财", 1)}),  # it read nothing
    ("我家养了一条叫豆豆的狗。", {("user", "pet", "豆豆", 1)}),
    ("我有一只叫咪咪的猫，特别黏人。", {("user", "pet", "咪咪", 1)}),
    ("我有一个叫小雨的妹妹。", {("user", "sister", "小雨", 1)}),
    ("我家有只猫叫咪咪。", {("user", "pet", "咪咪", 1)}),  # the forms read before
    ("我有一条狗叫旺财。", {("user", "pet", "旺财", 1)}),
    ("我养了一只叫什么的狗？", set()),  # a question
    ("我养了一只叫声很好听的鸟。", set()),  # 叫声: its call, no name
])
def test_a_pet_named_before_its_kind(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert {t for t in triples(text) if t[1] in ("pet", "sister")} == expected


@pytest.mark.parametrize(("new", "gone"), [
    ("旺财上个月走了，我到现在还很难过。", True),
    ("旺财去世了。", True),
    ("旺财上周死了。", True),
    ("旺财出去了。", False),  # went out
    ("旺财被我妈带走了。", False),  # taken to mum's: somewhere else for now
    ("旺财被邻居接走了。", False),
    ("旺财走了好久才到家。", False),  # walked
    ("小王上个月走了。", False),  # someone else: no pet of that name
    ("我同事旺财上个月走了。", False),  # a colleague of the pet's name
])
def test_the_pet_is_gone(new: str, gone: bool) -> None:
    assert ([k for k, _ in found("我养了一只叫旺财的柯基。", new)] == [ConflictKind.NEGATION]) is gone


def test_a_colleague_who_left_is_no_pet() -> None:
    """走了 said of a person ends no pet: only a pet's name known from a pet triple is read."""
    assert pet_gone_conflict("小王上个月走了。", Fact("old", "user", "colleague", "小王", 1)) is None
    assert found("我的同事小王人很好。", "小王上个月走了。") == []


def test_is_there_a_pet_asks_for_it() -> None:
    assert asked_slots("我养宠物吗？") == ("pet",)


# ----- 2. the name the user goes by ------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("My name is Katherine, but everyone calls me Kate.",
     {("user", "name", "Katherine", 1), ("user", "nickname", "Kate", 1)}),
    ("I go by Kat these days, nobody calls me Kate anymore.",
     {("user", "nickname", "Kat", 1), ("user", "nickname", "Kate", -1)}),  # it read nothing
    ("I go by Kat.", {("user", "nickname", "Kat", 1)}),
    ("I prefer to go by Kat.", {("user", "nickname", "Kat", 1)}),
    ("Just call me Kate.", {("user", "nickname", "Kate", 1)}),
    ("叫我小李就行。", {("user", "nickname", "小李", 1)}),
    ("Don't call me Kate.", {("user", "nickname", "Kate", -1)}),  # it read nickname Kate
    ("Call me tomorrow.", set()),
    ("Call me back when you can.", set()),
    ("Give me a call.", set()),
    ("Call me Monday morning.", set()),  # it read nickname Monday
    ("Please call me ASAP.", set()),
    ("I go by Starbucks every morning.", set()),  # passing it
    ("I go by bus.", set()),
    ("He goes by Kat.", set()),  # someone else
    ("My mom calls me Katie.", set()),  # one person's name for the user
    ('"Call me Ishmael" is the first line of Moby-Dick.', set()),  # a quotation: it read nickname Ishmael
    ("“Call me Ishmael” is a famous opening line.", set()),
])
def test_what_the_user_goes_by(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert {t for t in triples(text) if t[1] in ("name", "nickname")} == expected


@pytest.mark.parametrize(("old", "new", "replaced"), [
    ("My name is Katherine, but everyone calls me Kate.", "I go by Kat these days, nobody calls me Kate anymore.",
     True),
    ("Everyone calls me Kate.", "Just call me Kat.", True),
    ("大家都叫我阿杰。", "叫我小杰就行。", True),
    ("My name is Katherine.", "I go by Kat.", False),  # the legal name stays
    ("Everyone calls me Kate.", "At work they call me K, my friends call me Kat.", False),  # some people's name
    ("大家都叫我阿杰。", "朋友都叫我小杰。", False),
])
def test_a_newer_nickname_replaces_the_older(old: str, new: str, replaced: bool) -> None:
    assert ([k for k, _ in found(old, new)] == [ConflictKind.SINGLE_VALUED]) is replaced


def test_the_legal_name_remains() -> None:
    """The old memory said both; the new nickname supersedes it, and the name is kept as its remains (a negation
    by meaning superseded the whole memory, the name with it)."""
    new = "I go by Kat these days, nobody calls me Kate anymore."
    winner = [WinnerFact.of(t.subject, t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(new)]
    kept = remains(EXTRACTOR.by_clause("My name is Katherine, but everyone calls me Kate."), winner, winner_text=new)
    assert kept is not None and kept.text == "My name is Katherine"


@pytest.mark.parametrize(("question", "asked"), [
    ("What should you call me?", ("nickname", "name")),
    ("What do I go by?", ("nickname", "name")),
    ("What's my nickname?", ("nickname", "name")),
    ("你该怎么称呼我？", ("nickname", "name")),
    ("我的昵称是什么？", ("nickname", "name")),
    ("What's my name?", ("name", "nickname")),
    ("Can you call me back?", ()),
    ("What do you call a baby cat?", ()),
])
def test_the_questions_that_ask_for_it(question: str, asked: tuple[str, ...]) -> None:
    assert asked_slots(question) == asked


# ----- 3. a past trip and what was done there every day ----------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("Last May I went to Lisbon with my sister and we ate custard tarts every day.", {"Lisbon"}),  # it read none
    ("Last summer we went to Rome and I had gelato every single day.", {"Rome"}),
    ("We visited Kyoto and we walked to a temple each morning.", {"Kyoto"}),
    ("I go to the gym every day.", set()),  # a routine
    ("I went to Lisbon every summer as a kid.", set()),  # how often they went: a routine of the past
    ("I usually went to Paris and we ate croissants every day.", set()),
    ("Next May I'm going to Lisbon and we'll eat custard tarts every day.", set()),  # a plan
    ("I go to Starbucks and I get a latte every day.", set()),  # a habit: it read visited Starbucks
    ("I go to Starbucks.", set()),
    ("Yesterday I go to Paris with my mom.", {"Paris"}),  # said in the present, dated in the past
])
def test_a_past_trip_with_every_day_in_it(text: str, expected: set[str]) -> None:
    assert {o for _, p, o, _ in triples(text) if p == "visited"} == expected


# ----- through ingest and recall ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "question"), [
    ("我养了一只叫旺财的柯基。", "旺财上个月走了，我到现在还很难过。", "我养宠物吗？"),
    ("My name is Katherine, but everyone calls me Kate.", "I go by Kat these days, nobody calls me Kate anymore.",
     "What should you call me?"),
    ("大家都叫我阿杰。", "叫我小杰就行。", "你该怎么称呼我？"),
])
def test_the_change_supersedes_and_recall_answers_with_the_new(container: Container, tenant: str, old: str,
                                                               new: str, question: str) -> None:
    told_then_changed(container, tenant, old, new)
    answer = container.recall.recall(tenant, RecallRequest(user_id="ann", query=question))
    texts = [m.memory.text for m in answer.memories]
    assert not answer.gated and texts[0] == new
    assert old not in texts


def test_the_name_stands_in_for_the_nickname_only_when_none_is_stated() -> None:
    from ingest.slots import without_stand_ins

    asked = asked_slots("What should you call me?")
    assert without_stand_ins(asked, [("name",), ("nickname",)]) == [(), ("nickname",)]
    assert without_stand_ins(asked, [("name",)]) == [("name",)]  # no nickname known: the name answers
    assert without_stand_ins(asked_slots("What's my name?"), [("name",), ("nickname",)]) == [("name",), ("nickname",)]
