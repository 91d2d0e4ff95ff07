"""One graphql-transport-ws connection carries many operations (queries and mutations too, not only
subscriptions), all on the context made when it opened: what each operation sees must still be what an
HTTP request would."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from typing import Any

import websockets
from websockets.exceptions import ConnectionClosed

from bmam.container import Container


class _Socket:
    """A bare graphql-transport-ws client: one connection, operations run one after the other."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws
        self._n = 0

    async def run(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        self._n += 1
        op = str(self._n)
        await self._ws.send(json.dumps({"id": op, "type": "subscribe",
                                        "payload": {"query": query, "variables": variables or {}}}))
        while True:
            msg = json.loads(await asyncio.wait_for(self._ws.recv(), 30))
            if msg.get("id") != op:
                continue
            if msg["type"] == "next":
                return msg["payload"]
            if msg["type"] == "error":
                return {"errors": msg["payload"]}


async def _connected(api_url: str, key: str) -> tuple[Any, _Socket]:
    url = api_url.replace("http://", "ws://") + "/graphql"
    ws = await websockets.connect(url, subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "connection_init", "payload": {"apiKey": key}}))
    ack = json.loads(await asyncio.wait_for(ws.recv(), 30))
    assert ack["type"] == "connection_ack", ack
    return ws, _Socket(ws)


def test_a_revoked_key_runs_nothing_more_on_its_open_connection(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    """The key was checked at connection_init only: after a revoke the open socket still read and wrote (a
    remember went through). Now the next operation closes it with 4403 and nothing runs."""
    tenant = f"test-ws-r-{uuid.uuid4().hex[:8]}"
    secret = make_api_key(tenant)
    key_id = secret.split("_")[1]

    async def run() -> tuple[dict[str, Any], int | None]:
        ws, sock = await _connected(api_url, secret)
        try:
            before = await sock.run("{ viewer { tenant } }")
            container.keys.revoke(key_id, tenant=tenant)
            try:
                await sock.run('mutation { remember(input: {userId: "alice", text: "I live in Oslo", '
                               'type: FACTUAL}) { id } }')
            except ConnectionClosed as closed:
                return before, closed.rcvd.code if closed.rcvd else None
            return before, None
        finally:
            await ws.close()

    before, closed_with = asyncio.run(run())
    assert before["data"]["viewer"]["tenant"] == tenant
    assert closed_with == 4403
    assert container.memories.page(tenant, "alice").items == []  # nothing was written with the revoked key


def test_each_operation_of_a_connection_reads_current_nested_fields(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    """Memory.triples comes from a DataLoader, which caches what it loaded. The connection's one context kept
    one loader for every operation: a query after addTriple answered the triples as first loaded (none)."""
    tenant = f"test-ws-l-{uuid.uuid4().hex[:8]}"
    secret = make_api_key(tenant)
    triples = "query($id: ID!) { memory(userId: \"alice\", id: $id) { triples { predicate } } }"

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        ws, sock = await _connected(api_url, secret)
        try:
            stored = await sock.run('mutation { remember(input: {userId: "alice", text: "I live in Oslo", '
                                    'type: FACTUAL}) { id } }')
            memory_id = stored["data"]["remember"]["id"]
            first = await sock.run(triples, {"id": memory_id})
            added = await sock.run(
                "mutation($id: ID!) { addTriple(input: {userId: \"alice\", memoryId: $id, subject: \"user\", "
                "predicate: \"lives_in\", object: \"Oslo\"}) { predicate } }", {"id": memory_id})
            assert not added.get("errors"), added
            return first, await sock.run(triples, {"id": memory_id})
        finally:
            await ws.close()

    first, again = asyncio.run(run())
    assert first["data"]["memory"]["triples"] == []
    assert again["data"]["memory"]["triples"] == [{"predicate": "lives_in"}]


def test_an_int_literal_python_cannot_read_is_a_coded_error_on_the_socket_too(
    api_url: str, make_api_key: Callable[[str], str]
) -> None:
    """A page size of 4,400 digits: the page-cost check read it with int(), which Python refuses past 4,300
    digits; over HTTP the client got Python's words without a code, over the socket only `complete` (and the server
    a traceback). Now it is the Int past 32 bits it is, LIMIT_EXCEEDED for a page size, and the socket goes on."""
    secret = make_api_key(f"test-ws-i-{uuid.uuid4().hex[:8]}")

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        ws, sock = await _connected(api_url, secret)
        try:
            refused = await sock.run('{ recall(userId: "alice", query: "tea", k: ' + "9" * 4400 + ") { gated } }")
            return refused, await sock.run("{ viewer { tenant } }")
        finally:
            await ws.close()

    refused, after = asyncio.run(run())
    [error] = refused["errors"]
    assert error["extensions"]["code"] == "LIMIT_EXCEEDED", error
    assert "4400 digits" in error["message"] and "sys.set_int_max_str_digits" not in error["message"]
    assert after["data"]["viewer"]["tenant"].startswith("test-ws-i-")
