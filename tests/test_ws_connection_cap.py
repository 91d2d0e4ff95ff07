"""Open graphql-transport-ws connections are capped per API key and per process: Strawberry caps the operations
of one connection (100), not the connections, and 500 connections of one key with 100 subscriptions each slowed
every request to 0.5-4.9 s. Over a cap a connection is closed with 4429 before connection_ack; a connection's
place comes back when it ends, however it ends."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest
import websockets
from starlette.routing import WebSocketRoute
from websockets.exceptions import ConnectionClosed

from bmam.client import AsyncBmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.settings import Settings
from resolvers.app import BmamGraphQL, create_app
from resolvers.ws_protocol import PER_KEY_REASON, TOTAL_REASON, ConnectionCap
from tests.ops_support import served
from tests.test_ws_connection_auth import _Socket

PER_KEY = 2
TOTAL = 3


class Capped(NamedTuple):
    url: str
    cap: ConnectionCap  # the server's own, to read its counts
    container: Container  # the server's own: a revoke through it is seen at once


@pytest.fixture
def capped(settings: Settings, container: Container) -> Iterator[Capped]:
    """A server of its own with small caps: 2 connections per key, 3 in all."""
    chosen = settings.model_copy(deep=True)
    chosen.api.max_ws_connections_per_key = PER_KEY
    chosen.api.max_ws_connections = TOTAL
    own = Container(chosen)
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    [view] = [r.endpoint for r in app.routes if isinstance(r, WebSocketRoute)]
    assert isinstance(view, BmamGraphQL)
    with served(app, ws_max_size=chosen.limits.max_body_bytes) as url:
        yield Capped(url, view.ws_cap, own)


async def _attempt(api_url: str, key: str) -> tuple[Any, tuple[int, str] | None]:
    """A connection_init with key: (the socket, None) once acknowledged, or (None, (close code, reason))."""
    ws = await websockets.connect(api_url.replace("http://", "ws://") + "/graphql",
                                  subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "connection_init", "payload": {"apiKey": key}}))
    try:
        first = json.loads(await asyncio.wait_for(ws.recv(), 30))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None
        return None, (closed.rcvd.code, closed.rcvd.reason)
    assert first["type"] == "connection_ack", first
    return ws, None


async def _open(api_url: str, key: str) -> Any:
    ws, refused = await _attempt(api_url, key)
    assert refused is None, refused
    return ws


async def _until(check: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """The server gives a place back when its handler ends, a moment after the client's side of it."""
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "the connection's place was not given back"
        await asyncio.sleep(0.05)


def test_a_key_over_its_cap_and_a_server_over_its_total_refuse_with_4429(
    capped: Capped, make_api_key: Callable[[str], str]
) -> None:
    """Before the cap one key opened as many connections as it liked (each with up to 100 subscriptions)."""
    url, cap, _ = capped
    first = make_api_key(f"test-wscap-a-{uuid.uuid4().hex[:8]}")
    second = make_api_key(f"test-wscap-b-{uuid.uuid4().hex[:8]}")
    third = make_api_key(f"test-wscap-c-{uuid.uuid4().hex[:8]}")

    async def run() -> tuple[tuple[int, str] | None, tuple[int, str] | None, int]:
        opened = [await _open(url, first) for _ in range(PER_KEY)]
        try:
            _, over_key = await _attempt(url, first)
            opened.append(await _open(url, second))  # another key still connects: the cap is per key
            _, over_total = await _attempt(url, third)  # 3 open in all: a new key is refused too
            return over_key, over_total, cap.open_connections()
        finally:
            for ws in opened:
                await ws.close()

    over_key, over_total, open_then = asyncio.run(run())
    assert over_key == (4429, PER_KEY_REASON)
    assert over_total == (4429, TOTAL_REASON)
    assert open_then == TOTAL  # the refused ones took no place


def test_every_way_a_connection_ends_gives_its_place_back(
    capped: Capped, make_api_key: Callable[[str], str]
) -> None:
    """Closed cleanly, dropped without a close frame while a subscription runs, or closed by the server for a
    revoked key: the count goes down each time, so a key never locks itself out with connections long gone."""
    url, cap, own = capped
    key = make_api_key(f"test-wscap-d-{uuid.uuid4().hex[:8]}")
    key_id = key.split("_")[1]
    other_tenant = f"test-wscap-e-{uuid.uuid4().hex[:8]}"
    other = make_api_key(other_tenant)
    other_id = other.split("_")[1]

    async def run() -> tuple[tuple[int, str] | None, int | None]:
        one = await _open(url, key)
        two = await _open(url, key)
        _, refused = await _attempt(url, key)
        await one.close()  # clean close
        await _until(lambda: cap.open_connections(key_id) == 1)
        three = await _open(url, key)
        await two.send(json.dumps({"id": "s", "type": "subscribe", "payload": {
            "query": 'subscription { memoryEvents(userId: "alice") { kind } }'}}))
        await asyncio.sleep(0.2)  # the subscription is running
        two.transport.abort()  # dropped: no close frame, as a client that lost its network
        await _until(lambda: cap.open_connections(key_id) == 1)
        four = await _open(url, key)
        await three.close()
        await four.close()
        await _until(lambda: cap.open_connections(key_id) == 0)

        revoked = await _open(url, other)
        own.keys.revoke(other_id, tenant=other_tenant)
        try:
            await _Socket(revoked).run("{ viewer { tenant } }")
            closed_with = None
        except ConnectionClosed as closed:
            closed_with = closed.rcvd.code if closed.rcvd else None
        await _until(lambda: cap.open_connections() == 0)
        return refused, closed_with

    refused, closed_with = asyncio.run(run())
    assert refused == (4429, PER_KEY_REASON)
    assert closed_with == 4403
    assert cap.open_connections() == 0


def test_the_client_reports_the_refusal_as_limit_exceeded(
    capped: Capped, make_api_key: Callable[[str], str]
) -> None:
    """AsyncBmamClient.memory_events opens a connection per call: over the key's cap it raises LIMIT_EXCEEDED at
    once (before the cap it subscribed, and waited for events)."""
    url = capped.url
    key = make_api_key(f"test-wscap-f-{uuid.uuid4().hex[:8]}")

    async def run() -> BmamClientError:
        opened = [await _open(url, key) for _ in range(PER_KEY)]
        client = AsyncBmamClient(ClientConfig(url=url, api_key=key, timeout_s=10))
        try:
            async def first_event() -> None:
                async for _ in client.memory_events("alice"):
                    return

            with pytest.raises(BmamClientError) as raised:
                await asyncio.wait_for(first_event(), 10)
            return raised.value
        finally:
            await client.close()
            for ws in opened:
                await ws.close()

    error = asyncio.run(run())
    assert error.code == "LIMIT_EXCEEDED", error
