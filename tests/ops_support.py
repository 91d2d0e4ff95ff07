"""Shared by the end-to-end and operations tests (issue 8: faults, concurrency, restarts, workers): free
ports, an app served by uvicorn in a thread, a client
that logs every write as ok, failed or unknown, a bmam served by uvicorn in a subprocess, and read-only
verification queries straight against Neo4j (what is stored, counted exactly); and closing a subscription."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
import uvicorn
from gql.transport.exceptions import TransportConnectionFailed, TransportError
from neo4j import GraphDatabase

from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.settings import PROJECT_ROOT

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

# Codes with which the server refuses a request outright: nothing was written.
REFUSED = frozenset({"BAD_USER_INPUT", "LIMIT_EXCEEDED", "UNAUTHENTICATED", "NOT_FOUND"})


# The JVM flags of a Neo4j server a test starts for a few seconds (tests/test_neo4j_server.py): the client
# compiler only. C2's compilations pay back on a long-running server; on two cores they compete with the start.
# Measured on a fresh server (start, bmam's schema, 72 turns ingested by 3 threads), C1 against the default,
# three pairs on a busy 2-core machine: start 7.0-8.1 s against 11.0-16.5, schema 4.1-5.7 s against 7.6-12.6,
# ingest 24-38 s against 40-53. Not for tests/test_faults.py: its kill must land while a write is inside its
# own transaction, and in a run with C1 the four transactions the kill broke were all stored-memory hooks'
# (logged, the writes answered ok after them), so the outage caught no write.
TEST_JVM_FLAGS = ["-XX:TieredStopAtLevel=1"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(app: Any, *, start_timeout_s: float = 60.0, **config: Any) -> Iterator[str]:
    """An ASGI app served by uvicorn in a thread of this process on a free loopback port, for as long as
    the block runs: yields its base URL (http://127.0.0.1:PORT)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                                           **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# ----- writes and their outcomes ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnWrite:
    """One ingestTurn; (user, session, turn) is its idempotency key (ids derive from it)."""

    user: str
    session: str
    turn: int
    speaker: str
    text: str
    at: str

    def send(self, client: BmamClient) -> dict[str, Any]:
        return client.ingest_turn(self.user, self.session, self.speaker, self.text, turn=self.turn, at=self.at)


@dataclass
class Outcome:
    write: TurnWrite
    status: str  # ok | failed | unknown
    code: str = ""  # the error code (or transport error) when not ok
    answer: dict[str, Any] | None = None
    at: float = 0.0  # time.monotonic() when the answer came


def classify(exc: Exception) -> tuple[str, str]:
    """What a client may conclude from an error, as a careful client would:
    - failed: the request was refused as a whole before anything ran (a GraphQL error without a path,
      e.g. 503 UNAVAILABLE from the API-key check while Neo4j is down, or a 401), or the input was
      refused (BAD_USER_INPUT ...), or the connection was refused (nothing was sent);
    - unknown: anything else (UNAVAILABLE from a running resolver, a reset connection, a timeout): the
      write may or may not have been committed; replay it by its idempotency key."""
    if isinstance(exc, BmamClientError):
        first = exc.errors[0] if exc.errors else {}
        if exc.code in REFUSED or (exc.errors and "path" not in first and exc.code == "UNAVAILABLE"):
            return "failed", exc.code
        return "unknown", exc.code
    if isinstance(exc, TransportConnectionFailed):
        cause = exc.__cause__
        text = repr(cause)
        if "NewConnectionError" in text or "Connection refused" in text:
            return "failed", "CONNECTION_REFUSED"
        return "unknown", type(cause).__name__ if cause else "TransportConnectionFailed"
    if isinstance(exc, (TransportError, requests.RequestException, OSError)):
        return "unknown", type(exc).__name__
    raise exc


def attempt(client: BmamClient, write: TurnWrite) -> Outcome:
    try:
        answer = write.send(client)
    except Exception as exc:  # classified, or re-raised when it is none of the expected kinds
        status, code = classify(exc)
        return Outcome(write, status, code, at=time.monotonic())
    status = "ok" if answer.get("stored") else "failed"
    return Outcome(write, status, "" if status == "ok" else "NOT_STORED", answer, time.monotonic())


@dataclass
class WriteLog:
    """Thread-safe log of every write and what the client learned about it."""

    outcomes: list[Outcome] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: Outcome) -> None:
        with self._lock:
            self.outcomes.append(outcome)

    def by(self, status: str) -> list[Outcome]:
        with self._lock:
            return [o for o in self.outcomes if o.status == status]

    def count(self, status: str) -> int:
        return len(self.by(status))

    def codes(self) -> set[str]:
        with self._lock:
            return {o.code for o in self.outcomes if o.code}


TEXTS = (
    "我住在{c}，最喜欢吃{f}", "I love {f} and I live in {c}", "我妹妹在{c}工作", "my favourite food is {f}",
    "上次在{c}吃的{f}很棒", "I work at a bakery in {c}", "我不吃{f}", "I went hiking near {c} last weekend",
)
CITIES = ("成都", "Berlin", "上海", "Lisbon", "杭州", "Osaka", "西安", "Toronto", "昆明", "Madrid", "大理")
FOODS = ("火锅", "sushi", "饺子", "pizza", "小笼包", "ramen", "烤鸭", "tacos", "米线", "paella")


def conversation(user: str, session: str, turns: int, *, seed: int = 0, bad_every: int = 0,
                 user_every: int = 2) -> list[TurnWrite]:
    """A conversation with varied bilingual statements of the user every user_every-th turn (the others
    the assistant's: cheap, no embedding); every bad_every-th turn has a speaker the API refuses (a write
    that must fail and never appear)."""
    out: list[TurnWrite] = []
    for i in range(turns):
        template = TEXTS[(i // 2 + seed) % len(TEXTS)]
        text = template.format(c=CITIES[(i * 7 + seed) % len(CITIES)], f=FOODS[(i * 3 + seed) % len(FOODS)])
        speaker = "user" if i % user_every == 0 else "assistant"
        if speaker == "assistant":
            text = f"好的，记下了（{i}）" if i % 4 == 1 else f"Noted, thanks ({i})."
        if bad_every and i % bad_every == bad_every - 1:
            speaker = "robot"
        at = (T0 + timedelta(seconds=i)).isoformat()
        out.append(TurnWrite(user=user, session=session, turn=i, speaker=speaker, text=f"{text} #{i}", at=at))
    return out


# ----- bmam in a subprocess -----------------------------------------------------------------------


@dataclass
class BmamProcess:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def log_text(self, start: int = 0) -> str:
        """The log from byte `start` on (a restart appends to the same file)."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(start)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def terminate(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)

    def wait(self, timeout_s: float = 60.0) -> int:
        return self.process.wait(timeout=timeout_s)

    def stop(self) -> None:
        """Stop it whatever state it is in (SIGTERM, then SIGKILL of its process group)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def start_bmam(log_path: Path, *, workers: int = 1, env: dict[str, str] | None = None,
               start_timeout_s: float = 180.0) -> BmamProcess:
    """uvicorn serving bmam.asgi:create_app on a free loopback port, against the Neo4j the environment
    names (the shared test server by default); returns once /healthz answers 200 and every worker has
    logged its startup (with several workers the first one up answers /healthz while another may still be
    loading the embedding model)."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "bmam.asgi:create_app", "--factory", "--host", "127.0.0.1",
               "--port", str(port), "--log-level", "info", "--workers", str(workers),
               "--timeout-worker-healthcheck", "60"]
    full_env = {**os.environ, "BMAM_API__DEV_KEY": "false", "BMAM_DEPLOYMENT__WORKERS": str(workers),
                "PYTHONUNBUFFERED": "1", **(env or {})}
    log = open(log_path, "ab")  # noqa: SIM115 - the child writes to it for its whole life
    log_start = log.tell()
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    bmam = BmamProcess(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + start_timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"bmam exited with {process.returncode}:\n{bmam.log_tail()}")
        try:
            healthy = requests.get(bmam.url + "/healthz", timeout=5).status_code == 200
            if healthy and bmam.log_text(log_start).count("Application startup complete.") >= workers:
                return bmam
        except requests.RequestException:
            pass
        time.sleep(0.5)
    bmam.stop()
    raise RuntimeError(f"bmam did not become healthy:\n{bmam.log_tail()}")


# ----- what is stored, read straight from Neo4j (read-only) ----------------------------------------


class Inspector:
    """Counts in Neo4j for verification: every query filters on the test's tenant. Read-only, except
    forget_scope_tokens and forget_text_keys, which make a tenant's data look as written before the tokens
    or the text keys existed, and unapply_fulltext_schema, which makes the store look never migrated."""

    def __init__(self, bolt_uri: str, user: str = "neo4j", password: str = "") -> None:
        self._driver = GraphDatabase.driver(bolt_uri, auth=(user, password) if password else None)

    def close(self) -> None:
        self._driver.close()

    def rows(self, query: str, **params: Any) -> list[dict[str, Any]]:
        records, _, _ = self._driver.execute_query(query, params)
        return [r.data() for r in records]

    def forget_scope_tokens(self, tenant: str) -> None:
        """Remove the full-text scope tokens of a tenant's memories (a store written before them)."""
        self._driver.execute_query("MATCH (m:Memory) WHERE m.tenant = $t REMOVE m.scope_token", {"t": tenant})

    def forget_text_keys(self, tenant: str) -> None:
        """Remove the text keys of a tenant's memories (a store written before them)."""
        self._driver.execute_query("MATCH (m:Memory) WHERE m.tenant = $t REMOVE m.text_key", {"t": tenant})

    def unapply_fulltext_schema(self) -> None:
        """Drop the full-text index and the record of cypher/schema/003_fulltext (a store bmam never migrated);
        the caller applies the schema again afterwards."""
        self._driver.execute_query("DROP INDEX memory_text_scoped IF EXISTS")
        self._driver.execute_query("MATCH (m:SchemaMigration {name: 'schema/003_fulltext'}) DELETE m")

    def episode_counts(self, tenant: str, user: str) -> dict[tuple[str, int], int]:
        """(session, turn) -> how many Episode nodes hold it."""
        rows = self.rows("MATCH (e:Episode) WHERE e.tenant = $t AND e.user_id = $u "
                         "RETURN e.session_id AS s, e.turn AS n, count(*) AS c", t=tenant, u=user)
        return {(r["s"], int(r["n"])): int(r["c"]) for r in rows}

    def chain_problems(self, tenant: str, user: str) -> list[dict[str, Any]]:
        """Episodes with more than one NEXT out or in, or more than one HAS_EPISODE in."""
        return self.rows(
            "MATCH (e:Episode) WHERE e.tenant = $t AND e.user_id = $u "
            "WITH e, COUNT { (e)-[:NEXT]->() } AS outs, COUNT { ()-[:NEXT]->(e) } AS ins, "
            "     COUNT { ()-[:HAS_EPISODE]->(e) } AS homes "
            "WHERE outs > 1 OR ins > 1 OR homes <> 1 RETURN e.id AS id, outs, ins, homes", t=tenant, u=user)

    def mention_mismatches(self, tenant: str, user: str) -> list[dict[str, Any]]:
        """Memories whose mention_count differs from the episodes they derive from (a turn applied twice
        would count twice while its DERIVED_FROM edge stays one)."""
        return self.rows(
            "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u "
            "WITH m, COUNT { (m)-[:DERIVED_FROM]->(:Episode) } AS derived "
            "WHERE derived <> m.mention_count RETURN m.id AS id, m.mention_count AS mentions, derived",
            t=tenant, u=user)

    def memory_counts(self, tenant: str, user: str) -> dict[str, int]:
        rows = self.rows("MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u "
                         "RETURN m.id AS id, count(*) AS c", t=tenant, u=user)
        return {r["id"]: int(r["c"]) for r in rows}


def store_rows(container: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    """One verification query against the Neo4j a container uses (what the use cases do not show, such as a
    transient mark or a relationship's stamps), through an Inspector of its own."""
    config = container.store.config
    inspector = Inspector(config.uri, config.user, config.password)
    try:
        return inspector.rows(query, **params)
    finally:
        inspector.close()


def replay(client: BmamClient, log: WriteLog, *, rounds: int = 5) -> list[Outcome]:
    """Replay every unknown write by its idempotency key until each is answered (ok or refused)."""
    results: list[Outcome] = []
    for o in log.by("unknown"):
        for _ in range(rounds):
            again = attempt(client, o.write)
            if again.status != "unknown":
                break
            time.sleep(1)
        results.append(again)
    return results


def run_clients(n: int, url: str, api_key: str, work: Callable[[int, BmamClient], None],
                timeout_s: float = 30.0) -> list[threading.Thread]:
    """Start n client threads, each with its own gql client (its own HTTP connection)."""
    def body(i: int) -> None:
        client = BmamClient(ClientConfig(url=url, api_key=api_key, timeout_s=timeout_s))
        try:
            work(i, client)
        finally:
            client.close()

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    return threads


def poll(predicate: Callable[[], bool], *, timeout_s: float, every_s: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every_s)
    return predicate()


def iter_chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


async def unsubscribe(stream: AsyncIterator[Any]) -> None:
    """Close a subscription's stream (AsyncBmamClient.memory_events, EventBus.subscribe): both are async
    generators, typed as the AsyncIterator their callers loop over, and closing one runs the cleanup that
    unsubscribes."""
    assert isinstance(stream, AsyncGenerator), stream
    await stream.aclose()
