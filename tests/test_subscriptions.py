"""memoryEvents(userId) over graphql-transport-ws with the gql client: a tenant hears its own user's
events and never another tenant's, even for the same user id; the key comes in connection_init."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bmam.client import AsyncBmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.events import EventKind, MemoryEvent
from tests.ops_support import unsubscribe


def _event(tenant: str, user: str, memory_id: str, kind: EventKind = EventKind.CREATED) -> MemoryEvent:
    return MemoryEvent(kind=kind, tenant=tenant, user_id=user, memory_id=memory_id, at=datetime.now(UTC),
                       detail={"tier": "temp"})


async def _next_after_probes(
    stream: Any, publish: Callable[[], None], *, probe: str, attempts: int = 200
) -> dict[str, Any]:
    """Publish probes until the subscription (registered asynchronously on the server) hears one."""
    task = asyncio.ensure_future(stream.__anext__())
    for _ in range(attempts):
        publish()
        done, _ = await asyncio.wait({task}, timeout=0.1)
        if done:
            event = task.result()
            assert event["memoryId"] == probe
            return event
    task.cancel()
    raise AssertionError("the subscription never started")


async def _next_event(stream: Any, timeout_s: float = 30) -> dict[str, Any]:
    """The next event that is not a probe: on a busy machine several probes go out before the first is heard,
    and the rest arrive after it."""
    while True:
        event: dict[str, Any] = await asyncio.wait_for(stream.__anext__(), timeout_s)
        if not str(event["memoryId"]).startswith("probe"):
            return event


def test_events_reach_their_own_tenant_only(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    tenant_a, tenant_b = f"test-sub-a-{uuid.uuid4().hex[:8]}", f"test-sub-b-{uuid.uuid4().hex[:8]}"
    a = AsyncBmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant_a)))
    b = AsyncBmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant_b)))
    bus = container.events  # the live server runs in this process, on this container

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        stream_a = a.memory_events("alice")
        stream_b = b.memory_events("alice")
        await _next_after_probes(stream_a, lambda: bus.publish(_event(tenant_a, "alice", "probe-a")), probe="probe-a")
        await _next_after_probes(stream_b, lambda: bus.publish(_event(tenant_b, "alice", "probe-b")), probe="probe-b")
        # A's event is published first: if it crossed to B, it would be the next thing B hears.
        bus.publish(_event(tenant_a, "alice", "m_for_a", EventKind.PROMOTED))
        bus.publish(_event(tenant_a, "bob", "m_for_a_bob"))
        bus.publish(_event(tenant_b, "alice", "m_for_b"))
        got_b = await _next_event(stream_b)
        got_a = await _next_event(stream_a)
        bus.publish(_event(tenant_a, "alice", "m_second"))
        got_a2 = await _next_event(stream_a)
        await unsubscribe(stream_a)
        await unsubscribe(stream_b)
        return got_a, got_a2, got_b

    got_a, got_a2, got_b = asyncio.run(run())
    assert got_b["memoryId"] == "m_for_b" and got_b["userId"] == "alice"
    assert got_a == {**got_a, "kind": "PROMOTED", "memoryId": "m_for_a", "userId": "alice",
                     "detail": [{"key": "tier", "value": "temp"}]}
    assert got_a2["memoryId"] == "m_second"  # bob's event never reached alice's stream


def test_subscription_refuses_without_a_valid_key_and_bad_user(api_url: str, api_key: str) -> None:
    async def first(key: str | None, user: str) -> dict[str, Any]:
        c = AsyncBmamClient(ClientConfig(url=api_url, api_key=key, timeout_s=10))
        stream = c.memory_events(user)
        try:
            return await asyncio.wait_for(stream.__anext__(), 20)
        finally:
            await unsubscribe(stream)

    for key in (None, "bmam_" + "1" * 16 + "_" + "B" * 43):
        with pytest.raises(BmamClientError) as err:
            asyncio.run(first(key, "alice"))
        assert err.value.code == "UNAUTHENTICATED"
    with pytest.raises(BmamClientError) as err:
        asyncio.run(first(api_key, "  "))
    assert err.value.code == "BAD_USER_INPUT", err.value.errors


def test_remember_ingest_and_forget_publish_their_events(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    tenant = f"test-sub-c-{uuid.uuid4().hex[:8]}"
    client = AsyncBmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))

    async def run() -> tuple[str, dict[str, Any], str, dict[str, Any], dict[str, Any]]:
        stream = client.memory_events("alice")
        await _next_after_probes(stream, lambda: container.events.publish(_event(tenant, "alice", "probe")),
                                 probe="probe")
        stored = await client.remember("alice", "My sister Anna lives in Berlin", "FACTUAL")
        remembered = await _next_event(stream)
        turn = await client.execute(
            "mutation($u: String!, $s: String!, $x: String!) {"
            " ingestTurn(userId: $u, sessionId: $s, speaker: \"user\", text: $x) { memories { id } } }",
            {"u": "alice", "s": "s1", "x": "我住在成都，最喜欢吃火锅"},
        )
        ingested = await _next_event(stream)
        await client.execute("mutation($u: String!, $id: ID!) { forget(userId: $u, id: $id) { forgotten } }",
                             {"u": "alice", "id": stored["id"]})
        forgotten = await _next_event(stream)
        await unsubscribe(stream)
        await client.close()
        return stored["id"], remembered, turn["ingestTurn"]["memories"][0]["id"], ingested, forgotten

    stored_id, remembered, ingested_id, ingested, forgotten = asyncio.run(run())
    assert (remembered["kind"], remembered["memoryId"]) == ("CREATED", stored_id)
    assert {"key": "tier", "value": "temp"} in remembered["detail"]
    assert (ingested["kind"], ingested["memoryId"]) == ("CREATED", ingested_id)
    # a memory the user forgets leaves the subscriber's view too (a UI listing memories drops it)
    assert (forgotten["kind"], forgotten["memoryId"]) == ("DELETED", stored_id)


def test_a_revoked_key_ends_its_open_subscription(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    """The key is checked when the connection opens and again before each event: after a revoke the open
    stream delivers nothing more and ends with UNAUTHENTICATED."""
    tenant = f"test-sub-r-{uuid.uuid4().hex[:8]}"
    secret = make_api_key(tenant)
    key_id = secret.split("_")[1]
    client = AsyncBmamClient(ClientConfig(url=api_url, api_key=secret))

    async def run() -> BmamClientError:
        stream = client.memory_events("alice")
        await _next_after_probes(stream, lambda: container.events.publish(_event(tenant, "alice", "probe")),
                                 probe="probe")
        container.keys.revoke(key_id, tenant=tenant)
        container.events.publish(_event(tenant, "alice", "m_after_revoke"))
        try:
            with pytest.raises(BmamClientError) as ended:
                await asyncio.wait_for(stream.__anext__(), 30)
            return ended.value
        finally:
            await unsubscribe(stream)
            await client.close()

    ended = asyncio.run(run())
    assert ended.code == "UNAUTHENTICATED"


def test_a_subscription_over_plain_http_is_bad_input(api_url: str, api_key: str) -> None:
    """Subscriptions run over the websocket: over POST (or GET) the caller is told so, BAD_USER_INPUT (it was
    an INTERNAL_SERVER_ERROR with a traceback in the log)."""
    from bmam.client import BmamClient

    c = BmamClient(ClientConfig(url=api_url, api_key=api_key))
    try:
        with pytest.raises(BmamClientError) as refused:
            c.execute('subscription { memoryEvents(userId: "alice") { kind } }')
    finally:
        c.close()
    assert refused.value.code == "BAD_USER_INPUT" and "websocket" in refused.value.message


def test_a_subscription_text_kept_from_a_websocket_is_still_refused_over_http(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    """A text that passed the checks over the websocket is kept (resolvers/documents.py) and skips them next
    time; whether it came over the websocket is the request's, not the text's: over POST it is still refused."""
    from bmam.client import MEMORY_EVENTS, BmamClient

    tenant = f"test-sub-k-{uuid.uuid4().hex[:8]}"
    key = make_api_key(tenant)
    ws = AsyncBmamClient(ClientConfig(url=api_url, api_key=key))

    async def subscribe_once() -> None:
        stream = ws.memory_events("alice")
        await _next_after_probes(stream, lambda: container.events.publish(_event(tenant, "alice", "probe")),
                                 probe="probe")
        await unsubscribe(stream)
        await ws.close()

    asyncio.run(subscribe_once())
    c = BmamClient(ClientConfig(url=api_url, api_key=key))
    try:
        with pytest.raises(BmamClientError) as refused:
            c.execute(MEMORY_EVENTS, {"u": "alice"})
    finally:
        c.close()
    assert refused.value.code == "BAD_USER_INPUT" and "websocket" in refused.value.message


def test_malformed_websocket_messages_close_the_socket_cleanly(api_url: str, api_key: str) -> None:
    """A message Strawberry's handler would trip over (not an object; a subscribe without an object payload)
    closes the socket with 4400, the protocol's 'invalid message' (it was a TypeError: traceback, 1006);
    the legacy graphql-ws protocol is not served."""
    import json

    import websockets
    from websockets.exceptions import ConnectionClosed

    url = api_url.replace("http://", "ws://") + "/graphql"
    init = json.dumps({"type": "connection_init", "payload": {"X-API-Key": api_key}})

    async def close_code(*messages: str) -> int | None:
        async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
            for m in messages:
                await ws.send(m)
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None

    assert asyncio.run(close_code("[1, 2]")) == 4400
    assert asyncio.run(close_code('"just a string"')) == 4400
    assert asyncio.run(close_code(init, '{"id": "1", "type": "subscribe", "payload": null}')) == 4400
    viewer = '{"id": 7, "type": "subscribe", "payload": {"query": "{ viewer { tenant } }"}}'
    assert asyncio.run(close_code(init, viewer)) == 4400
    assert asyncio.run(close_code(init, '{"id": "1", "type": "subscribe", "payload": {"query": 5}}')) == 4400
    query = '"query": "subscription { memoryEvents(userId: \\"a\\") { kind } }"'
    for odd in ('"operationName": 0', '"operationName": false', '"variables": 0', '"variables": []'):
        bad = '{"id": "1", "type": "subscribe", "payload": {' + query + ", " + odd + "}}"
        assert json.loads(bad)["payload"]["query"].startswith("subscription")  # well-formed JSON: the shape is wrong
        assert asyncio.run(close_code(init, bad)) == 4400, odd
    assert asyncio.run(close_code(init, '{"type": "complete", "id": ["x"]}')) == 4400

    async def legacy() -> tuple[str | None, int | None]:
        async with websockets.connect(url, subprotocols=["graphql-ws"]) as ws:  # type: ignore[list-item]
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as closed:
                return ws.subprotocol, closed.rcvd.code if closed.rcvd else None
            return ws.subprotocol, None

    assert asyncio.run(legacy()) == (None, 4406)  # subprotocol not acceptable


def test_forget_user_tells_subscribers_every_memory_is_gone(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    """forgetUser names no memory (it erases in batches): one FORGOTTEN event, after the erasure, with how many
    memories went; a client mirroring the user's memories drops them all. Another user's stream hears nothing."""
    tenant = f"test-sub-f-{uuid.uuid4().hex[:8]}"
    client = AsyncBmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        stream = client.memory_events("alice")
        other = client.memory_events("bob")
        await _next_after_probes(stream, lambda: container.events.publish(_event(tenant, "alice", "probe")),
                                 probe="probe")
        await _next_after_probes(other, lambda: container.events.publish(_event(tenant, "bob", "probe-b")),
                                 probe="probe-b")
        for text in ("My sister Anna lives in Berlin", "我住在成都"):
            await client.remember("alice", text, "FACTUAL")
            await _next_event(stream)
        receipt = await client.forget_user("alice", confirm=True)
        forgotten = await _next_event(stream)
        container.events.publish(_event(tenant, "bob", "m_bob"))
        heard_by_bob = await _next_event(other)  # the first thing bob's stream hears after alice was erased
        await unsubscribe(stream)
        await unsubscribe(other)
        await client.close()
        return receipt, forgotten, heard_by_bob

    receipt, forgotten, heard_by_bob = asyncio.run(run())
    assert receipt["verified"] is True
    assert (forgotten["kind"], forgotten["memoryId"], forgotten["userId"]) == ("FORGOTTEN", "", "alice")
    assert forgotten["detail"] == [{"key": "memories", "value": "2"}]
    assert heard_by_bob["memoryId"] == "m_bob"
