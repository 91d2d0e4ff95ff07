"""Concurrency is exact (issue 8): 16 writers MERGE the same entity, the same triple and the same association
edge between two dense memories (>= 60 edges each, past Neo4j's dense-node threshold of 50) through the
API: exactly one of each, no error reaches a client. A forced deadlock is retried by the store and never
surfaces. 16 x 12 concurrent weight increments land exactly (no lost update)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bmam.client import BmamClient
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.feedback import FeedbackUseCases
from bmam.usecases.memories import RememberRequest
from graph.model import Scope
from graph.store import Tx
from graph.weights import WeightRepository
from tests.ops_support import Inspector, run_clients

WRITERS = 16
ROUNDS = 5
DENSE_EDGES = 65


@pytest.fixture
def inspector(container: Container) -> Iterator[Inspector]:
    n = container.settings.neo4j
    i = Inspector(n.bolt_uri, n.user, n.password)
    yield i
    i.close()


def _remember(c: Container, tenant: str, user: str, text: str) -> str:
    return c.memories.remember(tenant, RememberRequest(user_id=user, text=text, type="FACTUAL")).id


def test_sixteen_writers_merge_one_entity_one_triple_one_edge_between_dense_nodes(
        container: Container, api_url: str, api_key: str, api_tenant: str, inspector: Inspector) -> None:
    user = f"dense-{uuid.uuid4().hex[:8]}"
    a = _remember(container, api_tenant, user, "我最喜欢吃成都的火锅")
    b = _remember(container, api_tenant, user, "I love hotpot with friends on Fridays")
    fillers = [_remember(container, api_tenant, user, f"filler memory number {i}") for i in range(2 * DENSE_EDGES)]
    for i, f in enumerate(fillers):
        container.memories.associate(api_tenant, user, a if i < DENSE_EDGES else b, f, 0.3)
    degree = inspector.rows(
        "MATCH (m:Memory) WHERE m.id IN $ids AND m.tenant = $t RETURN m.id AS id, COUNT { (m)--() } AS d",
        ids=[a, b], t=api_tenant)
    assert all(r["d"] >= 60 for r in degree) and len(degree) == 2

    start = threading.Barrier(WRITERS, timeout=120)
    errors: list[str] = []

    def writer(w: int, client: BmamClient) -> None:
        start.wait()
        for r in range(ROUNDS):
            try:
                # The same edge, from both ends; the same triple on A; the same entity from every writer's own
                # memory; and edges to other memories around both dense nodes, in opposite orders.
                first, second = (a, b) if (w + r) % 2 else (b, a)
                client.associate(user, first, second, 0.5)
                client.add_triple(user, a, "user", "likes", "火锅")
                client.add_triple(user, fillers[w], "user", "likes", "火锅")
                client.associate(user, second, fillers[(w * 7 + r) % len(fillers)], 0.4)
                client.associate(user, fillers[(w * 5 + r + 1) % len(fillers)], first, 0.4)
            except Exception as exc:  # every failure is a finding
                errors.append(f"writer {w} round {r}: {type(exc).__name__}: {exc}")

    for t in run_clients(WRITERS, api_url, api_key, writer, timeout_s=120):
        t.join(timeout=600)
    assert errors == []

    edges = inspector.rows(
        "MATCH (x:Memory {id: $a})-[r:ASSOCIATED]-(y:Memory {id: $b}) WHERE x.tenant = $t RETURN r.strength AS s",
        a=a, b=b, t=api_tenant)
    assert [e["s"] for e in edges] == [0.5]
    entities = inspector.rows(
        "MATCH (e:Entity) WHERE e.tenant = $t AND e.user_id = $u RETURN e.name AS name, count(*) AS c",
        t=api_tenant, u=user)
    assert sorted((e["name"], e["c"]) for e in entities) == [("user", 1), ("火锅", 1)]
    triples = inspector.rows(
        "MATCH ()-[t:TRIPLE]->() WHERE t.tenant = $t AND t.user_id = $u RETURN t.memory_id AS m, count(*) AS c",
        t=api_tenant, u=user)
    assert sorted((r["m"], r["c"]) for r in triples) == sorted([(a, 1)] + [(fillers[w], 1) for w in range(WRITERS)])
    # Every pair has at most one edge whatever order its writers named it in.
    doubled = inspector.rows(
        "MATCH (x:Memory)-[r:ASSOCIATED]-(y:Memory) WHERE x.tenant = $t AND x.user_id = $u AND x.id < y.id "
        "WITH x, y, count(r) AS c WHERE c > 1 RETURN x.id AS x, y.id AS y, c", t=api_tenant, u=user)
    assert doubled == []


@pytest.fixture
def released_touches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every EOF check (Bolt.defunct, which reads the socket) made on a pooled connection nobody holds: a
    thread touching a connection it gave back, whose socket another thread may be using. A spy: the driver's
    own method runs as ever, only the calls are noted."""
    from neo4j._sync.io._bolt import Bolt

    touches: list[str] = []
    check = Bolt.defunct

    def noted(connection: Bolt) -> bool:
        pool = getattr(connection, "pool", None)
        pooled = pool is not None and any(c is connection for c in pool.connections.get(
            connection.unresolved_address, ()))
        if pooled and not connection.in_use:
            touches.append(threading.current_thread().name)
        return check(connection)

    monkeypatch.setattr(Bolt, "defunct", noted)
    return touches


def test_a_deadlock_is_retried_and_never_surfaces(container: Container, tenant: str,
                                                   released_touches: list[str]) -> None:
    """Two transactions lock two memories in opposite orders, both holding their first lock before asking
    for the second: Neo4j detects the deadlock and fails one; the store's managed transaction retries it.
    The failed attempt leaves its connection alone once the driver has given it back to the pool
    (graph/store.py _leave_released_connection_alone: the stalls of the sixteen writers above)."""
    x = _remember(container, tenant, "alice", "deadlock probe one")
    y = _remember(container, tenant, "alice", "deadlock probe two")
    both_hold_one = threading.Barrier(2, timeout=60)
    attempts: list[str] = []
    results: dict[str, object] = {}
    scope = {"tenant": tenant, "user_id": "alice"}

    def locker(name: str, order: tuple[str, str]) -> None:
        def work(tx: Tx) -> int:
            attempts.append(name)
            tx.run("weights/lock", {**scope, "ids": [order[0]]})
            if attempts.count(name) == 1:  # only the first attempt waits for the other
                both_hold_one.wait()
            tx.run("weights/lock", {**scope, "ids": [order[1]]})
            return attempts.count(name)

        try:
            results[name] = container.store.write_tx(work)
        except Exception as exc:
            results[name] = exc

    threads = [threading.Thread(target=locker, args=("xy", (x, y))),
               threading.Thread(target=locker, args=("yx", (y, x)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert all(isinstance(v, int) for v in results.values()), results
    assert len(results) == 2 and len(attempts) >= 3  # one of them deadlocked and ran again
    assert released_touches == []


def test_sixteen_by_twelve_weight_increments_are_exact(container: Container, tenant: str) -> None:
    """Feedback (issue 5) and recall usage, 192 concurrent increments each on one memory. The steps are made
    small (0.001, a legal setting) so no clamp is ever reached and the exact sum is order independent."""
    memory = _remember(container, tenant, "alice", "I take the 8:15 train to work")
    policy = replace(container.weight_policy, implicit_feedback=0.001, recall_boost=0.001)
    feedback = FeedbackUseCases(clock=FakeClock(datetime(2026, 11, 30, 12, 0, tzinfo=UTC)),
                                weights=WeightRepository(container.store), policy=policy)
    scope = Scope(tenant, "alice")
    start = threading.Barrier(WRITERS, timeout=120)
    errors: list[BaseException] = []

    def client(i: int) -> None:
        start.wait()
        try:
            for _ in range(12):
                feedback.feedback(tenant, "alice", memory, "SKIP" if i < 4 else "DWELL")
                feedback.recalled(scope, [memory])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert errors == []
    m = container.memories.get(tenant, "alice", memory)
    assert m is not None
    assert m.recall_count == 192
    # 12 DWELL clients raise the active part, 4 SKIP clients lower it: 12 calls each.
    assert m.weight.active == pytest.approx(0.5 + (144 - 48) * 0.001, abs=1e-9)
    assert m.weight.passive == pytest.approx(192 * 0.001, abs=1e-9)
    assert m.weight.final == pytest.approx(0.6 * 0.192 + 0.3 * 0.596 + 0.1 * m.weight.preset, abs=1e-9)
    counted = container.store.read("memory/get", {"tenant": tenant, "user_id": "alice", "id": memory})
    assert counted and counted[0]["memory"].get("feedback_count") == 192


def test_forget_user_beside_ingests_of_the_user_never_fails(container: Container, tenant: str) -> None:
    """forgetUser every 0.3 s while three threads ingest 40 numbered turns each of the same user: a relationship
    committed to a node the erasure had read, before it deleted the node, failed the erasure ("still has
    relationships": 2 of 19 calls, INTERNAL_SERVER_ERROR over the API). Every erasure answers a receipt; the last
    one, after the writers stopped, leaves nothing."""
    import time

    from ingest.turns import TurnInput

    stop = threading.Event()
    failures: list[BaseException] = []

    def ingest(n: int) -> None:
        for i in range(40):
            text = f"I like {['tea', 'coffee', 'juice', 'milk', 'soda'][i % 5]} with {['lemon', 'sugar', 'ice'][n]} {i}"
            container.ingest.ingest_indexed(tenant, [TurnInput(user_id="fu", session_id=f"s{n}", speaker="user",
                                                               text=text, turn=i)])

    def erase() -> None:
        while not stop.is_set():
            try:
                container.erasure.forget_user(tenant, "fu", confirm=True)
            except Exception as exc:  # what is checked: none
                failures.append(exc)
            time.sleep(0.3)

    writers = [threading.Thread(target=ingest, args=(n,)) for n in range(3)]
    eraser = threading.Thread(target=erase)
    for t in (*writers, eraser):
        t.start()
    for w in writers:
        w.join(120)
    stop.set()
    eraser.join(60)
    assert failures == []
    assert container.erasure.forget_user(tenant, "fu", confirm=True).verified
