"""Working memory: last N turns per session, the byte bound with LRU eviction of whole sessions, headroom,
thread safety, and the rebuild from episodes (a new instance, as after a restart) against real Neo4j."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from graph.episodes import EpisodeRepository
from graph.model import Scope
from ingest.turns import TurnInput
from ingest.working_memory import Turn, WorkingMemory, turn_bytes

T0 = datetime(2026, 3, 1, tzinfo=UTC)
ALICE = Scope("t", "alice")


def mk(i: int, text: str | None = None) -> Turn:
    return Turn(speaker="user", text=text or f"turn {i}", at=T0 + timedelta(minutes=i), turn=i, episode_id=f"ep{i}")


class Store:
    """A stand-in for the episodes: what a loader would read (the real one is tested below)."""

    def __init__(self) -> None:
        self.turns: dict[tuple[Scope, str], list[Turn]] = {}
        self.loads = 0

    def load(self, scope: Scope, session: str, n: int) -> list[Turn]:
        self.loads += 1
        return sorted(self.turns.get((scope, session), []), key=lambda t: t.turn)[-n:]


def test_last_n_turns_oldest_first() -> None:
    store = Store()
    wm = WorkingMemory(store.load, turns_per_session=3)
    wm.record(ALICE, "s1", [mk(i) for i in range(5)])
    assert [t.turn for t in wm.recent(ALICE, "s1")] == [2, 3, 4]
    assert [t.turn for t in wm.recent(ALICE, "s1", 2)] == [3, 4]
    assert [t.turn for t in wm.recent(ALICE, "s1", 99)] == [2, 3, 4]
    assert wm.recent(Scope("t", "bob"), "s1") == []  # another user's session of the same name


def test_recording_a_turn_twice_changes_nothing() -> None:
    wm = WorkingMemory(Store().load, turns_per_session=5)
    wm.record(ALICE, "s1", [mk(0), mk(1)])
    before = wm.stats()
    wm.record(ALICE, "s1", [mk(1), mk(0)])
    assert wm.stats() == before and [t.turn for t in wm.recent(ALICE, "s1")] == [0, 1]


def test_first_access_rebuilds_from_the_store_and_merges_recorded_turns() -> None:
    store = Store()
    store.turns[(ALICE, "s1")] = [mk(i) for i in range(6)]
    wm = WorkingMemory(store.load, turns_per_session=4)
    wm.record(ALICE, "s1", [mk(6)])  # stored meanwhile; the session was not held yet
    assert [t.turn for t in wm.recent(ALICE, "s1")] == [3, 4, 5, 6]
    assert [t.turn for t in wm.recent(ALICE, "s1")] == [3, 4, 5, 6] and store.loads == 1


def test_lru_evicts_whole_sessions_within_the_byte_bound() -> None:
    one = turn_bytes(mk(0, "x" * 1000))
    budget = 3 * (one + 600) + 100  # room for three one-turn sessions
    store = Store()
    wm = WorkingMemory(store.load, turns_per_session=1, max_bytes=budget)
    for s in range(3):
        wm.record(ALICE, f"s{s}", [mk(0, "x" * 1000)])
    assert wm.stats().sessions == 3
    wm.recent(ALICE, "s0")  # s0 becomes the most recently used
    wm.record(ALICE, "s3", [mk(0, "x" * 1000)])
    stats = wm.stats()
    assert stats.sessions == 3 and stats.bytes_used <= budget
    loads = store.loads
    wm.recent(ALICE, "s0")
    assert store.loads == loads  # s0 survived: held, not read again
    assert wm.recent(ALICE, "s1") == [] and store.loads == loads + 1  # s1 was evicted: read again
    assert 0.0 <= wm.headroom() < 1.0


def test_a_session_larger_than_the_budget_keeps_its_newest_turns() -> None:
    wm = WorkingMemory(Store().load, turns_per_session=5, max_bytes=2 * turn_bytes(mk(0, "y" * 500)) + 700)
    wm.record(ALICE, "s1", [mk(i, "y" * 500) for i in range(5)])
    assert [t.turn for t in wm.recent(ALICE, "s1")] == [3, 4]
    assert wm.stats().bytes_used <= wm.max_bytes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 30), st.integers(0, 400)), max_size=60),
       st.integers(2000, 20000), st.integers(1, 6))
def test_the_bound_always_holds(ops: list[tuple[int, int, int]], budget: int, n: int) -> None:
    wm = WorkingMemory(Store().load, turns_per_session=n, max_bytes=budget)
    for session, index, size in ops:
        wm.record(ALICE, f"s{session}", [mk(index, "z" * size)])
        stats = wm.stats()
        assert stats.bytes_used <= budget and 0.0 <= stats.headroom <= 1.0
        assert len(wm.recent(ALICE, f"s{session}")) <= n
    wm.clear()
    assert wm.stats().bytes_used == 0


def test_thread_safe_under_concurrent_use() -> None:
    wm = WorkingMemory(Store().load, turns_per_session=5, max_bytes=50_000)

    def work(k: int) -> None:
        for i in range(200):
            wm.record(ALICE, f"s{(k + i) % 7}", [mk(i, "w" * (i % 50))])
            wm.recent(ALICE, f"s{i % 7}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = sum(sum(turn_bytes(t) for t in wm.recent(ALICE, f"s{s}")) for s in range(7))
    stats = wm.stats()
    assert stats.bytes_used <= 50_000 and stats.sessions <= 7 and total <= stats.bytes_used


def test_rebuilt_from_episodes_after_a_restart(container: Container, tenant: str) -> None:
    c = Container(container.settings, clock=FakeClock(T0))
    try:
        scope = Scope(tenant, "alice")
        c.ingest.ingest_conversation(tenant, [
            TurnInput(user_id="alice", session_id="s1", speaker="user" if i % 2 == 0 else "assistant",
                      text=f"line {i}", at=T0 + timedelta(seconds=i)) for i in range(8)])
        held = c.working_memory.recent(scope, "s1")
        episodes = EpisodeRepository(c.store, c.vector_dimensions)
        fresh = WorkingMemory(
            lambda s, session, n: [Turn(speaker=e.speaker, text=e.text, at=e.at, turn=e.turn, episode_id=e.id)
                                   for e in episodes.recent(s, session, n)],
            turns_per_session=5)
        rebuilt = fresh.recent(scope, "s1")
        assert rebuilt == held and [t.text for t in rebuilt] == [f"line {i}" for i in range(3, 8)]
        assert [t.speaker for t in rebuilt] == ["assistant", "user", "assistant", "user", "assistant"]
        assert fresh.recent(scope, "never-seen") == []
    finally:
        c.close()


def test_the_api_refuses_more_turns_than_are_held(client: BmamClient, container: Container) -> None:
    """workingMemory(n:) above the turns held per session is refused (LIMIT_EXCEEDED on n), not cut down;
    the cap itself and no n answer the held turns."""
    user = f"wm-{uuid.uuid4().hex[:8]}"
    cap = container.settings.ingest.working_memory_turns  # the settings the served app uses
    for i in range(cap + 2):
        client.ingest_turn(user, "s1", "user" if i % 2 == 0 else "assistant", f"line {i}", turn=i)
    expected = [f"line {i}" for i in range(2, cap + 2)]
    assert [t["text"] for t in client.working_memory(user, "s1")["turns"]] == expected
    assert [t["text"] for t in client.working_memory(user, "s1", cap)["turns"]] == expected
    assert [t["text"] for t in client.working_memory(user, "s1", 2)["turns"]] == expected[-2:]
    with pytest.raises(BmamClientError) as err:
        client.working_memory(user, "s1", cap + 1)
    assert err.value.code == "LIMIT_EXCEEDED" and err.value.errors[0]["extensions"]["field"] == "n"
    assert str(cap) in err.value.message
    with pytest.raises(BmamClientError) as err:
        client.working_memory(user, "s1", 0)
    assert err.value.code == "BAD_USER_INPUT" and err.value.errors[0]["extensions"]["field"] == "n"
