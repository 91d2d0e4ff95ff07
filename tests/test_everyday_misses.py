"""Three everyday facts the rules missed (found by a tester's cases of changes of mind): a pet named before its kind
(我养了一只叫旺财的柯基) and its death (旺财上个月走了); the name the user goes by ("I go by Kat these days") and the
questions asking for it ("What should you call me?"); a past trip whose sentence goes on with what was done there
every day. First the rules alone, with the near misses that must not fire, then through ingest and recall against
the real Neo4j."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from graph.conflicts import ConflictKind, ConflictStatus
from ingest.conflict_rules import Fact, pet_gone_conflict
from ingest.slots import asked_slots
from ingest.turns import TurnInput
from tests.test_routine_conflicts import START, found, triples

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


# ----- through ingest and recall ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "question"), [
    ("我养了一只叫旺财的柯基。", "旺财上个月走了，我到现在还很难过。", "我养宠物吗？"),
])
def test_the_change_supersedes_and_recall_answers_with_the_new(container: Container, tenant: str, old: str,
                                                               new: str, question: str) -> None:
    first = container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s1", speaker="user", text=old,
                                                           at=START))
    second = container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s2", speaker="user", text=new,
                                                            at=START + timedelta(days=3)))
    [old_memory], [new_memory] = first.memories, second.memories
    [conflict] = container.conflicts.conflicts(tenant, "ann", status=ConflictStatus.RESOLVED)
    assert (conflict.winner_id, conflict.loser_id) == (new_memory.id, old_memory.id)
    answer = container.recall.recall(tenant, RecallRequest(user_id="ann", query=question))
    texts = [m.memory.text for m in answer.memories]
    assert not answer.gated and texts[0] == new
    assert old not in texts

