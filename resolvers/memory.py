"""GraphQL queries and mutations of the first slice: memories, triples, associations, search."""

from __future__ import annotations

import strawberry

from bmam.usecases.memories import RememberRequest
from graph import model
from graph.paging import encode_cursor
from resolvers.context import Info, call
from resolvers.types import (
    Association,
    Dissociation,
    ForgetResult,
    Memory,
    MemoryConnection,
    MemoryEdge,
    MemoryType,
    PageInfo,
    PresetKind,
    SearchHit,
    Tier,
    Triple,
)


@strawberry.input(description="A memory to store for a user.")
class RememberInput:
    user_id: str
    text: str
    type: MemoryType  # type: ignore[valid-type]
    tier: Tier = model.Tier.TEMP  # type: ignore[valid-type]
    preset_kind: PresetKind = model.PresetKind.DEFAULT  # type: ignore[valid-type]
    session_id: str | None = None
    device_id: str | None = None
    request_id: str | None = strawberry.field(default=None, description=(
        "The client's name for this remember (an identifier): sent again, as a retry after a timeout is, it answers "
        "the memory the first call stored instead of storing it twice. CONFLICT when it was sent before with "
        "another text."))


@strawberry.input(description="A triple (subject, predicate, object) asserted by a memory.")
class TripleInput:
    user_id: str
    memory_id: strawberry.ID
    subject: str
    predicate: str
    object: str
    subject_kind: str = "thing"
    object_kind: str = "thing"
    polarity: int = 1


@strawberry.type
class MemoryQuery:
    @strawberry.field(description="One memory of a user, or null.")
    async def memory(self, info: Info, user_id: str, id: strawberry.ID) -> Memory | None:
        ctx = info.context
        found = await call(ctx.container.memories.get, ctx.tenant, user_id, str(id))
        return Memory.of(found) if found else None

    @strawberry.field(description="A user's memories, newest first, by type and tier; at most 100 a page.")
    async def memories(
        self,
        info: Info,
        user_id: str,
        types: list[MemoryType] | None = None,  # type: ignore[valid-type]
        tiers: list[Tier] | None = None,  # type: ignore[valid-type]
        first: int = 20,
        after: str | None = None,
        include_history: bool = False,
    ) -> MemoryConnection:
        ctx = info.context
        page = await call(
            ctx.container.memories.page, ctx.tenant, user_id,
            types=types, tiers=tiers, first=first, after=after, include_history=include_history,
        )
        edges = [MemoryEdge(cursor=encode_cursor(m.created_at, m.id), node=Memory.of(m)) for m in page.items]
        return MemoryConnection(
            edges=edges,
            page_info=PageInfo(has_next_page=page.next_cursor is not None, end_cursor=page.next_cursor),
        )

    @strawberry.field(description="The triples a memory asserts.")
    async def triples(self, info: Info, user_id: str, memory_id: strawberry.ID) -> list[Triple]:
        ctx = info.context
        found = await call(ctx.container.memories.triples, ctx.tenant, user_id, str(memory_id))
        return [Triple.of(t) for t in found]

    @strawberry.field(description="A memory's associations, strongest first.")
    async def associations(self, info: Info, user_id: str, memory_id: strawberry.ID) -> list[Association]:
        ctx = info.context
        found = await call(ctx.container.memories.associations, ctx.tenant, user_id, str(memory_id))
        return [Association.of(a) for a in found]

    @strawberry.field(description="Plain vector search over a user's memories (no gating).")
    async def search(self, info: Info, user_id: str, query: str, k: int = 5) -> list[SearchHit]:
        ctx = info.context
        hits = await call(ctx.container.memories.search, ctx.tenant, user_id, query, k=k)
        return [SearchHit(memory=Memory.of(h.memory), score=h.score) for h in hits]


@strawberry.type
class MemoryMutation:
    @strawberry.mutation(description="Store a typed memory for a user.")
    async def remember(self, info: Info, input: RememberInput) -> Memory:
        ctx = info.context
        request = RememberRequest(
            user_id=input.user_id, text=input.text, type=input.type, tier=input.tier,
            preset_kind=input.preset_kind, session_id=input.session_id, device_id=input.device_id,
            request_id=input.request_id,
        )
        return Memory.of(await call(ctx.container.memories.remember, ctx.tenant, request))

    @strawberry.mutation(description=(
        "Add a triple asserted by one of the user's memories, then run the memory's conflict detection and "
        "association forming again with all its triples: a conflict between triples (single-valued, polarity) "
        "is settled here by the deployment's strategy. Adding the same triple again changes nothing."))
    async def add_triple(self, info: Info, input: TripleInput) -> Triple:
        ctx = info.context
        triple = await call(
            ctx.container.memories.add_triple, ctx.tenant, input.user_id,
            memory_id=str(input.memory_id), subject=input.subject, predicate=input.predicate,
            object_=input.object, subject_kind=input.subject_kind, object_kind=input.object_kind,
            polarity=input.polarity,
        )
        return Triple.of(triple)

    @strawberry.mutation(description="Associate two memories of a user with a strength in [0, 1] (the user's word "
                                     "on the pair: forming again does not raise it; strength 0 says 'not related', "
                                     "and recalling them together no longer strengthens it). NOT_FOUND when either "
                                     "is not the user's; CONFLICT when either is superseded (history is not "
                                     "linked).")
    async def associate(
        self, info: Info, user_id: str, memory_a: strawberry.ID, memory_b: strawberry.ID, strength: float
    ) -> Association:
        ctx = info.context
        found = await call(
            ctx.container.memories.associate, ctx.tenant, user_id, str(memory_a), str(memory_b), strength
        )
        return Association.of(found)

    @strawberry.mutation(description="Remove the association of two memories of a user (removed: false when they "
                                     "had none). The system may form it again (same episode, shared terms, "
                                     "recalled together); associate with strength 0 is the user's lasting 'not "
                                     "related'. NOT_FOUND when either is not the user's.")
    async def dissociate(
        self, info: Info, user_id: str, memory_a: strawberry.ID, memory_b: strawberry.ID
    ) -> Dissociation:
        ctx = info.context
        removed = await call(ctx.container.memories.dissociate, ctx.tenant, user_id, str(memory_a), str(memory_b))
        return Dissociation(memory_a=str(memory_a), memory_b=str(memory_b), removed=removed)

    @strawberry.mutation(description="Forget a memory. A locked core memory needs confirm: true.")
    async def forget(self, info: Info, user_id: str, id: strawberry.ID, confirm: bool = False) -> ForgetResult:
        ctx = info.context
        forgotten = await call(ctx.container.memories.forget, ctx.tenant, user_id, str(id), confirm=confirm)
        return ForgetResult(id=strawberry.ID(forgotten), forgotten=True)
