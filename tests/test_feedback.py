"""Feedback: explicit +/-0.5 and implicit +/-0.2 on `active`, atomic under concurrency, NOT_FOUND for a
missing or foreign memory; end to end through the gql client."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.feedback import FeedbackUseCases
from graph.errors import BadInput, NotFound
from graph.ids import new_memory_id
from graph.model import Memory, MemoryType, NewMemory, Scope
from graph.weights import WeightRepository
from ingest.weights import FeedbackSignal, Parts, WeightPolicy, final_weight

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


def store_memory(c: Container, scope: Scope, text: str, now: datetime, *, passive: float = 0.2,
                 active: float = 0.5) -> Memory:
    new = NewMemory(id=new_memory_id(), text=text, type=MemoryType.FACTUAL,
                    embedding=[float(x) for x in c.embedder.embed_passages([text])[0]])
    return c.memory_repository.remember(scope, new, now=now, passive=passive, active=active).memory


@pytest.fixture
def feedback(container: Container, clock: FakeClock) -> Iterator[FeedbackUseCases]:
    yield FeedbackUseCases(clock=clock, weights=WeightRepository(container.store), policy=container.weight_policy)


def test_each_signal_moves_active_and_the_weight_follows(container: Container, scope: Scope, clock: FakeClock,
                                                         feedback: FeedbackUseCases) -> None:
    m = store_memory(container, scope, "I play the guitar", clock.now(), active=0.5)
    expected = 0.5
    for signal, delta in (("LIKE", 0.5), ("DISLIKE", -0.5), ("DWELL", 0.2), ("SKIP", -0.2), ("SKIP", -0.2),
                          ("DISLIKE", -0.5), ("like", 0.5)):
        got = feedback.feedback(scope.tenant, scope.user_id, m.id, signal)
        expected = min(1.0, max(0.0, expected + delta))
        assert got.weight.active == pytest.approx(expected, abs=1e-9)
        assert got.weight.final == pytest.approx(final_weight(Parts(0.2, expected, 0.5), feedback.policy), abs=1e-9)


def test_feedback_on_missing_or_foreign_memory_is_not_found(container: Container, scope: Scope, clock: FakeClock,
                                                            feedback: FeedbackUseCases) -> None:
    m = store_memory(container, scope, "I drive a red car", clock.now())
    with pytest.raises(NotFound):
        feedback.feedback(scope.tenant, scope.user_id, "m_does_not_exist", "LIKE")
    with pytest.raises(NotFound):  # another user of the same app
        feedback.feedback(scope.tenant, "bob", m.id, "LIKE")
    with pytest.raises(NotFound):  # the same user id in another app
        feedback.feedback(f"other-{uuid.uuid4().hex[:8]}", scope.user_id, m.id, "LIKE")
    with pytest.raises(BadInput):
        feedback.feedback(scope.tenant, scope.user_id, m.id, "LOVE")
    got = container.memory_repository.get(scope, m.id)
    assert got is not None and got.weight == m.weight  # nothing changed


def test_16_clients_25_calls_each_on_one_memory_are_exact(container: Container, scope: Scope,
                                                          clock: FakeClock) -> None:
    """Small steps so no ordering ever clamps: the end value is exact whatever the interleaving."""
    policy = WeightPolicy(explicit_feedback=0.001, implicit_feedback=0.0004)
    cases = FeedbackUseCases(clock=clock, weights=WeightRepository(container.store), policy=policy)
    m = store_memory(container, scope, "I collect stamps", clock.now(), active=0.5)
    signals = [FeedbackSignal.LIKE, FeedbackSignal.DWELL, FeedbackSignal.SKIP, FeedbackSignal.LIKE]
    errors: list[BaseException] = []
    barrier = threading.Barrier(16)

    def client(i: int) -> None:
        try:
            barrier.wait()
            for _ in range(25):
                cases.feedback(scope.tenant, scope.user_id, m.id, signals[i % 4])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    per_client = {FeedbackSignal.LIKE: 0.001, FeedbackSignal.DWELL: 0.0004, FeedbackSignal.SKIP: -0.0004}
    total = sum(25 * per_client[signals[i % 4]] for i in range(16))
    got = container.memory_repository.get(scope, m.id)
    assert got is not None
    assert got.weight.active == pytest.approx(0.5 + total, abs=1e-9)
    assert got.weight.final == pytest.approx(final_weight(Parts(0.2, 0.5 + total, 0.5), policy), abs=1e-9)
    rows = container.store.read("memory/get", {"tenant": scope.tenant, "user_id": scope.user_id, "id": m.id})
    assert rows[0]["memory"]["feedback_count"] == 400


def test_16_clients_with_the_real_steps_count_every_call(container: Container, scope: Scope,
                                                         clock: FakeClock, feedback: FeedbackUseCases) -> None:
    m = store_memory(container, scope, "I speak French", clock.now(), active=0.5)
    barrier = threading.Barrier(16)

    def client(i: int) -> None:
        barrier.wait()
        for _ in range(25):
            feedback.feedback(scope.tenant, scope.user_id, m.id, "LIKE" if i % 2 else "DWELL")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = container.store.read("memory/get", {"tenant": scope.tenant, "user_id": scope.user_id, "id": m.id})
    assert rows[0]["memory"]["feedback_count"] == 400
    assert rows[0]["memory"]["active"] == 1.0  # only increases, clamped at 1


def test_feedback_over_graphql(client: BmamClient) -> None:
    user = f"fb-{uuid.uuid4().hex[:8]}"
    m = client.remember(user, "I run every morning")
    liked = client.feedback(user, m["id"], "LIKE")
    assert liked["weight"]["active"] == pytest.approx(min(1.0, m["weight"]["active"] + 0.5))
    skipped = client.feedback(user, m["id"], "SKIP")
    assert skipped["weight"]["active"] == pytest.approx(liked["weight"]["active"] - 0.2)
    with pytest.raises(BmamClientError) as missing:
        client.feedback(user, "m_nope", "LIKE")
    assert missing.value.code == "NOT_FOUND"
    with pytest.raises(BmamClientError) as foreign:
        client.feedback("someone-else", m["id"], "LIKE")
    assert foreign.value.code == "NOT_FOUND"
    with pytest.raises(BmamClientError) as bad:
        client.execute("mutation { feedback(userId: \"x\", memoryId: \"m\", signal: LOVE) { id } }")
    assert bad.value.code == "BAD_USER_INPUT"


def test_feedback_on_superseded_history_is_refused_and_changes_nothing(container: Container, tenant: str) -> None:
    """As react, lock and correct refuse history: a LIKE moved the active part of a corrected memory (0.5 -> 1.0)."""
    from bmam.usecases.memories import RememberRequest
    from graph.errors import Conflict

    old = container.memories.remember(tenant, RememberRequest(user_id="ann", text="I live in Berlin", type="FACTUAL"))
    container.corrections.correct(tenant, "ann", old.id, "I live in Hamburg")
    before = container.memories.get(tenant, "ann", old.id)
    assert before is not None and before.valid_to is not None
    with pytest.raises(Conflict, match="superseded history"):
        container.feedback.feedback(tenant, "ann", old.id, "LIKE")
    after = container.memories.get(tenant, "ann", old.id)
    assert after is not None and after.weight == before.weight
