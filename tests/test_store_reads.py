"""Single reads run in auto-commit transactions (graph/store.py GraphStore.read): the same rows as in a
managed transaction, and retried like one (the policy alone, then against the real Neo4j)."""

from __future__ import annotations

import logging

import pytest
from neo4j import exceptions as neo4j_errors

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.model import Scope
from graph.store import _retried


class _Flaky:
    """Fails with `error` the first `failures` times it is called, then answers 42."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return 42


def test_a_retryable_error_is_retried_until_the_read_answers() -> None:
    flaky = _Flaky(3, neo4j_errors.ServiceUnavailable("neo4j restarting"))
    assert _retried(flaky, retry_time_s=5.0, first_pause_s=0.001) == 42
    assert flaky.calls == 4


def test_an_error_the_driver_would_not_retry_surfaces_at_once() -> None:
    flaky = _Flaky(1, neo4j_errors.ConfigurationError("bad database name"))
    with pytest.raises(neo4j_errors.ConfigurationError):
        _retried(flaky, retry_time_s=5.0, first_pause_s=0.001)
    assert flaky.calls == 1


class _Clock:
    """The monotonic clock _retried reads, moved on only by its pauses."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


def test_retries_stop_after_the_retry_time_with_the_last_error() -> None:
    clock = _Clock()
    flaky = _Flaky(10_000, neo4j_errors.SessionExpired("gone"))
    with pytest.raises(neo4j_errors.SessionExpired):
        _retried(flaky, retry_time_s=0.2, first_pause_s=0.02, monotonic=clock.monotonic, sleep=clock.sleep)
    # pauses 0.02, 0.04, 0.08 (+-20%, doubling): after three 0.112-0.168 s have passed, and the fourth (0.16 +-20%)
    # is cut to the time left; the attempt after it is the last
    assert flaky.calls == 5
    assert len(clock.pauses) == 4
    assert all(0.8 * 0.02 * 2**i <= p <= 1.2 * 0.02 * 2**i for i, p in enumerate(clock.pauses[:3]))
    assert clock.pauses[3] == pytest.approx(0.2 - sum(clock.pauses[:3]))
    assert sum(clock.pauses) <= 0.2 + 1e-9


@pytest.mark.parametrize("attempt_s", [0.0, 0.5, 3.0])
def test_the_pauses_never_run_past_the_retry_time(attempt_s: float) -> None:
    """BMAM_NEO4J__RETRY_TIME_S (10 s) is the budget: the time was checked only before each pause, so the 8 s
    pause began at 7 s and the caller heard UNAVAILABLE after 15 s. Attempts that take time themselves
    (attempt_s, a connection that times out) leave less to pause; none is taken once the budget is spent."""
    for round_ in range(20):  # the jitter
        clock = _Clock()
        down = _Down(clock, attempt_s)
        with pytest.raises(neo4j_errors.ServiceUnavailable):
            _retried(down, retry_time_s=10.0, monotonic=clock.monotonic, sleep=clock.sleep)
        assert sum(clock.pauses) <= 10.0 + 1e-9, (round_, clock.pauses)
        assert all(p > 0 for p in clock.pauses)
        # from the first failure to the last: the budget, and at most one attempt's time past it
        assert clock.now - attempt_s <= 10.0 + attempt_s + 1e-9
        assert down.calls == len(clock.pauses) + 1


class _Down:
    """Neo4j out of reach: each attempt fails after attempt_s on the clock."""

    def __init__(self, clock: _Clock, attempt_s: float) -> None:
        self.clock = clock
        self.attempt_s = attempt_s
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        self.clock.now += self.attempt_s
        raise neo4j_errors.ServiceUnavailable("neo4j down")


def test_a_read_returns_what_a_managed_transaction_returns(container: Container, scope: Scope) -> None:
    for text in ("I live in Chengdu", "My sister is called Lin", "I drink green tea every morning"):
        container.memories.remember(scope.tenant, RememberRequest(user_id=scope.user_id, text=text, type="FACTUAL"))
    params = {"tenant": scope.tenant, "user_id": scope.user_id}
    store = container.store
    before = store.timer.by_statement.get("memory/count_for_user", 0.0)
    auto = store.read("memory/count_for_user", params)
    managed = store.read_tx(lambda tx: tx.run("memory/count_for_user", params))
    assert auto == managed and auto[0]["n"] == 3
    assert store.timer.by_statement["memory/count_for_user"] > before  # timed like a statement in a transaction


def test_a_bad_statement_is_not_retried(container: Container, scope: Scope, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="graph.store"), pytest.raises(neo4j_errors.ClientError):
        container.store.read("memory/count_for_user", {})  # its parameters missing: Neo4j refuses it
    # no back-off: _retried logs each retry before its pause
    assert [r.getMessage() for r in caplog.records if "retried in" in r.getMessage()] == []


def test_a_failed_rolled_back_transaction_leaves_the_store_usable(container: Container, scope: Scope) -> None:
    # (that it keeps nothing it wrote: tests/test_warm_up.py, through rehearsed recalls)
    store = container.store
    params = {"tenant": scope.tenant, "user_id": scope.user_id}
    with pytest.raises(neo4j_errors.ClientError):
        store.rolled_back_tx(lambda tx: tx.run("memory/count_for_user", {}))  # Neo4j refuses it
    for _ in range(3):  # the pool's connections still answer, in both kinds of transaction
        assert store.rolled_back_tx(lambda tx: tx.run("memory/count_for_user", params))[0]["n"] == 0
        assert store.read("memory/count_for_user", params)[0]["n"] == 0
