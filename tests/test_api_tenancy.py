"""Tenant isolation, end to end over HTTP with the gql client: app B calls every root field (found by
introspection, so fields added later are covered too) with app A's real ids and user ids; 200 concurrent
mixed A/B requests; B's forgetUser("alice") leaves A's "alice" untouched. Zero A records reach B."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from graphql import GraphQLScalarType, GraphQLSchema, get_named_type

from bmam.client import AsyncBmamClient, BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from tests.graphql_walk import document, root_fields, served_schema, strings, value

# Root fields handled on their own below (B's forgetUser of alice is the last act).
SEPARATELY = {"forgetUser"}


@dataclass
class AppA:
    """What A owns: ids of every kind, the texts only A wrote, and its users."""

    marker: str
    session: str
    ids: dict[str, list[str]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)

    def all_ids(self) -> set[str]:
        return {i for values in self.ids.values() for i in values}


def _tenant(name: str) -> str:
    return f"test-iso-{name}-{uuid.uuid4().hex[:8]}"


def _seed_a(c: BmamClient) -> AppA:
    marker = f"SECRETA{uuid.uuid4().hex[:10]}"
    a = AppA(marker=marker, session=f"sess-{marker}")
    m1 = c.remember("alice", f"{marker} I live in Chengdu and love hotpot", "FACTUAL")
    m2 = c.remember("alice", f"{marker} 我妹妹在柏林当护士", "EPISODIC", tier="MID", sessionId=a.session)
    m3 = c.remember("alice", f"{marker} my PIN hint is the cat's name", "FACTUAL", tier="CORE")
    t = c.add_triple("alice", m1["id"], f"{marker}user", f"{marker}lives in", f"{marker}Chengdu")
    c.associate("alice", m1["id"], m2["id"], 0.9)
    key = c.create_api_key(f"{marker}key")
    a.ids = {
        "memory": [m1["id"], m2["id"], m3["id"]],
        "triple": [t["id"]],
        "entity": [t["subject"]["id"], t["object"]["id"]],
        "key": [key["apiKey"]["id"]],
    }
    cursor = c.memories("alice", first=1)["pageInfo"]["endCursor"]
    a.ids["cursor"] = [cursor]
    # Other features' data: an episode (with the turn's memories) and a changeset. Seeded without a net: a seed
    # that failed quietly would leave those ids out of every call below, and the isolation check with them.
    turn = c.ingest_turn("alice", a.session, "user", f"{marker} 我不吃辣，我对花生过敏", turn=1)
    assert turn["episodeId"] and turn["memories"], turn
    a.ids["episode"] = [turn["episodeId"]]
    a.ids["memory"] += [m["id"] for m in turn["memories"]]
    run = c.execute('mutation { runMaintenance(kind: REBALANCE, dryRun: false, userId: "alice")'
                    " { changeset { id } } }")
    a.ids["changeset"] = [run["runMaintenance"]["changeset"]["id"]]
    a.texts = [marker]
    return a


def _fingerprint(c: BmamClient, container: Container, tenant: str) -> tuple[int, str]:
    """A's alice as A sees it (every memory with history, its triples and associations) and A's node count."""
    page = c.execute(
        "query { memories(userId: \"alice\", first: 100, includeHistory: true) { edges { node {"
        " id text type tier locked recallCount mentionCount validTo weight { passive active preset final }"
        " triples { id predicate subject { id name } object { id name } }"
        " associated(first: 50) { strength memory { id } } } } } }"
    )
    nodes = sorted((e["node"] for e in page["memories"]["edges"]), key=lambda n: n["id"])
    digest = hashlib.sha256(json.dumps(nodes, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return container.erasure.tenant_user_nodes(tenant), digest


# ----- calling any root field with A's ids --------------------------------------------


def _scalar(name: str, type_: GraphQLScalarType, a: AppA, id_kind: str) -> Any:
    lowered = name.lower()
    if type_.name == "Int":
        return 1  # valid wherever an Int is asked (polarity, first, k, turn), so calls go through
    if type_.name == "Float":
        return 0.5
    if type_.name == "Boolean":
        return True
    if type_.name == "DateTime":
        return "2026-11-30T00:00:00+00:00"
    if type_.name not in ("String", "ID"):
        return "x"  # a custom scalar: a string is the best guess
    if lowered == "userid":
        return "alice"
    if lowered == "sessionid":
        return a.session
    if lowered in ("deviceid", "speaker"):
        return "user"
    if lowered == "entity" or lowered.endswith("name"):
        return f"{a.marker}Chengdu"
    if type_.name == "ID" or lowered.endswith("id") or lowered in ("memorya", "memoryb", "winner", "after"):
        ids = a.ids.get(id_kind) or a.ids["memory"]
        return ids[0] if lowered not in ("memoryb",) else ids[-1]
    return "hotpot Chengdu cat PIN 柏林 护士"  # A's words, without A's marker


def _calls(schema: GraphQLSchema, a: AppA) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every root field, once per kind of A's ids when it takes an id."""
    for kind, name, f in root_fields(schema):
        if name in SEPARATELY:
            continue
        takes_id = any(get_named_type(arg.type).name == "ID" or n.lower().endswith("id") for n, arg in f.args.items())
        for id_kind in list(a.ids) if takes_id else ["memory"]:

            def scalar(n: str, t: GraphQLScalarType, k: str = id_kind) -> Any:
                return _scalar(n, t, a, k)

            variables = {n: value(n, arg.type, scalar) for n, arg in f.args.items()}
            yield name, document(kind, name, f), variables


def _pairs(value: Any) -> Iterator[tuple[str, Any]]:
    """(key, value) of every entry of nested dicts."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from _pairs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _pairs(v)


def _leaks(data: Any, a: AppA, variables: dict[str, Any] | None = None) -> list[str]:
    """A's ids or texts in what B was answered. An argument echoed back under its own name (workingMemory
    answering the sessionId it was asked for) is B's own input, not A's record."""
    ids = a.all_ids()
    echoed = {(k, v) for k, v in _pairs(variables or {}) if isinstance(v, str)}
    found = []
    for key, got in _pairs({"": data}):
        if isinstance(got, str) and (got in ids or a.marker in got) and (key, got) not in echoed:
            found.append(f"{key}={got}")
    return found


@pytest.fixture
def apps(api_url: str, make_api_key: Callable[[str], str]) -> Iterator[tuple[BmamClient, BmamClient, str, str]]:
    tenant_a, tenant_b = _tenant("a"), _tenant("b")
    a = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant_a)))
    b = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant_b)))
    yield a, b, tenant_a, tenant_b
    a.close()
    b.close()


def test_b_reaches_nothing_of_a_through_any_root_field(
    apps: tuple[BmamClient, BmamClient, str, str], container: Container, api_url: str
) -> None:
    a_client, b_client, tenant_a, tenant_b = apps
    schema = served_schema(b_client)
    a = _seed_a(a_client)
    b_own = b_client.remember("alice", "B's own alice likes tea", "FACTUAL")
    before = _fingerprint(a_client, container, tenant_a)

    calls = 0
    fields_called: set[str] = set()
    for name, doc, variables in _calls(schema, a):
        calls += 1
        fields_called.add(name)
        try:
            data = b_client.execute(doc, variables)
        except BmamClientError as exc:
            assert exc.code in ("BAD_USER_INPUT", "NOT_FOUND", "CONFLICT", "LIMIT_EXCEEDED"), (name, exc)
            assert a.marker not in json.dumps(exc.errors, ensure_ascii=False), (name, exc.errors)
            continue
        assert _leaks(data, a, variables) == [], (name, variables, data)
    assert fields_called >= {"memory", "memories", "triples", "associations", "search", "remember", "addTriple",
                             "associate", "forget", "viewer", "apiKeys", "revokeApiKey"}
    assert calls >= len(fields_called)

    # A's data did not change at all; B still has its own alice.
    assert _fingerprint(a_client, container, tenant_a) == before
    assert b_client.memory("alice", b_own["id"]) is not None
    assert all(k["name"] != f"{a.marker}key" for k in b_client.api_keys(include_revoked=True))

    # B erases its "alice": A's "alice" keeps every node and every byte.
    receipt = b_client.forget_user("alice", confirm=True)
    assert receipt["verified"] is True and receipt["nodesRemoved"] >= 2
    assert b_client.memories("alice")["edges"] == []
    assert _fingerprint(a_client, container, tenant_a) == before
    kept = a_client.memory("alice", a.ids["memory"][0])
    assert kept is not None and kept["text"].startswith(a.marker)
    assert container.erasure.tenant_user_nodes(tenant_b) == 0


def test_200_concurrent_mixed_requests_never_cross(
    apps: tuple[BmamClient, BmamClient, str, str], api_url: str
) -> None:
    a_client, b_client, _, _ = apps
    a_ids = {a_client.remember("alice", f"A memory {i} about hotpot", "FACTUAL")["id"] for i in range(3)}
    b_ids = {b_client.remember("alice", f"B memory {i} about tea", "FACTUAL")["id"] for i in range(3)}
    a_key, b_key = a_client.config.api_key, b_client.config.api_key

    some_a = sorted(a_ids)[0]

    async def run() -> list[tuple[str, str, Any]]:
        ca = AsyncBmamClient(ClientConfig(url=api_url, api_key=a_key, timeout_s=300))
        cb = AsyncBmamClient(ClientConfig(url=api_url, api_key=b_key, timeout_s=300))

        async def one(i: int) -> tuple[str, str, Any]:
            who, c = ("A", ca) if i % 2 == 0 else ("B", cb)
            kind = i % 10  # 40% pages, 40% by id, 20% search (the embedding model is the costly part)
            if kind < 4:
                return who, "page", await c.memories("alice", first=10)
            if kind < 8:
                return who, "by id", await c.memory("alice", some_a)
            return who, "search", await c.search("alice", "hotpot", k=5)

        try:
            return await asyncio.gather(*(one(i) for i in range(200)))
        finally:
            await ca.close()
            await cb.close()

    results = asyncio.run(run())
    assert len(results) == 200
    for who, kind, answer in results:
        seen = {s for s in strings(answer) if s.startswith("m_")}
        mine, theirs = (a_ids, b_ids) if who == "A" else (b_ids, a_ids)
        assert not seen & theirs, answer
        if who == "B":
            assert "A memory" not in json.dumps(answer)
        # and every answer is the caller's own data (an empty answer everywhere would show no crossing either)
        if kind == "page":
            assert {e["node"]["id"] for e in answer["edges"]} == mine, (who, answer)
        elif kind == "by id":
            assert (answer or {}).get("id") == (some_a if who == "A" else None), (who, answer)
    assert {(who, kind) for who, kind, _ in results} == {(w, k) for w in "AB" for k in ("page", "by id", "search")}
