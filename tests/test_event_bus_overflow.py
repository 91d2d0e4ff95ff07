"""A subscriber that falls behind: what was queued is delivered in order, then the stream ends with
LIMIT_EXCEEDED (it lost the oldest events without a word, and a client mirroring a user's memories went on
showing what had changed)."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bmam.client import AsyncBmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.events import EventBus, EventKind, MemoryEvent
from graph.errors import LimitExceeded
from tests.ops_support import unsubscribe


def _event(tenant: str, memory_id: str) -> MemoryEvent:
    return MemoryEvent(kind=EventKind.CREATED, tenant=tenant, user_id="alice", memory_id=memory_id,
                       at=datetime.now(UTC))


def test_a_subscriber_that_falls_behind_reads_what_was_queued_then_is_told() -> None:
    bus = EventBus(queue_size=3)

    async def run() -> tuple[list[str], BaseException | None]:
        stream = bus.subscribe("t", "alice")
        first = asyncio.ensure_future(stream.__anext__())
        await asyncio.sleep(0)  # registered, waiting for its first event
        # published from another thread, as the use-cases do, while this subscriber reads nothing
        def write() -> None:
            for i in range(6):
                bus.publish(_event("t", f"m{i}"))

        writer = threading.Thread(target=write)
        writer.start()
        writer.join()
        got = [(await first).memory_id]
        try:
            while True:
                got.append((await asyncio.wait_for(stream.__anext__(), 5)).memory_id)
        except LimitExceeded as exc:
            return got, exc
        except TimeoutError:
            return got, None

    got, ended = asyncio.run(run())
    assert got == ["m0", "m1", "m2", "m3"][:len(got)] and len(got) >= 3  # in order, none made up
    assert isinstance(ended, LimitExceeded)  # not a silent gap followed by later events


def test_a_subscriber_that_keeps_up_loses_nothing_and_is_not_ended() -> None:
    bus = EventBus(queue_size=3)

    async def run() -> list[str]:
        stream = bus.subscribe("t", "alice")
        nxt = asyncio.ensure_future(stream.__anext__())
        await asyncio.sleep(0)
        got = []
        for i in range(10):
            bus.publish(_event("t", f"m{i}"))
            got.append((await asyncio.wait_for(nxt, 5)).memory_id)
            nxt = asyncio.ensure_future(stream.__anext__())
        nxt.cancel()
        return got

    assert asyncio.run(run()) == [f"m{i}" for i in range(10)]


def test_the_client_hears_limit_exceeded_over_the_websocket(
    api_url: str, container: Container, make_api_key: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the live app's subscription on a small bus, a burst it cannot keep up with."""
    bus = EventBus(queue_size=2)
    monkeypatch.setitem(container.__dict__, "events", bus)  # the resolver asks the container for its bus
    tenant = f"test-sub-o-{uuid.uuid4().hex[:8]}"
    client = AsyncBmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))

    async def run() -> tuple[list[str], BmamClientError | None]:
        stream = client.memory_events("alice")
        task = asyncio.ensure_future(stream.__anext__())
        for _ in range(200):  # the subscription registers asynchronously on the server
            bus.publish(_event(tenant, "probe"))
            done, _ = await asyncio.wait({task}, timeout=0.1)
            if done:
                break
        got: list[dict[str, Any]] = [task.result()]
        for i in range(500):  # one burst, far faster than the server sends frames
            bus.publish(_event(tenant, f"m{i}"))
        try:
            while True:
                got.append(await asyncio.wait_for(stream.__anext__(), 30))
        except BmamClientError as exc:
            return [str(e["memoryId"]) for e in got], exc
        except TimeoutError:
            return [str(e["memoryId"]) for e in got], None
        finally:
            await unsubscribe(stream)

    ids, ended = asyncio.run(run())
    assert ended is not None and ended.code == "LIMIT_EXCEEDED", ids[-5:]
    heard = [i for i in ids if i.startswith("m")]
    assert heard == [f"m{n}" for n in range(len(heard))]  # what it heard has no gap
