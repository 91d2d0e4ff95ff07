"""A conflict held for review stays held (against the real Neo4j): checkConflicts(strategy: REVIEW) records it OPEN,
and the system's later settlements that find the same pair again (the stored-memory hooks an addTriple on the
memory runs, with the deployment's strategy; resume_hooks over several memories; the hook one memory at a time)
leave it OPEN and both memories as they were. Only the user settles it (resolve). A conflict found for the first
time alongside it is still settled by the deployment's strategy, and an OPEN conflict recorded by another strategy
(held because a memory is locked) is tried again as before. The hooks of the pair's OLD memory find the newer one and
record the pair the way it was said, under the held conflict's own id: nothing settles. And the pair is held either
way round: one recorded with its older memory as the new one (stored so before detection weighed which was said
later; or two memories of one time) is the pair's answer too, nothing recorded under the reversed id."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any, TypedDict, Unpack

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.hooks import StoredMemoryContext
from graph.conflicts import Conflict, ConflictRepository, ConflictStatus, ConflictStrategy, _Settle, conflict_id
from graph.model import Memory, Scope, Tier, Triple
from graph.triples import TripleRepository
from tests.ops_support import store_rows
from tests.test_add_triple_conflicts import break_conflict_detection, get, pending, superseded
from tests.test_conflicts import living, store

__all__ = ["living"]  # the fixture (a container on a fake clock, recording events), used by name


def held_pair(c: Container, clock: FakeClock, scope: Scope, predicate: str, old_value: str, new_value: str
              ) -> tuple[Memory, Memory, Conflict]:
    """An old memory and, a day later, a new one contradicting it, their triples written without hooks; then
    checkConflicts(strategy: REVIEW) on the new one holds their conflict for review."""
    old = store(c, scope, f"My {predicate} is {old_value}", triples=[("user", predicate, old_value, 1)], hook=False)
    clock.advance(timedelta(days=1))
    new = store(c, scope, f"My {predicate} is {new_value}", triples=[("user", predicate, new_value, 1)], hook=False)
    clock.advance(timedelta(minutes=5))
    [conflict] = c.conflicts.check(scope.tenant, scope.user_id, new.id, strategy="REVIEW")
    assert (conflict.status, conflict.strategy) == (ConflictStatus.OPEN, ConflictStrategy.REVIEW)
    assert (conflict.new_memory_id, conflict.old_memory_id) == (new.id, old.id)
    return old, new, conflict


class Weights(TypedDict, total=False):
    """The weights store() takes for the older memory (its own defaults otherwise)."""

    passive: float
    active: float


def siemens_then_held_pair(c: Container, clock: FakeClock, scope: Scope, **weights: Unpack[Weights]
                           ) -> tuple[Memory, Memory, Memory, Conflict]:
    """A memory older than a held pair, that a works_at Bosch on either memory of the pair contradicts (a second
    finding beside the held one), stored an hour before it; then the held pair (held_pair)."""
    siemens = store(c, scope, "I work at Siemens", triples=[("user", "works_at", "Siemens", 1)], hook=False,
                    **weights)
    clock.advance(timedelta(hours=1))
    return (siemens, *held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai"))


def bosch(c: Container, clock: FakeClock, scope: Scope, memory_id: str) -> Triple:
    """works_at Bosch for a memory, written as ingest writes a triple (no hooks): siemens_then_held_pair's second
    finding."""
    return TripleRepository(c.store).add(scope, memory_id=memory_id, subject="user", subject_kind="thing",
                                         predicate="works_at", object_="Bosch", object_kind="thing", polarity=1,
                                         now=clock.now())


def state(c: Container, scope: Scope, *memory_ids: str) -> list[dict[str, Any]]:
    """What a settlement changes of memories: validity, weights (and when they were last decayed), how many of their
    triples are closed and the SUPERSEDES edges at them."""
    return store_rows(c, "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u AND m.id IN $ids "
                         "RETURN m.id AS id, toString(m.valid_to) AS valid_to, m.passive AS passive, "
                         "m.active AS active, m.weight AS weight, toString(m.decayed_at) AS decayed_at, "
                         "COUNT { ()-[t:TRIPLE {memory_id: m.id}]->() WHERE t.valid_to IS NOT NULL } AS closed, "
                         "COUNT { (m)-[:SUPERSEDES]-() } AS supersedes ORDER BY id",
                      t=scope.tenant, u=scope.user_id, ids=list(memory_ids))


def spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of ConflictRepository's settlements as they are called (which path a use case went)."""
    calls: list[str] = []
    for name in ("record_and_settle", "record_and_settle_in"):
        original: Callable[..., Any] = getattr(ConflictRepository, name)

        def wrapped(*args: Any, _original: Callable[..., Any] = original, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(ConflictRepository, name, wrapped)
    return calls


@contextmanager
def statements(c: Container) -> Iterator[list[str]]:
    """The names of the statements run meanwhile (the store is the session's: the listener is removed after)."""
    ran: list[str] = []

    def listener(name: str, _: object) -> None:
        ran.append(name)

    c.store.timer.listeners.append(listener)
    try:
        yield ran
    finally:
        c.store.timer.listeners.remove(listener)


def assert_held(c: Container, scope: Scope, held: Conflict, before: list[dict[str, Any]]) -> None:
    again = c.conflicts.get(scope.tenant, scope.user_id, held.id)
    assert again is not None
    assert (again.status, again.strategy, again.winner_id, again.loser_id, again.resolved_at) == (
        ConflictStatus.OPEN, ConflictStrategy.REVIEW, None, None, None)
    assert state(c, scope, held.new_memory_id, held.old_memory_id) == before
    assert all(row["valid_to"] is None and row["closed"] == row["supersedes"] == 0 for row in before)
    assert held.id in [x.id for x in c.conflicts.conflicts(scope.tenant, scope.user_id)]  # still in the queue


def settle_by_the_user(c: Container, clock: FakeClock, scope: Scope, held: Conflict, winner: Memory) -> None:
    clock.advance(timedelta(hours=1))
    settled = c.conflicts.resolve(scope.tenant, scope.user_id, held.id, winner.id)
    loser_id = held.old_memory_id if winner.id == held.new_memory_id else held.new_memory_id
    assert (settled.status, settled.winner_id, settled.loser_id, settled.resolved_by) == (
        ConflictStatus.RESOLVED, winner.id, loser_id, "user")
    assert get(c, scope, loser_id).valid_to is not None and get(c, scope, winner.id).valid_to is None
    assert (loser_id, winner.id) in superseded(c)


# ----- addTriple: the hooks in one transaction (record_and_settle_in) ------------------------------------------


@pytest.mark.parametrize("strategy", [ConflictStrategy.LATEST, ConflictStrategy.STRONGER])
def test_add_triple_leaves_a_conflict_held_for_review_open(living: tuple[Container, FakeClock], scope: Scope,
                                                           strategy: ConflictStrategy,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """LATEST is a static choice (looked ahead at: conflict/foresee, then recorded and settled in conflict/settle_many),
    STRONGER is not (recorded, then conflict/resolve): neither settles the held conflict."""
    c, clock = living
    c.conflicts.settings = replace(c.conflicts.settings, strategy=strategy)
    t, u = scope.tenant, scope.user_id
    old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    before = state(c, scope, old.id, new.id)
    calls = spy(monkeypatch)
    clock.advance(timedelta(days=2))
    added = c.memories.add_triple(t, u, memory_id=new.id, subject="Shanghai", predicate="climate", object_="humid")
    assert calls == ["record_and_settle_in"]  # the hooks found the pair again, in their transaction
    assert added.valid_to is None and pending(c, t) == []
    assert_held(c, scope, held, before)
    assert superseded(c) == []
    monkeypatch.undo()
    # checkConflicts with the deployment's strategy finds it again and leaves it held too
    [again] = c.conflicts.check(t, u, new.id)
    assert (again.id, again.status, again.strategy) == (held.id, ConflictStatus.OPEN, ConflictStrategy.REVIEW)
    assert_held(c, scope, held, before)

    settle_by_the_user(c, clock, scope, held, old)
    assert c.conflicts.conflicts(t, u) == []


@pytest.mark.parametrize("strategy", [ConflictStrategy.LATEST, ConflictStrategy.STRONGER])
def test_a_new_conflict_found_with_the_held_one_is_still_settled(living: tuple[Container, FakeClock], scope: Scope,
                                                                 strategy: ConflictStrategy,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """addTriple gives the memory a second conflict, with a memory older and lighter than it: found for the first
    time, it is settled by the deployment's strategy in the same settlement (batched: several findings) that leaves
    the held one OPEN."""
    c, clock = living
    c.conflicts.settings = replace(c.conflicts.settings, strategy=strategy)
    t, u = scope.tenant, scope.user_id
    siemens, old, new, held = siemens_then_held_pair(c, clock, scope, passive=0.0, active=0.1)
    before = state(c, scope, old.id)
    calls = spy(monkeypatch)
    clock.advance(timedelta(days=2))
    c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="works_at", object_="Bosch")
    assert calls == ["record_and_settle_in"]
    found = {x.old_memory_id: x for x in c.conflicts.conflicts(t, u, status=None) if x.new_memory_id == new.id}
    assert set(found) == {old.id, siemens.id}
    assert (found[siemens.id].status, found[siemens.id].strategy, found[siemens.id].winner_id,
            found[siemens.id].loser_id) == (ConflictStatus.RESOLVED, strategy, new.id, siemens.id)
    assert superseded(c) == [(siemens.id, new.id)]
    again = found[old.id]
    assert (again.status, again.strategy, again.winner_id) == (ConflictStatus.OPEN, ConflictStrategy.REVIEW, None)
    assert state(c, scope, old.id) == before
    assert get(c, scope, new.id).valid_to is None
    monkeypatch.undo()

    settle_by_the_user(c, clock, scope, held, new)


# ----- several memories' hooks in one transaction (resume_hooks: the batch's look-ahead) ----------------------


def test_resumed_hooks_of_several_memories_leave_their_held_conflicts_open(
        living: tuple[Container, FakeClock], scope: Scope, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two memories, each with a conflict held for review, left pending by addTriples whose hooks failed: resume_hooks
    runs the hooks over both in one transaction, the settlements foreseen for the batch at once (conflict/foresee)."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    beijing, shanghai, first = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    clock.advance(timedelta(hours=1))
    siemens, bosch, second = held_pair(c, clock, scope, "works_at", "Siemens", "Bosch")
    before = state(c, scope, beijing.id, shanghai.id, siemens.id, bosch.id)
    break_conflict_detection(c, monkeypatch)
    c.memories.add_triple(t, u, memory_id=shanghai.id, subject="Shanghai", predicate="climate", object_="humid")
    c.memories.add_triple(t, u, memory_id=bosch.id, subject="Bosch", predicate="located_in", object_="Stuttgart")
    assert sorted(pending(c, t)) == sorted([shanghai.id, bosch.id])
    monkeypatch.undo()

    calls = spy(monkeypatch)
    clock.advance(timedelta(days=1))
    with statements(c) as ran:
        assert c.ingest.resume_hooks(t, u, older_than=timedelta(0)) == 2
    assert calls == ["record_and_settle_in", "record_and_settle_in"]
    # looked ahead once for both (the second settlement takes its foreseen rows from that read)
    assert [x for x in ran if x.startswith("conflict/")].count("conflict/foresee") == 1
    assert pending(c, t) == []
    for held in (first, second):
        pair = [held.new_memory_id, held.old_memory_id]
        assert_held(c, scope, held, [row for row in before if row["id"] in pair])
    assert superseded(c) == []
    monkeypatch.undo()

    settle_by_the_user(c, clock, scope, first, shanghai)
    settle_by_the_user(c, clock, scope, second, siemens)


# ----- the hook one memory at a time, outside a transaction (record_and_settle) --------------------------------


@pytest.mark.parametrize("findings", ["one", "two"])
def test_the_hook_outside_a_transaction_leaves_a_held_conflict_open(living: tuple[Container, FakeClock],
                                                                   scope: Scope, findings: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The stored-memory hook on its own (as run_hooks falls back to, hook by hook): one finding is settled one by
    one, two in a batch (conflict/settle_many); either way the held one stays OPEN."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    siemens = None
    if findings == "two":
        siemens, old, new, held = siemens_then_held_pair(c, clock, scope)
    else:
        old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    before = state(c, scope, old.id, new.id)
    clock.advance(timedelta(days=1))
    triples = c.memories.triples(t, u, new.id)
    if siemens is not None:
        triples.append(bosch(c, clock, scope, new.id))
    calls = spy(monkeypatch)
    embedding = c.conflicts._conflicts.embedding(scope, new.id)
    c.conflicts.on_memory_stored(StoredMemoryContext(scope=scope, memory=get(c, scope, new.id), triples=triples,
                                                     embedding=embedding))
    assert calls == ["record_and_settle"]
    again = c.conflicts.get(t, u, held.id)
    assert again is not None and (again.status, again.strategy) == (ConflictStatus.OPEN, ConflictStrategy.REVIEW)
    assert get(c, scope, new.id).valid_to is None and get(c, scope, old.id).valid_to is None
    if siemens is not None:  # the new memory won its other conflict: only the old one is as it was
        assert state(c, scope, old.id) == [row for row in before if row["id"] == old.id]
        assert superseded(c) == [(siemens.id, new.id)]
    else:
        assert state(c, scope, old.id, new.id) == before
        assert superseded(c) == []
    monkeypatch.undo()

    settle_by_the_user(c, clock, scope, held, new)


# ----- a conflict held because a memory is locked behaves as before --------------------------------------------


def held_by_a_lock(c: Container, clock: FakeClock, scope: Scope, predicate: str, old_value: str, new_value: str
                   ) -> tuple[Memory, Memory, Conflict]:
    """A locked core memory and, a day later, one contradicting it, stored with its hooks: their conflict is recorded
    OPEN by LATEST (the loser would be the locked one: nobody chosen). (core, new, conflict)"""
    core = store(c, scope, f"My {predicate} is {old_value}", triples=[("user", predicate, old_value, 1)],
                 tier=Tier.CORE, hook=False)
    clock.advance(timedelta(days=1))
    new = store(c, scope, f"My {predicate} is {new_value}", triples=[("user", predicate, new_value, 1)])
    [held] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    assert (held.status, held.strategy, held.new_memory_id) == (ConflictStatus.OPEN, ConflictStrategy.LATEST, new.id)
    return core, new, held


def test_a_conflict_held_by_a_locked_memory_is_settled_once_it_is_unlocked(living: tuple[Container, FakeClock],
                                                                           scope: Scope) -> None:
    """Recorded OPEN by LATEST (choose named nobody: the old memory is locked), it is tried again whenever found:
    once the memory is unlocked, addTriple's hooks settle it."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    core, new, held = held_by_a_lock(c, clock, scope, "name", "Li Lei", "Han Meimei")
    c.memories.add_triple(t, u, memory_id=new.id, subject="Han Meimei", predicate="is_a", object_="teacher")
    again = c.conflicts.get(t, u, held.id)
    assert again is not None and again.status is ConflictStatus.OPEN  # still locked
    c.tiers.unlock(t, u, core.id)
    clock.advance(timedelta(hours=1))
    c.memories.add_triple(t, u, memory_id=new.id, subject="Han Meimei", predicate="lives_in", object_="Beijing")
    settled = c.conflicts.get(t, u, held.id)
    assert settled is not None and (settled.status, settled.winner_id, settled.loser_id) == (
        ConflictStatus.RESOLVED, new.id, core.id)
    assert superseded(c) == [(core.id, new.id)]


# ----- the pair found again from its OLD memory, and a pair held the other way round ----------------------------
# Detection run for the old memory of a held pair finds the newer one and records the pair as that one's (new = the
# later): the held conflict's own id, held. A pair held the other way round (its older memory recorded as the new
# one, as detection did before it weighed which was said later) is held too: nothing is recorded under the reversed
# id, the held conflict is the pair's answer, OPEN, and neither memory changes.


def only_the_held_conflict(c: Container, scope: Scope, held: Conflict) -> None:
    """Nothing was recorded for the pair the other way round (nor settled): the held conflict is the user's only one."""
    assert [x.id for x in c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)] == [held.id]


@pytest.mark.parametrize("strategy", [ConflictStrategy.LATEST, ConflictStrategy.STRONGER])
def test_add_triple_on_the_old_memory_leaves_the_held_pair_alone(living: tuple[Container, FakeClock], scope: Scope,
                                                                 strategy: ConflictStrategy,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """addTriple on the OLD memory: its hooks find the newer memory (LATEST would supersede the old one, and STRONGER
    too: equal weights, a tie goes to the newer), recorded and settled in the hooks' transaction (LATEST foreseen, then
    conflict/settle_many; STRONGER recorded, then conflict/resolve). The pair is held: nothing settles."""
    c, clock = living
    c.conflicts.settings = replace(c.conflicts.settings, strategy=strategy)
    t, u = scope.tenant, scope.user_id
    old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    before = state(c, scope, old.id, new.id)
    calls = spy(monkeypatch)
    clock.advance(timedelta(days=2))
    with statements(c) as ran:
        added = c.memories.add_triple(t, u, memory_id=old.id, subject="Beijing", predicate="climate", object_="dry")
    assert calls == ["record_and_settle_in"]  # the hooks found the pair again (the newer memory's, held)
    # (in the hooks' transaction conflict/settle_many goes with the association forming: conflict/form_settle_many)
    assert ("conflict/form_settle_many" in ran) == (strategy is ConflictStrategy.LATEST)
    assert added.valid_to is None and pending(c, t) == []
    assert_held(c, scope, held, before)
    assert superseded(c) == []
    only_the_held_conflict(c, scope, held)
    monkeypatch.undo()
    # checkConflicts on the old memory answers the held conflict, by the deployment's strategy or by REVIEW again
    for again in (c.conflicts.check(t, u, old.id), c.conflicts.check(t, u, old.id, strategy="REVIEW")):
        assert [(x.id, x.status, x.strategy) for x in again] == [(held.id, ConflictStatus.OPEN,
                                                                  ConflictStrategy.REVIEW)]
    assert_held(c, scope, held, before)
    only_the_held_conflict(c, scope, held)

    settle_by_the_user(c, clock, scope, held, old)
    assert c.conflicts.conflicts(t, u) == []


@pytest.mark.parametrize("strategy", [ConflictStrategy.LATEST, ConflictStrategy.STRONGER])
def test_add_triple_on_the_old_memory_still_settles_a_new_conflict(living: tuple[Container, FakeClock],
                                                                   scope: Scope, strategy: ConflictStrategy,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """addTriple gives the OLD memory a conflict of its own, with a memory older and lighter than it: two findings, the
    older memory's settled as the old memory's, then the held pair as the newer memory's. The new conflict is settled
    by the deployment's strategy, the held pair left alone."""
    c, clock = living
    c.conflicts.settings = replace(c.conflicts.settings, strategy=strategy)
    t, u = scope.tenant, scope.user_id
    siemens, old, new, held = siemens_then_held_pair(c, clock, scope, passive=0.0, active=0.1)
    before = state(c, scope, new.id)
    calls = spy(monkeypatch)
    clock.advance(timedelta(days=2))
    c.memories.add_triple(t, u, memory_id=old.id, subject="user", predicate="works_at", object_="Bosch")
    assert calls == ["record_and_settle_in", "record_and_settle_in"]
    found = {x.id: x for x in c.conflicts.conflicts(t, u, status=None)}
    [settled] = [x for x in found.values() if x.id != held.id]
    assert (settled.new_memory_id, settled.old_memory_id, settled.status, settled.strategy, settled.winner_id,
            settled.loser_id) == (old.id, siemens.id, ConflictStatus.RESOLVED, strategy, old.id, siemens.id)
    assert superseded(c) == [(siemens.id, old.id)]
    again = found[held.id]
    assert (again.status, again.strategy, again.winner_id) == (ConflictStatus.OPEN, ConflictStrategy.REVIEW, None)
    assert state(c, scope, new.id) == before
    assert get(c, scope, old.id).valid_to is None
    monkeypatch.undo()

    settle_by_the_user(c, clock, scope, held, new)


@pytest.mark.parametrize("findings", ["one", "two"])
def test_the_hook_of_the_old_memory_outside_a_transaction_leaves_the_held_pair_alone(
        living: tuple[Container, FakeClock], scope: Scope, findings: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stored-memory hook on its own for the OLD memory (record_and_settle): the held pair found as the newer
    memory's, and with two findings the older memory's first, as the old memory's; each one by one (conflict/record);
    either way the held pair stays as it was."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    siemens = None
    if findings == "two":
        siemens, old, new, held = siemens_then_held_pair(c, clock, scope)
    else:
        old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    before = state(c, scope, old.id, new.id)
    clock.advance(timedelta(days=1))
    triples = c.memories.triples(t, u, old.id)
    if siemens is not None:
        triples.append(bosch(c, clock, scope, old.id))
    calls = spy(monkeypatch)
    embedding = c.conflicts._conflicts.embedding(scope, old.id)
    with statements(c) as ran:
        c.conflicts.on_memory_stored(StoredMemoryContext(scope=scope, memory=get(c, scope, old.id), triples=triples,
                                                         embedding=embedding))
    assert calls == ["record_and_settle"] * (1 if siemens is None else 2)
    assert "conflict/record" in ran and "conflict/settle_many" not in ran
    again = c.conflicts.get(t, u, held.id)
    assert again is not None and (again.status, again.strategy) == (ConflictStatus.OPEN, ConflictStrategy.REVIEW)
    assert get(c, scope, new.id).valid_to is None and get(c, scope, old.id).valid_to is None
    if siemens is not None:  # the old memory won its other conflict: only the new one is as it was
        assert state(c, scope, new.id) == [row for row in before if row["id"] == new.id]
        assert superseded(c) == [(siemens.id, old.id)]
        assert len(c.conflicts.conflicts(t, u, status=None)) == 2
    else:
        assert state(c, scope, old.id, new.id) == before
        assert superseded(c) == []
        only_the_held_conflict(c, scope, held)
    monkeypatch.undo()

    settle_by_the_user(c, clock, scope, held, old)


@pytest.mark.parametrize("left_pending", ["old", "both"])
def test_resumed_hooks_of_the_old_memory_leave_the_held_pair_alone(living: tuple[Container, FakeClock],
                                                                   scope: Scope, left_pending: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The OLD memory (or both memories of the pair) left pending by an addTriple whose hooks failed: resume_hooks runs
    the hooks in one transaction, the settlements looked ahead at for the batch at once (conflict/foresee, then
    record_and_settle_in with those rows). The pair is found again the way it was said (from the old memory, as the
    newer memory's; with both, the old memory's detection leaves the newer memory of its batch to its own) and stays
    held."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    before = state(c, scope, old.id, new.id)
    break_conflict_detection(c, monkeypatch)
    c.memories.add_triple(t, u, memory_id=old.id, subject="Beijing", predicate="climate", object_="dry")
    if left_pending == "both":
        c.memories.add_triple(t, u, memory_id=new.id, subject="Shanghai", predicate="climate", object_="humid")
    assert sorted(pending(c, t)) == sorted([old.id, new.id] if left_pending == "both" else [old.id])
    monkeypatch.undo()

    calls = spy(monkeypatch)
    clock.advance(timedelta(days=1))
    with statements(c) as ran:
        resumed = c.ingest.resume_hooks(t, u, older_than=timedelta(0))
    assert resumed == (2 if left_pending == "both" else 1)
    assert len(calls) == 1
    assert set(calls) == {"record_and_settle_in"}
    assert [x for x in ran if x.startswith("conflict/")].count("conflict/foresee") == 1  # looked ahead once
    assert pending(c, t) == []
    assert_held(c, scope, held, before)
    assert superseded(c) == []
    only_the_held_conflict(c, scope, held)
    monkeypatch.undo()

    settle_by_the_user(c, clock, scope, held, old)


def held_over_a_locked_conflict(c: Container, clock: FakeClock, scope: Scope
                                ) -> tuple[Memory, Memory, Conflict, Conflict]:
    """The hooks recorded a pair OPEN by LATEST (its old memory locked: nobody chosen); the pair is then held for
    review the other way round, as checkConflicts(strategy: REVIEW) on the locked memory recorded it before detection
    weighed which memory was said later (now it answers the pair's own conflict; a store keeps what was recorded);
    then the memory is unlocked. (the formerly locked memory, the other, the conflict recorded by LATEST, the one held
    for review)"""
    t, u = scope.tenant, scope.user_id
    core = store(c, scope, "My name is Li Lei", triples=[("user", "name", "Li Lei", 1)], tier=Tier.CORE, hook=False)
    clock.advance(timedelta(days=1))
    new = store(c, scope, "My name is Han Meimei", triples=[("user", "name", "Han Meimei", 1)])
    [locked] = c.conflicts.conflicts(t, u)
    assert (locked.status, locked.strategy, locked.new_memory_id) == (ConflictStatus.OPEN, ConflictStrategy.LATEST,
                                                                      new.id)
    [answered] = c.conflicts.check(t, u, core.id, strategy="REVIEW")
    assert answered.id == locked.id
    policy = c.weight_policy
    [(held, _)] = ConflictRepository(c.store).record_and_settle(
        scope, core.id, [(new.id, locked.kind, locked.reason)], strategy=ConflictStrategy.REVIEW, choose=None,
        params=policy.cypher_params(), winner_bonus=policy.winner_bonus, loser_penalty=policy.loser_penalty,
        resolved_by=ConflictStrategy.REVIEW.value, now=clock.now())
    assert (held.status, held.strategy, held.new_memory_id, held.old_memory_id) == (
        ConflictStatus.OPEN, ConflictStrategy.REVIEW, core.id, new.id)
    c.tiers.unlock(t, u, core.id)
    return get(c, scope, core.id), new, locked, held


def test_a_pair_held_the_other_way_round_is_held_over_an_open_conflict_of_its_own(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    """Once the memory is unlocked, an addTriple on the other memory finds its own OPEN conflict again: the pair is held
    for review, so it is left OPEN too, and neither memory changes; the user's resolveConflict settles the pair (its
    other conflict closed, moot)."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    core, new, locked, held = held_over_a_locked_conflict(c, clock, scope)
    before = state(c, scope, core.id, new.id)
    clock.advance(timedelta(hours=1))
    c.memories.add_triple(t, u, memory_id=new.id, subject="Han Meimei", predicate="lives_in", object_="Beijing")
    assert_held(c, scope, held, before)
    again = c.conflicts.get(t, u, locked.id)
    assert again is not None and again.status is ConflictStatus.OPEN
    assert superseded(c) == []

    settle_by_the_user(c, clock, scope, held, core)
    closed = c.conflicts.get(t, u, locked.id)
    assert closed is not None and closed.moot


def test_settle_many_settles_no_conflict_of_a_pair_held_the_other_way_round(living: tuple[Container, FakeClock],
                                                                           scope: Scope) -> None:
    """The backstop of conflict/settle_many (the settlement a look-ahead planned, should what it read have changed
    since): asked to settle the OPEN conflict recorded by LATEST of a pair held for review the other way round, it
    settles nothing, and neither memory changes."""
    c, clock = living
    core, new, locked, held = held_over_a_locked_conflict(c, clock, scope)
    before = state(c, scope, core.id, new.id)
    clock.advance(timedelta(hours=1))
    policy = c.weight_policy
    settle = _Settle(scope=scope, new_id=new.id, findings=[], strategy=ConflictStrategy.LATEST, choose=None,
                     params=policy.cypher_params(), winner_bonus=policy.winner_bonus,
                     loser_penalty=policy.loser_penalty, resolved_by=ConflictStrategy.LATEST.value, now=clock.now())
    item = {"id": conflict_id(scope, new.id, core.id), "reverse_id": conflict_id(scope, core.id, new.id),
            "winner_id": new.id, "loser_id": core.id}
    assert item["id"] == locked.id and item["reverse_id"] == held.id
    recorded, resolved = c.store.write_tx(lambda tx: settle._settle_many(tx, [], with_memories=False, resolve=[item]))
    assert (recorded, resolved) == ([], [])
    assert_held(c, scope, held, before)
    again = c.conflicts.get(scope.tenant, scope.user_id, locked.id)
    assert again is not None and again.status is ConflictStatus.OPEN


def test_a_pair_held_over_a_locked_memory_is_not_recorded_again_the_other_way(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    """checkConflicts (LATEST) on the locked older memory of a pair held OPEN by LATEST answers that conflict: a
    second OPEN conflict of the pair, the other way round, filled the review queue twice. Once the memory is
    unlocked, the same check settles the pair (the newer wins), one conflict in all."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    core, new, locked = held_by_a_lock(c, clock, scope, "works_at", "Google", "Microsoft")
    [again] = c.conflicts.check(t, u, core.id, strategy="LATEST")
    assert again.id == locked.id and again.status is ConflictStatus.OPEN
    assert [x.id for x in c.conflicts.conflicts(t, u, status=None)] == [locked.id]
    c.tiers.unlock(t, u, core.id)
    [settled] = c.conflicts.check(t, u, core.id, strategy="LATEST")
    assert (settled.id, settled.status, settled.winner_id) == (locked.id, ConflictStatus.RESOLVED, new.id)
    assert [x.id for x in c.conflicts.conflicts(t, u, status=None)] == [locked.id]
