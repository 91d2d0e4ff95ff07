"""Memory events (created, promoted, demoted, superseded, evicted, merged, deleted; forgotten: all of a user's
at once): published by use-cases, fanned out to this process's subscribers (the GraphQL subscription) per
(tenant, user), and kept for the relay that carries them to the other processes (bmam/event_relay.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from graph.conflicts import Conflict
from graph.errors import LimitExceeded
from graph.model import MemoryType, Scope, Tier


class EventKind(StrEnum):
    CREATED = "CREATED"
    PROMOTED = "PROMOTED"
    DEMOTED = "DEMOTED"
    SUPERSEDED = "SUPERSEDED"
    EVICTED = "EVICTED"
    MERGED = "MERGED"
    DELETED = "DELETED"
    FORGOTTEN = "FORGOTTEN"  # forgetUser erased every memory of the user (no memory id: it names none)


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

    @classmethod
    def superseded(cls, scope: Scope, conflict: Conflict) -> MemoryEvent | None:
        """A settled conflict superseded its loser (a rule's settlement, the user's resolution or correction); None
        for a conflict not settled with a loser (held for review, moot)."""
        if conflict.loser_id is None or conflict.resolved_at is None:
            return None
        return cls(kind=EventKind.SUPERSEDED, tenant=scope.tenant, user_id=scope.user_id, memory_id=conflict.loser_id,
                   at=conflict.resolved_at, detail={"superseded_by": conflict.winner_id or "",
                                                    "conflict_id": conflict.id, "kind": conflict.kind.value})

    @classmethod
    def deleted(cls, scope: Scope, memory_id: str, *, reason: str, at: datetime) -> MemoryEvent:
        """A memory was deleted: forgotten by the user, taken back by a turn, purged by maintenance (why: reason)."""
        return cls(kind=EventKind.DELETED, tenant=scope.tenant, user_id=scope.user_id, memory_id=memory_id, at=at,
                   detail={"reason": reason})

    @classmethod
    def forgotten(cls, scope: Scope, *, memories: int, at: datetime) -> MemoryEvent:
        """forgetUser erased everything of the user: one event for all of it (erasure deletes in batches and
        names no memory), so a client mirroring the user's memories drops them all. memory_id is empty."""
        return cls(kind=EventKind.FORGOTTEN, tenant=scope.tenant, user_id=scope.user_id, memory_id="", at=at,
                   detail={"memories": str(memories)})


@dataclass(eq=False, slots=True)
class _Subscriber:
    """One subscription: its loop, its bounded queue, and whether it fell behind (touched on its loop only)."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[MemoryEvent]
    fell_behind: bool = False


class EventBus:
    """Publish from any thread; subscribers are asyncio queues on the server's loop. A subscriber whose queue is
    full (a slow reader, `queue_size` events behind) gets what was queued, then its stream ends with
    LIMIT_EXCEEDED rather than slowing down writes: it used to lose the oldest events without a word, and a
    client mirroring a user's memories (a UI) went on showing what had changed. Told, it subscribes again and
    reloads."""

    def __init__(self, queue_size: int = 1000) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[tuple[str, str], list[_Subscriber]] = {}
        self._queue_size = queue_size
        # Events published here since the relay last took them (None: no relay, nothing kept).
        self._outbox: list[MemoryEvent] | None = None

    def publish(self, event: MemoryEvent) -> None:
        """A change made in this process: to its subscribers, and to the relay's outbox when one is attached
        (bmam/event_relay.py carries it to the other processes)."""
        with self._lock:
            if self._outbox is not None:
                self._outbox.append(event)
        self.deliver(event)

    def deliver(self, event: MemoryEvent) -> None:
        """To this process's subscribers only (an event the relay brought from another process)."""
        with self._lock:
            targets = list(self._subscribers.get((event.tenant, event.user_id), ()))
        for sub in targets:
            sub.loop.call_soon_threadsafe(_offer, sub, event)

    def keep_outbox(self) -> None:
        """From now on keep what is published for the relay (EventRelay.start)."""
        with self._lock:
            if self._outbox is None:
                self._outbox = []

    def take_outbox(self) -> list[MemoryEvent]:
        """What was published since the last take, in order (empty without a relay)."""
        with self._lock:
            if self._outbox is None:
                return []
            taken, self._outbox = self._outbox, []
        return taken

    def put_back(self, events: list[MemoryEvent]) -> None:
        """Events taken that the relay could not append: first in the outbox again, in their order."""
        with self._lock:
            if self._outbox is not None:
                self._outbox[:0] = events

    def listened(self) -> list[tuple[str, str]]:
        """The (tenant, user) pairs someone in this process is subscribed to."""
        with self._lock:
            return list(self._subscribers)

    async def subscribe(self, tenant: str, user_id: str) -> AsyncIterator[MemoryEvent]:
        """The user's events in order; LimitExceeded once the queued ones are read, if any were lost."""
        sub = _Subscriber(asyncio.get_running_loop(), asyncio.Queue(self._queue_size))
        key = (tenant, user_id)
        with self._lock:
            self._subscribers.setdefault(key, []).append(sub)
        try:
            while True:
                if sub.fell_behind and sub.queue.empty():
                    raise LimitExceeded(f"this subscription fell more than {self._queue_size} events behind and "
                                        "missed some: subscribe again and reload what it mirrors")
                yield await sub.queue.get()
        finally:
            with self._lock:
                self._subscribers[key].remove(sub)
                if not self._subscribers[key]:
                    del self._subscribers[key]


def _offer(sub: _Subscriber, event: MemoryEvent) -> None:
    """On the subscriber's loop. Past a gap nothing more is queued: the stream ends at the gap."""
    if sub.fell_behind:
        return
    if sub.queue.full():
        sub.fell_behind = True
        return
    sub.queue.put_nowait(event)
