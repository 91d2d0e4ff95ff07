"""A conflict held for review stays held (against the real Neo4j): checkConflicts(strategy: REVIEW) records it OPEN,
and the system's later settlements that find the same pair again (the stored-memory hooks an addTriple on the
memory runs, with the deployment's strategy; resume_hooks over several memories; the hook one memory at a time)
leave it OPEN and both memories as they were. Only the user settles it (resolve). A conflict found for the first
time alongside it is still settled by the deployment's strategy, and an OPEN conflict recorded by another strategy
(held because a memory is locked) is tried again as before."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.hooks import StoredMemoryContext
from graph.conflicts import Conflict, ConflictRepository, ConflictStatus, ConflictStrategy
from graph.model import Memory, Scope, Tier
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
    siemens = store(c, scope, "I work at Siemens", triples=[("user", "works_at", "Siemens", 1)], passive=0.0,
                    active=0.1, hook=False)
    clock.advance(timedelta(hours=1))
    old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
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
    extra: list[tuple[str, str, str, int]] = []
    siemens = None
    if findings == "two":
        siemens = store(c, scope, "I work at Siemens", triples=[("user", "works_at", "Siemens", 1)], hook=False)
        clock.advance(timedelta(hours=1))
    old, new, held = held_pair(c, clock, scope, "lives_in", "Beijing", "Shanghai")
    if findings == "two":
        extra = [("user", "works_at", "Bosch", 1)]
    before = state(c, scope, old.id, new.id)
    clock.advance(timedelta(days=1))
    triples = c.memories.triples(t, u, new.id)
    if extra:
        triples.append(TripleRepository(c.store).add(scope, memory_id=new.id, subject="user", subject_kind="thing",
                                                     predicate="works_at", object_="Bosch", object_kind="thing",
                                                     polarity=1, now=clock.now()))
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


def test_a_conflict_held_by_a_locked_memory_is_settled_once_it_is_unlocked(living: tuple[Container, FakeClock],
                                                                           scope: Scope) -> None:
    """Recorded OPEN by LATEST (choose named nobody: the old memory is locked), it is tried again whenever found:
    once the memory is unlocked, addTriple's hooks settle it."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    core = store(c, scope, "My name is Li Lei", triples=[("user", "name", "Li Lei", 1)], tier=Tier.CORE, hook=False)
    clock.advance(timedelta(days=1))
    new = store(c, scope, "My name is Han Meimei", triples=[("user", "name", "Han Meimei", 1)])
    [held] = c.conflicts.conflicts(t, u)
    assert (held.status, held.strategy) == (ConflictStatus.OPEN, ConflictStrategy.LATEST)
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
