"""Nothing lost when Neo4j dies (issue 8): kill -9 of the Neo4j JVM in the middle of a bulk ingest by 4
concurrent clients, each logging every write as ok, failed or unknown (tests/ops_support.py classify);
Neo4j restarted; the unknown writes replayed by their idempotency key (user, session, turn).

Then: every acknowledged write is present exactly once, no failed write is present, the graph shows no
double application (NEXT chain, HAS_EPISODE, mention counts); while Neo4j was down the API answered
UNAVAILABLE (never a 500) and /healthz said 503; and the same bmam process (same driver) served again by
itself once Neo4j was back.

This test runs its OWN Neo4j (a temporary home, free ports) and its own bmam on it: the shared server
at 7687 is never touched. Bounded: 4 clients x 30 turns.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests

from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.neo4j_server import LocalNeo4j, _alive
from bmam.settings import Settings
from tests.ops_support import (
    Inspector,
    Outcome,
    WriteLog,
    attempt,
    conversation,
    free_port,
    poll,
    replay,
    run_clients,
    served,
)

CLIENTS = 4
TURNS = 30  # per client: 120 writes in all
BAD_EVERY = 23  # every 23rd turn carries a speaker the API refuses: a write that must never appear

# A statement of a turn's write transaction (the episode's first write): the kill lands after it.
MID_TRANSACTION = "episode/batch_start"

# The first test's time includes the module's rig and outage (a Neo4j started twice, the clients' writes):
# ~150 s on a quiet machine, twice that on a busy one, too close to the suite's 300 s per test.
pytestmark = pytest.mark.timeout(900)


@dataclass
class Rig:
    server: LocalNeo4j
    container: Container
    url: str
    key: str
    tenant: str
    inspector: Inspector


@dataclass
class Outage:
    log: WriteLog
    replayed: list[Outcome]
    users: list[str]
    killed_at: float
    back_at: float
    health_down: dict[str, Any]
    down_codes: list[str]
    health_up: int
    driver_before: object
    driver_after: object
    notes: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def rig(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    """A Neo4j of our own and a bmam (uvicorn in a thread, the real app) pointed at it."""
    from resolvers.app import create_app

    n = settings.neo4j.model_copy(update={
        "uri": None, "home": tmp_path_factory.mktemp("faults") / "neo4j", "bolt_port": free_port(),
        "http_port": free_port(), "heap": "512m", "pagecache": "128m",
        # Writes caught by the outage answer after this retry window (10 s by default): the test waits for one.
        "retry_time_s": 3.0})
    server = LocalNeo4j(n)
    server.start()
    container = Container(settings.model_copy(update={"neo4j": n}))
    inspector = Inspector(n.bolt_uri)
    try:
        container.migrate()
        tenant = f"test-faults-{uuid.uuid4().hex[:8]}"
        key = container.keys.create(tenant, "faults").secret
        app = create_app(container, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
        with served(app, start_timeout_s=120) as url:
            yield Rig(server, container, url, key, tenant, inspector)
    finally:
        inspector.close()
        _stop(server)


def _stop(server: LocalNeo4j) -> None:
    try:
        server.stop()
    except Exception:
        pid = server.status().pid
        if pid:
            os.kill(pid, signal.SIGKILL)


def _health(url: str) -> dict[str, Any]:
    resp = requests.get(url + "/healthz", timeout=30)
    return {"http_status": resp.status_code, **resp.json()}


@pytest.fixture(scope="module")
def outage(rig: Rig) -> Outage:
    users = [f"u{i}" for i in range(CLIENTS)]
    plans = {i: conversation(users[i], "s1", TURNS, seed=i, bad_every=BAD_EVERY, user_every=3) for i in range(CLIENTS)}
    log = WriteLog()

    def work(i: int, client: BmamClient) -> None:
        for write in plans[i]:
            outcome = attempt(client, write)
            log.add(outcome)

    driver_before = rig.container.store
    # The kill lands inside a turn's write transaction: from the statement listener of the serving process
    # (its worker thread, between two statements of the transaction, before its COMMIT is sent). Killing from
    # the test's thread when writes had been in flight a while could land after both had committed, in their
    # post-commit hooks, and catch nothing (this test failed so, now and then).
    armed = threading.Event()
    killed = threading.Event()
    pid = rig.server.status().pid
    assert pid is not None

    def kill_mid_transaction(name: str, _seconds: float) -> None:
        if name == MID_TRANSACTION and armed.is_set() and not killed.is_set():
            killed.set()
            os.kill(pid, signal.SIGKILL)

    rig.container.store.timer.listeners.append(kill_mid_transaction)
    started = time.monotonic()
    threads = run_clients(CLIENTS, rig.url, rig.key, work, timeout_s=90)
    # Mid-ingest: once a fifth of the writes are acknowledged, kill -9 the Neo4j JVM inside the next write.
    try:
        assert poll(lambda: log.count("ok") >= CLIENTS * TURNS // 5, timeout_s=600), "ingest made no progress"
        armed.set()
        assert killed.wait(timeout=60), "no write began after the kill was armed"
    finally:
        rig.container.store.timer.listeners.remove(kill_mid_transaction)
    killed_at = time.monotonic()
    print(f"\nkilled after {killed_at - started:.1f}s ({log.count('ok')} acknowledged)")
    assert poll(lambda: not _alive(pid), timeout_s=30)

    # While down: /healthz says so, and a GraphQL call answers UNAVAILABLE.
    health_down = _health(rig.url)
    down_codes: list[str] = []

    def probe(i: int, client: BmamClient) -> None:  # a read, a session read and a write, side by side
        calls = (lambda: client.tier_usage(users[0]), lambda: client.working_memory(users[1], "s1"),
                 lambda: client.remember(users[2], "written while Neo4j is down"))
        try:
            calls[i]()
            down_codes.append("OK")
        except BmamClientError as exc:
            down_codes.append(exc.code)

    for t in run_clients(3, rig.url, rig.key, probe, timeout_s=90):
        t.join(timeout=120)

    # Neo4j stays down until a write in flight has answered: the driver retries a transaction for the rig's
    # retry window and then its last back-off, so a restart sooner can let every retry land on the new server
    # and the outage catches nothing (this test failed so, now and then, on a quick machine).
    caught = poll(lambda: log.count("unknown") > 0, timeout_s=60)
    probed_at = time.monotonic()
    print(f"a write in flight answered: {caught}")
    rig.server.start()  # same home and ports; Neo4j recovers its store from the transaction log
    back_at = time.monotonic()
    print(f"probes took {probed_at - killed_at:.1f}s, restart {back_at - probed_at:.1f}s")
    for t in threads:
        t.join(timeout=900)
    print(f"clients done {time.monotonic() - back_at:.1f}s after the restart")
    assert not any(t.is_alive() for t in threads), "clients did not finish"

    health_up = 0
    if poll(lambda: _health(rig.url)["http_status"] == 200, timeout_s=120):
        health_up = 200
    client = BmamClient(ClientConfig(url=rig.url, api_key=rig.key, timeout_s=90))
    try:
        replayed = replay(client, log)
    finally:
        client.close()
    return Outage(log=log, replayed=replayed, users=users, killed_at=killed_at, back_at=back_at,
                  health_down=health_down, down_codes=down_codes, health_up=health_up,
                  driver_before=driver_before, driver_after=rig.container.store)


def _stored(rig: Rig, users: list[str]) -> dict[tuple[str, str, int], int]:
    out: dict[tuple[str, str, int], int] = {}
    for u in users:
        for (session, turn), count in rig.inspector.episode_counts(rig.tenant, u).items():
            out[(u, session, turn)] = count
    return out


def test_the_fault_hit_writes_in_flight(outage: Outage) -> None:
    log = outage.log
    print(f"\nwrites: {len(log.outcomes)}, ok {log.count('ok')}, failed {log.count('failed')}, "
          f"unknown {log.count('unknown')}, codes {sorted(log.codes())}, replayed {len(outage.replayed)}")
    assert len(log.outcomes) == CLIENTS * TURNS
    assert log.count("unknown") > 0, "no write was caught by the outage"
    assert all(r.status == "ok" for r in outage.replayed), [(r.write, r.code) for r in outage.replayed]


def test_every_acknowledged_write_is_present_exactly_once(rig: Rig, outage: Outage) -> None:
    stored = _stored(rig, outage.users)
    acknowledged = [o.write for o in outage.log.by("ok")] + [r.write for r in outage.replayed if r.status == "ok"]
    missing = [w for w in acknowledged if stored.get((w.user, w.session, w.turn)) != 1]
    assert not missing
    assert all(count == 1 for count in stored.values())
    # The memories each acknowledged turn reported exist, once each.
    for u in outage.users:
        memories = rig.inspector.memory_counts(rig.tenant, u)
        reported = {m["id"] for o in outage.log.by("ok") if o.write.user == u and o.answer
                    for m in o.answer["memories"]}
        assert reported and all(memories.get(mid) == 1 for mid in reported)


def test_no_failed_write_is_present(rig: Rig, outage: Outage) -> None:
    stored = _stored(rig, outage.users)
    failed = outage.log.by("failed")
    assert any(o.code == "BAD_USER_INPUT" for o in failed)
    assert not [o.write for o in failed if (o.write.user, o.write.session, o.write.turn) in stored]
    # Everything stored was written by this test: acknowledged, or unknown and replayed.
    sent = {(o.write.user, o.write.session, o.write.turn) for o in outage.log.outcomes if o.status != "failed"}
    assert set(stored) <= sent


def test_nothing_was_applied_twice(rig: Rig, outage: Outage) -> None:
    for u in outage.users:
        assert rig.inspector.chain_problems(rig.tenant, u) == []
        assert rig.inspector.mention_mismatches(rig.tenant, u) == []
        links = rig.inspector.rows(
            "MATCH (s:Session)-[:HAS_EPISODE]->(e:Episode) WHERE s.tenant = $t AND s.user_id = $u "
            "RETURN count(e) AS episodes, COUNT { (s)-[:HAS_EPISODE]->(:Episode)-[:NEXT]->(:Episode) } AS nexts",
            t=rig.tenant, u=u)
        assert links[0]["nexts"] == links[0]["episodes"] - 1


def test_unavailable_never_a_500_while_down(outage: Outage) -> None:
    assert outage.down_codes == ["UNAVAILABLE"] * 3
    codes = outage.log.codes()
    # a client's read timeout (TimeoutError from the standard library transport, ReadTimeout from requests) is
    # a write of unknown outcome, replayed by its key: allowed; a 5xx or an internal error never is
    assert codes <= {"UNAVAILABLE", "BAD_USER_INPUT", "CONNECTION_REFUSED", "ReadTimeout", "TimeoutError"}, codes
    assert not [c for c in codes if c.startswith("HTTP_5") or c == "INTERNAL_SERVER_ERROR"]


def test_healthz_says_503_while_down_and_200_after(outage: Outage) -> None:
    assert outage.health_down["http_status"] == 503
    assert outage.health_down["neo4j"] is False and outage.health_down["status"] == "unavailable"
    assert outage.health_up == 200


def test_the_service_recovers_by_itself(rig: Rig, outage: Outage) -> None:
    # The same process, the same store (one driver for its life): nothing was restarted but Neo4j.
    assert outage.driver_after is outage.driver_before
    after = [o for o in outage.log.by("ok") if o.at > outage.back_at]
    assert after, "no write was acknowledged after Neo4j came back"
    client = BmamClient(ClientConfig(url=rig.url, api_key=rig.key))
    try:
        usage = client.tier_usage(outage.users[0])
        assert usage["temp"] + usage["mid"] + usage["core"] > 0
    finally:
        client.close()
