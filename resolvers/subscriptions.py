"""Subscription memoryEvents(userId): a user's memory events (created, promoted, demoted, superseded,
evicted, merged, deleted; forgotten: the user erased) as they happen, over graphql-transport-ws, for the
caller's tenant only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from datetime import datetime

import strawberry

from bmam import validate
from bmam.events import EventKind
from bmam.events import MemoryEvent as DomainEvent
from graph.errors import Unauthenticated
from resolvers.context import Info

MemoryEventKind = strawberry.enum(EventKind, name="MemoryEventKind", description=(
    "What happened to a memory; FORGOTTEN: forgetUser erased every memory of the user (that event's memoryId is "
    "empty)."))


@strawberry.type
class EventDetail:
    key: str
    value: str


@strawberry.type(description="Something that happened to one memory of one user.")
class MemoryEvent:
    kind: MemoryEventKind  # type: ignore[valid-type]
    user_id: str
    memory_id: strawberry.ID
    at: datetime
    detail: list[EventDetail]

    @classmethod
    def of(cls, e: DomainEvent) -> MemoryEvent:
        return cls(kind=e.kind, user_id=e.user_id, memory_id=strawberry.ID(e.memory_id), at=e.at,
                   detail=[EventDetail(key=k, value=v) for k, v in sorted(e.detail.items())])


@strawberry.type
class EventsSubscription:
    @strawberry.subscription(description="A user's memory events as they happen (this app's user only).")
    async def memory_events(
        self, info: Info, user_id: str
    ) -> AsyncGenerator[MemoryEvent, None]:
        ctx = info.context
        tenant = ctx.tenant  # UNAUTHENTICATED unless the connection presented a valid key
        user = validate.identifier(user_id, field="userId")
        keys = ctx.container.keys
        key_id = ctx.principal.key_id if ctx.principal is not None else ""
        async for event in ctx.container.events.subscribe(tenant, user):
            # the key was checked when the connection opened: a revoke since ends the stream, not the next one
            if not await asyncio.to_thread(keys.still_valid, key_id):
                raise Unauthenticated("the API key of this subscription was revoked")
            yield MemoryEvent.of(event)
