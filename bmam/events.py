"""Memory events (created, promoted, demoted, superseded, evicted, merged): published by use-cases,
fanned out to subscribers (the GraphQL subscription) per (tenant, user)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from graph.model import MemoryType, Scope, Tier


class EventKind(StrEnum):
    CREATED = "CREATED"
    PROMOTED = "PROMOTED"
    DEMOTED = "DEMOTED"
    SUPERSEDED = "SUPERSEDED"
    EVICTED = "EVICTED"
    MERGED = "MERGED"
    DELETED = "DELETED"


@dataclass(frozen=True, slots=True)
class MemoryEvent:
    kind: EventKind
    tenant: str
    user_id: str
    memory_id: str
    at: datetime
    detail: dict[str, str] = field(default_factory=dict)

    @classmethod
    def created(cls, scope: Scope, memory_id: str, *, tier: Tier, memory_type: MemoryType,
                at: datetime) -> MemoryEvent:
        """A memory was stored (remember, ingest), with its tier and type."""
        return cls(kind=EventKind.CREATED, tenant=scope.tenant, user_id=scope.user_id, memory_id=memory_id, at=at,
                   detail={"tier": tier.value, "type": memory_type.value})


_Subscriber = tuple[asyncio.AbstractEventLoop, "asyncio.Queue[MemoryEvent]"]


class EventBus:
    """Publish from any thread; subscribers are asyncio queues on the server's loop. A slow subscriber
    loses the oldest events (bounded queue) rather than slowing down writes."""

    def __init__(self, queue_size: int = 1000) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[tuple[str, str], list[_Subscriber]] = {}
        self._queue_size = queue_size

    def publish(self, event: MemoryEvent) -> None:
        with self._lock:
            targets = list(self._subscribers.get((event.tenant, event.user_id), ()))
        for loop, queue in targets:
            loop.call_soon_threadsafe(_offer, queue, event)

    async def subscribe(self, tenant: str, user_id: str) -> AsyncIterator[MemoryEvent]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[MemoryEvent] = asyncio.Queue(self._queue_size)
        key = (tenant, user_id)
        entry = (loop, queue)
        with self._lock:
            self._subscribers.setdefault(key, []).append(entry)
        try:
            while True:
                yield await queue.get()
        finally:
            with self._lock:
                self._subscribers[key].remove(entry)
                if not self._subscribers[key]:
                    del self._subscribers[key]


def _offer(queue: asyncio.Queue[MemoryEvent], event: MemoryEvent) -> None:
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(event)
