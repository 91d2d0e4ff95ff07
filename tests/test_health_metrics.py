"""/healthz, /metrics (Prometheus), per-stage timings in extensions, and DataLoaders: nested fields of
a page of memories cost the same number of Neo4j queries whatever the page length (no N+1)."""

from __future__ import annotations

import asyncio
import gc
import uuid
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bmam.client import BmamClient
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import BadInput, LimitExceeded

NESTED = """query Nested($u: String!, $n: Int!) { memories(userId: $u, first: $n) { edges { node {
  id triples { predicate object { name } } associated(first: 5) { strength memory { id } } } } } }"""


def _samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((sample.labels, sample.value))
    return found


def test_healthz_says_ok_with_neo4j_migrations_and_indexes(client: BmamClient) -> None:
    health = client.health()
    assert health == {"http_status": 200, "status": "ok", "neo4j": True, "pending_migrations": [],
                      "indexes_not_online": []}


def test_metrics_by_operation_neo4j_statement_and_tier(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    client.remember(user, "metrics are counted", "FACTUAL")
    client.execute("query ViewerForMetrics { viewer { tenant } }")
    samples = _samples(client.metrics())
    operations = {s[0]["operation"] for s in samples["bmam_graphql_request_seconds_count"]}
    assert {"viewer", "remember"} <= operations  # by root field, not the client's operation name
    assert "ViewerForMetrics" not in operations
    statements = {s[0]["statement"] for s in samples["bmam_neo4j_query_seconds_count"]}
    assert "memory/remember" in statements
    tiers = {s[0]["tier"]: s[1] for s in samples["bmam_memories"]}
    assert set(tiers) >= {"temp", "mid", "core"} and tiers["temp"] >= 1
    assert samples["bmam_neo4j_up"][0][1] == 1.0
    assert {s[0]["kind"] for s in samples["bmam_embedding_seconds_count"]} >= {"passages"}


def test_timings_when_asked(client: BmamClient, api_url: str, api_key: str) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    client.remember(user, "I love spicy food", "FACTUAL")
    plain = client.execute_full("query($u: String!) { search(userId: $u, query: \"spicy\", k: 1) { score } }",
                                {"u": user})
    assert "timings" not in plain.extensions
    asked = client.execute_full("query($u: String!) { search(userId: $u, query: \"spicy\", k: 1) { score } }",
                                {"u": user}, timings=True)
    t = asked.extensions["timings"]
    assert t["embeddedTexts"] == 1 and t["embeddingMs"] > 0 and t["neo4jQueries"] >= 2
    assert t["totalMs"] >= t["embeddingMs"] and t["totalMs"] >= t["neo4jMs"] > 0
    # The header asks too.
    import httpx

    resp = httpx.post(f"{api_url}/graphql", json={"query": "{ viewer { tenant } }"},
                      headers={"X-API-Key": api_key, "X-Bmam-Timings": "1"})
    assert resp.json()["extensions"]["timings"]["embeddedTexts"] == 0


def test_nested_fields_are_batched(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    ids: list[str] = []
    for i in range(8):
        m = client.remember(user, f"memory {i}", "FACTUAL")
        client.add_triple(user, m["id"], "user", "said", f"thing {i}")
        if ids:
            client.associate(user, ids[-1], m["id"], 0.5)
        ids.append(m["id"])

    def queries(n: int) -> tuple[int, list[dict[str, Any]]]:
        answer = client.execute_full(NESTED, {"u": user, "n": n}, timings=True)
        return answer.extensions["timings"]["neo4jQueries"], answer.data["memories"]["edges"]

    queries(1)  # warm: the key is verified (one query) only on first use
    two, edges2 = queries(2)
    eight, edges8 = queries(8)
    assert len(edges2) == 2 and len(edges8) == 8
    assert all(len(e["node"]["triples"]) == 1 for e in edges8)
    assert sum(len(e["node"]["associated"]) for e in edges8) == 14  # 7 edges, seen from both ends
    assert two == eight == 3  # the page, all triples, all associated memories


def test_one_bad_group_fails_only_its_own_keys(container: Container, tenant: str) -> None:
    """Keys of one DataLoader batch with different options are fetched per group: a group refused
    (associated(first: 51), LIMIT_EXCEEDED) answers its error for its own keys, the others their data."""
    from resolvers.loaders import Loaders

    a = container.memories.remember(tenant, RememberRequest(user_id="alice", text="I grow tomatoes", type="FACTUAL"))
    b = container.memories.remember(tenant, RememberRequest(user_id="alice", text="My cat sleeps a lot",
                                                             type="FACTUAL"))
    container.memories.associate(tenant, "alice", a.id, b.id, 0.5)

    async def batch() -> list[Any]:
        loaders = Loaders(container, tenant)
        return await asyncio.gather(
            loaders.associated.load(("alice", a.id, 5)),
            loaders.associated.load(("alice", b.id, 51)),
            loaders.associated.load(("alice", b.id, 5)),
            loaders.triples.load(("alice", a.id)),
            loaders.triples.load(("", a.id)),  # a bad user id: that key's error only
            return_exceptions=True,
        )  # type: ignore[return-value]

    ok_a, bad, ok_b, triples, bad_user = asyncio.run(batch())
    assert b.id in [m.id for m, _ in ok_a]
    assert a.id in [m.id for m, _ in ok_b]
    assert isinstance(bad, LimitExceeded) and bad.field == "first"
    assert triples == []
    assert isinstance(bad_user, BadInput) and bad_user.field == "userId"


def test_production_profile_hides_introspection_and_graphiql(settings: object, api_key: str) -> None:
    from starlette.testclient import TestClient

    from bmam.container import Container
    from bmam.settings import Settings
    from resolvers.app import create_app

    assert isinstance(settings, Settings)
    prod = settings.model_copy(deep=True)
    prod.api.profile = "production"
    container = Container(prod)
    app = create_app(container, migrate=False, dev_key_enabled=False)
    with TestClient(app) as http:
        headers = {"X-API-Key": api_key}
        resp = http.post("/graphql", json={"query": "{ __schema { types { name } } }"}, headers=headers)
        assert resp.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert "data" not in resp.json() or resp.json()["data"] is None
        assert http.post("/graphql", json={"query": "{ viewer { tenant } }"}, headers=headers).json()["data"]
        assert http.get("/graphql", headers={"Accept": "text/html"}).status_code in (401, 404)


@pytest.mark.parametrize("freeze", [True, False])
def test_the_startup_heap_is_frozen_while_serving(settings: object, api_key: str, freeze: bool) -> None:
    """What start-up built stays out of the cyclic collector's full passes while the app serves (a pass over it
    held every request for ~0.3 s), and is handed back at shutdown; the setting turns it off."""
    from starlette.testclient import TestClient

    from bmam.container import Container
    from bmam.settings import Settings
    from resolvers.app import create_app

    assert isinstance(settings, Settings)
    chosen = settings.model_copy(deep=True)
    chosen.api.freeze_startup_heap = freeze
    gc.unfreeze()  # another app of this test process (the session's server) may have frozen it already
    app = create_app(Container(chosen), migrate=False, dev_key_enabled=False)
    with TestClient(app) as http:
        assert http.post("/graphql", json={"query": "{ viewer { tenant } }"},
                         headers={"X-API-Key": api_key}).json()["data"]
        frozen = gc.get_freeze_count()
        assert (frozen > 10_000) if freeze else (frozen == 0)
    assert gc.get_freeze_count() == 0
