"""Stored-memory hooks are not lost when they fail after the ingest committed (real Neo4j): the memory keeps a
pending mark until its hooks went through, and IngestUseCases.resume_hooks (at the user's next ingest, at the
server's start) runs them again: a conflict is then found and settled, and a second run changes nothing."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.hooks import StoredMemoryContext, StoredMemoryHook
from graph.memories import MemoryRepository, WeightShares
from graph.store import GraphStore, StoreConfig
from ingest.turns import TurnInput
from tests.ops_support import free_port, store_rows

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Outage:
    """A hook standing in for a real one that fails its first `failures` calls (Neo4j gone for a moment after
    the ingest committed), then does what the real one does."""

    def __init__(self, real: StoredMemoryHook, failures: int) -> None:
        self.real = real
        self.failures = failures

    def __call__(self, context: StoredMemoryContext) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionError("Neo4j went away")
        self.real(context)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def c(settings: Settings, clock: FakeClock) -> Iterator[Container]:
    made = Container(settings, clock=clock)
    yield made
    made.close()


def turn(text: str, minutes: int) -> TurnInput:
    return TurnInput(user_id="alice", session_id="s1", speaker="user", text=text, at=T0 + timedelta(minutes=minutes))


def pending(c: Container, tenant: str) -> set[str]:
    rows = store_rows(c, "MATCH (m:Memory) WHERE m.tenant = $t AND m.hooks_pending_at IS NOT NULL "
                         "RETURN m.id AS id", t=tenant)
    return {r["id"] for r in rows}


def superseded(c: Container, tenant: str, ids: list[str]) -> set[str]:
    found = [c.memories.get(tenant, "alice", mid) for mid in ids]
    return {m.id for m in found if m is not None and m.valid_to is not None}


def with_outage(c: Container, failures: int) -> None:
    hooks = c.stored_memory_hooks
    hooks[:] = [Outage(hook, failures) for hook in hooks]


def test_a_conflict_missed_by_failed_hooks_is_found_when_they_run_again(c: Container, clock: FakeClock,
                                                                         tenant: str) -> None:
    real = list(c.stored_memory_hooks)
    with_outage(c, failures=10)
    old = c.ingest.ingest_turn(tenant, turn("I don't eat spicy food", 0)).memories[0]
    new = c.ingest.ingest_turn(tenant, turn("I really love spicy food now", 1)).memories[0]
    assert pending(c, tenant) == {old.id, new.id}
    assert c.conflicts.conflicts(tenant, "alice", status=None) == []  # missed: the hooks failed
    c.stored_memory_hooks[:] = real
    # still within the wait: a batch whose hooks may be running is left alone
    assert c.ingest.resume_hooks(tenant) == 0 and pending(c, tenant) == {old.id, new.id}
    clock.advance(timedelta(minutes=10))
    assert c.ingest.resume_hooks(tenant) == 2
    assert pending(c, tenant) == set()
    found = c.conflicts.conflicts(tenant, "alice", status=None)
    assert [(x.new_memory_id, x.old_memory_id) for x in found] in ([(new.id, old.id)], [(old.id, new.id)])
    assert superseded(c, tenant, [old.id, new.id]) == {old.id}
    assert c.ingest.resume_hooks(tenant, older_than=timedelta(0)) == 0  # done: nothing runs twice


def test_the_users_next_ingest_resumes_hooks_left_pending(c: Container, clock: FakeClock, tenant: str) -> None:
    real = list(c.stored_memory_hooks)
    with_outage(c, failures=10)
    old = c.ingest.ingest_turn(tenant, turn("I don't eat spicy food", 0)).memories[0]
    new = c.ingest.ingest_turn(tenant, turn("I really love spicy food now", 1)).memories[0]
    c.stored_memory_hooks[:] = real
    clock.advance(timedelta(minutes=10))
    later = c.ingest.ingest_turn(tenant, turn("My sister lives in Berlin", 12)).memories[0]
    assert pending(c, tenant) == set()
    assert len(c.conflicts.conflicts(tenant, "alice", status=None)) == 1
    assert superseded(c, tenant, [old.id, new.id, later.id]) == {old.id}


def test_hooks_that_go_through_leave_no_mark(c: Container, tenant: str) -> None:
    report = c.ingest.ingest_conversation(tenant, [turn("My sister lives in Berlin", 0),
                                                  turn("I play the piano every day", 1)])
    assert [len(t.memories) for t in report.turns] == [1, 1]
    assert pending(c, tenant) == set()


def test_a_hook_failing_on_one_part_leaves_only_that_part_pending(c: Container, clock: FakeClock,
                                                                   tenant: str) -> None:
    seen: list[str] = []

    def flaky(context: StoredMemoryContext) -> None:
        seen.append(context.memory.id)
        if "piano" in context.memory.text and seen.count(context.memory.id) == 1:
            raise ConnectionError("Neo4j went away")

    c.stored_memory_hooks.append(flaky)  # a plain hook: each memory on its own through all hooks
    report = c.ingest.ingest_conversation(tenant, [turn("My sister lives in Berlin", 0),
                                                  turn("I play the piano every day", 1)])
    berlin, piano = (t.memories[0].id for t in report.turns)
    assert pending(c, tenant) == {piano}
    clock.advance(timedelta(minutes=10))
    assert c.ingest.resume_hooks(tenant, "alice") == 1
    assert seen == [berlin, piano, piano] and pending(c, tenant) == set()


def test_neo4j_gone_after_the_commit_leaves_the_answer_and_the_earlier_hooks_pending(
        c: Container, clock: FakeClock, tenant: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The batch is committed before the user's earlier pending hooks run again: Neo4j gone for that read leaves
    the batch's answer standing, and those memories still marked for the next ingest; it was an error, and the
    caller retried what was stored. The read goes through the real driver to a port nothing listens on (the
    ingest's memory repository reads on a store of its own there; its writes run in the batch's transaction)."""
    real = list(c.stored_memory_hooks)
    with_outage(c, failures=10)
    old = c.ingest.ingest_turn(tenant, turn("I don't eat spicy food", 0)).memories[0]
    c.stored_memory_hooks[:] = real
    clock.advance(timedelta(minutes=10))

    w = c.settings.weights
    gone = GraphStore(StoreConfig(uri=f"bolt://127.0.0.1:{free_port()}", retry_time_s=0.0, connection_timeout_s=1.0))
    try:
        with monkeypatch.context() as patched:
            patched.setattr(c.ingest, "_memories", MemoryRepository(
                gone, WeightShares(passive=w.passive_share, active=w.active_share, preset=w.preset_share),
                c.vector_dimensions))
            with caplog.at_level(logging.WARNING, logger="bmam.usecases.ingest"):
                report = c.ingest.ingest_turn(tenant, turn("My sister lives in Berlin", 12))
    finally:
        gone.close()
    assert any("Neo4j unavailable after the commit" in r.getMessage() for r in caplog.records)  # the read was tried
    assert report.stored and [m.text for m in report.memories] == ["My sister lives in Berlin"]
    assert pending(c, tenant) == {old.id}  # left for the next ingest, which runs it
    c.ingest.ingest_turn(tenant, turn("I play the piano every day", 13))
    assert pending(c, tenant) == set()
