"""End to end over HTTP with the project's gql client: the first GraphQL slice against real Neo4j."""

from __future__ import annotations

import uuid

import httpx
import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.container import Container
from bmam.settings import Settings
from resolvers.app import create_app


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def test_remember_then_search(client: BmamClient, user: str) -> None:
    m = client.remember(user, "我住在成都，最喜欢吃火锅", "FACTUAL")
    client.remember(user, "My sister works as a nurse in Berlin", "FACTUAL")
    hits = client.search(user, "她住在哪个城市?", k=2)
    assert hits[0]["memory"]["id"] == m["id"]
    got = client.memory(user, m["id"])
    assert got is not None and got["text"] == "我住在成都，最喜欢吃火锅"


def test_triples_associations_pages_and_forget(client: BmamClient, user: str) -> None:
    a = client.remember(user, "I love spicy food", "FACTUAL")
    b = client.remember(user, "上次在成都吃的火锅很棒", "EPISODIC", tier="MID")
    t = client.add_triple(user, a["id"], "user", "likes", "spicy food", objectKind="food")
    assert t["subject"]["name"] == "user" and t["object"]["name"] == "spicy food"
    assert [x["id"] for x in client.triples(user, a["id"])] == [t["id"]]
    assert client.associate(user, a["id"], b["id"], 0.8)["strength"] == pytest.approx(0.8)
    assert len(client.associations(user, b["id"])) == 1
    page1 = client.memories(user, first=1)
    assert page1["pageInfo"]["hasNextPage"] is True
    page2 = client.memories(user, first=1, after=page1["pageInfo"]["endCursor"])
    assert {page1["edges"][0]["node"]["id"], page2["edges"][0]["node"]["id"]} == {a["id"], b["id"]}
    assert client.memories(user, tiers=["MID"])["edges"][0]["node"]["id"] == b["id"]
    assert client.forget(user, a["id"])["forgotten"] is True
    assert client.memory(user, a["id"]) is None


@pytest.mark.parametrize(
    "variables",
    [
        {"userId": "U", "text": "", "type": "FACTUAL"},
        {"userId": "U", "text": "   ", "type": "FACTUAL"},
        {"userId": "U", "text": "x" * (32 * 1024 + 1), "type": "FACTUAL"},
        {"userId": "", "text": "hello", "type": "FACTUAL"},
    ],
)
def test_bad_remember_input_has_a_code_and_writes_nothing(client: BmamClient, user: str, variables: dict) -> None:
    variables = {**variables, "userId": user if variables["userId"] else ""}
    with pytest.raises(BmamClientError) as err:
        client.remember(variables["userId"], variables["text"], variables["type"])
    assert err.value.code in ("BAD_USER_INPUT", "LIMIT_EXCEEDED")
    assert client.memories(user)["edges"] == []


def test_unknown_type_and_bad_strength_are_bad_user_input(api_url: str, client: BmamClient, user: str) -> None:
    resp = httpx.post(f"{api_url}/graphql", headers={"X-API-Key": client.config.api_key or ""}, json={
        "query": 'mutation { remember(input: {userId: "x", text: "hi", type: NOPE}) { id } }'})
    assert resp.status_code in (200, 400)
    assert resp.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    a = client.remember(user, "one", "FACTUAL")
    b = client.remember(user, "two", "FACTUAL")
    with pytest.raises(BmamClientError) as err:
        client.associate(user, a["id"], b["id"], 1.01)
    assert err.value.code == "BAD_USER_INPUT"
    assert client.associations(user, a["id"]) == []


def test_missing_user_and_foreign_id(client: BmamClient, user: str) -> None:
    m = client.remember(user, "only mine", "FACTUAL")
    assert client.memory("someone-else", m["id"]) is None
    with pytest.raises(BmamClientError) as err:
        client.forget("someone-else", m["id"], confirm=True)
    assert err.value.code == "NOT_FOUND"
    assert client.memory(user, m["id"]) is not None


def test_neo4j_down_is_unavailable_not_a_stack_trace(settings: Settings) -> None:
    """A service whose Neo4j cannot be reached answers UNAVAILABLE, and /healthz says so."""
    from starlette.testclient import TestClient

    down = settings.model_copy(deep=True)
    down.neo4j.uri = "bolt://127.0.0.1:1"  # nothing listens there
    down.neo4j.retry_time_s = 1.0  # the answer is the same after any retry window (tests/test_faults.py times it)
    app = create_app(Container(down), migrate=False)
    with TestClient(app) as http:
        # A well-formed key: checking it needs Neo4j, which is down.
        key = "bmam_" + "0" * 16 + "_" + "A" * 43
        resp = http.post("/graphql", headers={"X-API-Key": key},
                         json={"query": '{ memory(userId: "a", id: "m") { id } }'})
        body = resp.json()
        assert body["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
        assert "Traceback" not in resp.text and "bolt://" not in resp.text
        assert http.get("/healthz").status_code == 503
