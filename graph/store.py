"""The connection to Neo4j: runs named statements in transactions, with timeouts and retries."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j import exceptions as neo4j_errors
from neo4j._data import RecordExporter  # record.data()'s converter, for nodes, relationships, paths
from neo4j.graph import Node, Path, Relationship

from graph.cypher_library import runnable
from graph.errors import StoreTimeout, StoreUnavailable

log = logging.getLogger(__name__)


def _pipelined_begin(session: neo4j.Session) -> AbstractContextManager[None]:
    """BEGIN sent with the transaction's first statement instead of in a round trip of its own (what the
    driver's execute_query does; one round trip less per transaction: a recall is a few short statements).
    A failed BEGIN surfaces at that first statement, as in execute_query. The flag is the driver's own
    (private; the driver is pinned in deploy/constraints.txt): without it, BEGIN goes alone as before."""
    flag = getattr(session, "_pipelined_begin", None)
    return flag if isinstance(flag, AbstractContextManager) else nullcontext()


def _leave_released_connection_alone(tx: ManagedTransaction | neo4j.Transaction) -> None:
    """A transaction Neo4j failed (a deadlock, a timeout, a bad statement) is marked closed before the driver
    cleans it up. The driver's error handler has already handed its connection back to the pool, reset, yet
    its clean-up (tx._close -> rollback) then checks that connection for EOF: a recv(1) between two
    settimeout calls on a socket another thread may own by then. The two threads' timeouts interleave: one
    thread's recv blocks on the other's connection, or takes a byte of its answer (the sixteen-writer stalls
    of sessions 15-16). There is nothing left to roll back (the release reset the connection). The flags are
    the driver's own (private; the driver is pinned in deploy/constraints.txt, and
    tests/test_concurrency.py fails if a failed transaction touches a released connection again)."""
    if getattr(tx, "_last_error", None) is not None and hasattr(tx, "_closed_flag"):
        tx._closed_flag = True


T = TypeVar("T")

Row = dict[str, Any]
_EXPORTER = RecordExporter()


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """How to reach Neo4j; built by the composition root from its settings."""

    uri: str
    user: str = "neo4j"
    password: str = ""
    database: str = "neo4j"
    tx_timeout_s: float = 15.0
    tx_timeout_setting: str = "BMAM_NEO4J__TX_TIMEOUT_S"  # where tx_timeout_s comes from, named by a TIMEOUT error
    max_pool_size: int = 50
    connection_timeout_s: float = 5.0
    # How long a failing transaction is retried (managed ones by the driver, single reads by _retried): a
    # Neo4j restart shorter than this is not seen by callers; a longer outage answers UNAVAILABLE after it.
    retry_time_s: float = 10.0


# Neo4j went away, or every pooled connection stayed busy past the driver's wait for one: the caller sees
# UNAVAILABLE (the same request may succeed later). A transaction that ran past its timeout is not here: Neo4j
# is up and the same request would time out again (_translated: TIMEOUT).
_UNAVAILABLE = (
    neo4j_errors.ServiceUnavailable,
    neo4j_errors.SessionExpired,
    neo4j_errors.TransientError,
    neo4j_errors.ConnectionAcquisitionTimeoutError,
    ConnectionError,
    OSError,
)


class Tx:
    """A transaction in progress: runs named statements only."""

    def __init__(self, tx: ManagedTransaction | neo4j.Transaction, timer: QueryTimer) -> None:
        self._tx = tx
        self._timer = timer

    def run(self, name: str, params: dict[str, Any] | None = None, **splices: object) -> list[Row]:
        text = runnable(name, **splices)
        return _timed_rows(self._timer, name, lambda: self._tx.run(text, params or {}))

    def stream(self, name: str, params: dict[str, Any] | None = None, **splices: object) -> Iterator[Row]:
        """The rows one at a time, for a read too large to hold as one list (consume it inside the
        transaction)."""
        text = runnable(name, **splices)
        started = time.perf_counter()
        try:
            for record in self._tx.run(text, params or {}):
                yield _row(record)
        finally:
            self._timer.add(name, time.perf_counter() - started)


_SCALARS = frozenset({str, int, float, bool, type(None)})
_GRAPH_TYPES = (Node, Relationship, Path)


def _timed_rows(timer: QueryTimer, name: str, run: Callable[[], Iterable[neo4j.Record]]) -> list[Row]:
    """The rows of a statement as plain dicts; the time from sending it to its last row goes to timer as name."""
    started = time.perf_counter()
    rows = [_row(record) for record in run()]
    timer.add(name, time.perf_counter() - started)
    return rows


def _row(record: neo4j.Record) -> Row:
    """record.data(), without its walk of every element of a number list: the driver's exporter checks each
    float against several abstract classes (~3 us each), so a 512-float embedding cost ~1.5 ms to hand
    over, 14 s for a user's 10k embeddings."""
    return {key: _plain(value) for key, value in zip(record.keys(), record.values(), strict=True)}


def _plain(value: Any) -> Any:
    if type(value) in _SCALARS:  # most values: no further checks (a recall hands over ~600 of them)
        return value
    # The scalar test inline, not a call per element: a recall's candidates come as ~140 maps in lists.
    if isinstance(value, list):
        if all(type(v) in _SCALARS for v in value):  # an embedding, a list of names: as it came
            return value
        return [v if type(v) in _SCALARS else _plain(v) for v in value]
    if isinstance(value, dict):
        return {k: v if type(v) in _SCALARS else _plain(v) for k, v in value.items()}
    if isinstance(value, _GRAPH_TYPES):
        return _EXPORTER.transform(value)
    return value


class QueryTimer:
    """Accumulates time spent in Neo4j (for per-request timings and metrics)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.by_statement: dict[str, float] = {}
        self.listeners: list[Callable[[str, float], None]] = []

    def add(self, name: str, seconds: float) -> None:
        self.seconds += seconds
        self.by_statement[name] = self.by_statement.get(name, 0.0) + seconds
        for listener in self.listeners:
            listener(name, seconds)



def _retried(attempt: Callable[[], T], retry_time_s: float, first_pause_s: float = 1.0, *,
             monotonic: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> T:
    """attempt() until it succeeds or fails with an error the driver would not retry, or retry_time_s have
    passed since the first failure: the driver's policy for managed transactions (first pause 1 s, doubling,
    +-20% jitter), for work that runs outside one. No pause runs past retry_time_s: the last is cut to the time
    left, and the attempt after it is the last (checking the time only before each pause, the 8 s pause of a
    10 s budget began at 7 s, and the caller waited 15 s). monotonic and sleep are the clock (a test's own, so
    the count of retries does not depend on how busy the machine is)."""
    deadline: float | None = None
    delay = first_pause_s
    while True:
        try:
            return attempt()
        except (neo4j_errors.DriverError, neo4j_errors.Neo4jError) as exc:
            if not exc.is_retryable():
                raise
            now = monotonic()
            deadline = now + retry_time_s if deadline is None else deadline
            left = deadline - now
            if left <= 0:
                raise
            pause = min(delay * random.uniform(0.8, 1.2), left)
            if pause >= left:  # this attempt's pause ends the budget: the next attempt is the last
                deadline = now
            log.warning("neo4j read failed, retried in %.1f s: %s", pause, " ".join(str(exc).split()))
            sleep(pause)
            delay *= 2.0


class GraphStore:
    """One driver per process. Statements run in managed transactions (one read alone: in an auto-commit
    one), so transient errors (deadlocks, leader switches) are retried and never reach the caller."""

    def __init__(self, config: StoreConfig) -> None:
        self.config = config
        auth = (config.user, config.password) if config.password else None
        self._driver = GraphDatabase.driver(
            config.uri,
            auth=auth,
            max_connection_pool_size=config.max_pool_size,
            connection_timeout=config.connection_timeout_s,
            max_transaction_retry_time=config.retry_time_s,
            # A pooled connection idle for a minute is checked (one RESET round trip) before use; checking
            # every one cost each transaction a round trip (p95 0.5 -> 3.6 ms). One broken by a Neo4j
            # restart within the minute fails on use, and the managed transaction retries on a new one.
            liveness_check_timeout=60,
            # The server's notifications are planner hints ("property valid_to does not exist yet" on a
            # fresh store); logged per query they would flood the log with whole statements.
            notifications_min_severity="OFF",
        )
        self.timer = QueryTimer()

    def close(self) -> None:
        self._driver.close()

    @contextmanager
    def _translated(self, timeout_s: float | None = None) -> Iterator[None]:
        """Neo4j errors as the caller sees them, the one place they become BmamErrors: Neo4j gone,
        StoreUnavailable (UNAVAILABLE in the API); a transaction past its timeout (timeout_s, or the store's
        own), StoreTimeout (TIMEOUT). Neo4j stops such a transaction with a ClientError the driver does not
        retry: TransactionTimedOutClientConfiguration for the timeout the driver sends with each transaction,
        TransactionTimedOut for the server's own db.transaction.timeout."""
        try:
            yield
        except _UNAVAILABLE as exc:
            log.warning("neo4j unavailable: %s", exc)
            raise StoreUnavailable("the memory store is unavailable, try again shortly") from exc
        except neo4j_errors.ClientError as exc:
            if exc.code and exc.code.startswith("Neo.ClientError.Transaction.TransactionTimedOut"):
                log.warning("neo4j transaction timed out: %s", exc.code)
                raise StoreTimeout(self._timeout_message(timeout_s)) from exc
            raise

    def _timeout_message(self, timeout_s: float | None) -> str:
        limit = (f"{self.config.tx_timeout_s:g} s, {self.config.tx_timeout_setting}" if timeout_s is None
                 else f"{timeout_s:g} s")
        return (f"the request took longer than the time limit ({limit}) and was stopped: sent again as it is, it "
                "would time out again; a narrower request (a smaller depth or limit) may succeed")

    @contextmanager
    def _session(self, timeout_s: float | None = None) -> Iterator[neo4j.Session]:
        with self._translated(timeout_s), self._driver.session(database=self.config.database) as session, \
                _pipelined_begin(session):
            yield session

    def read(self, name: str, params: dict[str, Any] | None = None, *, timeout_s: float | None = None,
             **splices: object) -> list[Row]:
        """Run one named read statement, in an auto-commit transaction: one round trip, where a managed
        transaction takes a second for its COMMIT (bench/store_reads.py). Retried like a managed
        transaction (the driver's retryable errors, its backoff, for as long), so a transient error never
        reaches the caller here either; a read has nothing to undo when an attempt fails."""
        query = Query(runnable(name, **splices), timeout=self.config.tx_timeout_s if timeout_s is None else timeout_s)

        def once() -> list[Row]:
            with self._driver.session(database=self.config.database,
                                      default_access_mode=neo4j.READ_ACCESS) as session:
                return _timed_rows(self.timer, name, lambda: session.run(query, params or {}))

        with self._translated(timeout_s):
            return _retried(once, self.config.retry_time_s)

    def write(self, name: str, params: dict[str, Any] | None = None, *, timeout_s: float | None = None,
              **splices: object) -> list[Row]:
        """Run one named write statement in its own transaction."""
        return self.write_tx(lambda tx: tx.run(name, params, **splices), timeout_s=timeout_s)

    def _unit(self, work: Callable[[Tx], T], timeout_s: float | None) -> Callable[[ManagedTransaction], T]:
        # Every transaction carries a server-side timeout, so a runaway query cannot hold the service: the
        # store's own, or a longer one a caller names for work known to be long (forgetUser's scans).
        @unit_of_work(timeout=self.config.tx_timeout_s if timeout_s is None else timeout_s)
        def run(tx: ManagedTransaction) -> T:
            try:
                return work(self._tx(tx))
            except Exception:
                _leave_released_connection_alone(tx)
                raise

        return run

    def _tx(self, tx: ManagedTransaction) -> Tx:
        return Tx(tx, self.timer)

    def read_tx(self, work: Callable[[Tx], T], *, timeout_s: float | None = None) -> T:
        with self._session(timeout_s) as session:
            return session.execute_read(self._unit(work, timeout_s))

    def write_tx(self, work: Callable[[Tx], T], *, timeout_s: float | None = None) -> T:
        """Run several named statements atomically: all of them or none (no half-written memory)."""
        with self._session(timeout_s) as session:
            return session.execute_write(self._unit(work, timeout_s))

    def rolled_back_tx(self, work: Callable[[Tx], T], *, timeout_s: float | None = None) -> T:
        """Run statements in a write transaction that is always rolled back: their plans compile and their
        reads happen, nothing they write stays (the plan warm-up after a start, bmam/usecases/warm_up.py).
        Not retried: a rehearsal that fails has nothing to lose."""
        with self._session(timeout_s) as session:
            tx = session.begin_transaction(timeout=self.config.tx_timeout_s if timeout_s is None else timeout_s)
            try:
                return work(Tx(tx, self.timer))
            except Exception:
                _leave_released_connection_alone(tx)  # as in a managed transaction (_unit)
                raise
            finally:
                tx.close()  # an open transaction is rolled back on close

    def run_schema(self, text: str) -> None:
        """Schema statements cannot share a transaction with writes; run one in an auto-commit tx.
        Called with statements of the Cypher library only: graph.migrations (cypher/schema/), graph.maintenance
        (dropping a FAILED index before the schema re-creates it) and bench/scale_load.py (dropping the vector
        index for a bulk load)."""
        with self._session() as session:
            session.run(Query(text, timeout=self.config.tx_timeout_s)).consume()

    def clear_plans(self) -> None:
        """Empty Neo4j's plan cache, as a restart does (for bench/plan_warm_up.py)."""
        self.read("meta/clear_query_caches")

    def server_started(self) -> int | None:
        """When the Neo4j server started (epoch ms; meta/server_started), or None when Neo4j will not say (the JMX
        procedure refused on a secured server)."""
        try:
            rows = self.read("meta/server_started")
        except neo4j_errors.ClientError as exc:
            log.info("neo4j does not tell its start time (%s): no plan re-warm after its restarts", exc.code)
            return None
        started = rows[0]["started"] if rows else None
        return int(started) if isinstance(started, int) else None

    def ping(self, timeout_s: float = 3.0) -> bool:
        """Whether Neo4j answers right now: one auto-commit read without the driver's retries, so a health
        probe answers within seconds while Neo4j is down (managed transactions keep retrying for up to
        10 s, which is right for work and wrong for a probe). Broken pooled connections left by a server
        that died are dropped by the driver, so this turns true again by itself when Neo4j is back."""
        try:
            with self._driver.session(database=self.config.database,
                                      default_access_mode=neo4j.READ_ACCESS) as session:
                return bool(session.run(Query(runnable("meta/ping"), timeout=timeout_s)).data())
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, *_UNAVAILABLE) as exc:
            log.warning("neo4j ping failed: %s", exc)
            return False
