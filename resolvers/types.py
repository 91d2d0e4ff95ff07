"""Strawberry types of the GraphQL face, converted from the domain types in graph.model."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graph import model
from resolvers.context import Info

MemoryType = strawberry.enum(model.MemoryType, description="What kind of memory (BMAM seed).")
Tier = strawberry.enum(model.Tier, description="temp, mid or core; core is locked.")
PresetKind = strawberry.enum(model.PresetKind, description="What the preset weight part comes from.")
ClassifierLevel = strawberry.enum(model.ClassifierLevel, description="Which classifier level decided the type.")


@strawberry.type(description="final = 0.6 passive + 0.3 active + 0.1 preset, each in [0, 1].")
class Weight:
    passive: float
    active: float
    preset: float
    final: float


@strawberry.type(description="Where a memory came from. The device is provenance, not identity.")
class Source:
    session_id: str | None
    turn: int | None
    device_id: str | None
    episode_id: str | None


@strawberry.type
class Memory:
    id: strawberry.ID
    user_id: str
    text: str
    type: MemoryType  # type: ignore[valid-type]
    tier: Tier  # type: ignore[valid-type]
    weight: Weight
    preset_kind: PresetKind  # type: ignore[valid-type]
    locked: bool
    created_at: datetime
    last_recalled_at: datetime | None
    last_mentioned_at: datetime | None
    recall_count: int
    mention_count: int
    classified_by: ClassifierLevel  # type: ignore[valid-type]
    confidence: float
    source: Source
    valid_from: datetime
    valid_to: datetime | None
    remains_of: strawberry.ID | None = strawberry.field(
        default=None, description="The superseded memory whose uncontested facts this one keeps (its remains: a "
                                  "conflict contradicted only part of what that memory said), if any.")

    @strawberry.field(description="The triples this memory asserts (batched per request: no query per memory).")
    async def triples(self, info: Info) -> list[Triple]:
        found = await info.context.loaders.triples.load((self.user_id, str(self.id)))
        return [Triple.of(t) for t in found]

    @strawberry.field(description="Memories associated with this one, strongest first (batched per request).")
    async def associated(self, info: Info, first: int = 10) -> list[AssociatedMemory]:
        found = await info.context.loaders.associated.load((self.user_id, str(self.id), first))
        return [AssociatedMemory(memory=Memory.of(m), strength=s) for m, s in found]

    @classmethod
    def of(cls, m: model.Memory) -> Memory:
        return cls(
            id=strawberry.ID(m.id),
            user_id=m.user_id,
            text=m.text,
            type=m.type,
            tier=m.tier,
            weight=Weight(passive=m.weight.passive, active=m.weight.active, preset=m.weight.preset,
                          final=m.weight.final),
            preset_kind=m.preset_kind,
            locked=m.locked,
            created_at=m.created_at,
            last_recalled_at=m.last_recalled_at,
            last_mentioned_at=m.last_mentioned_at,
            recall_count=m.recall_count,
            mention_count=m.mention_count,
            classified_by=m.classified_by,
            confidence=m.confidence,
            source=Source(session_id=m.provenance.session_id, turn=m.provenance.turn,
                          device_id=m.provenance.device_id, episode_id=m.provenance.episode_id),
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            remains_of=strawberry.ID(m.remains_of) if m.remains_of is not None else None,
        )


@strawberry.type
class Entity:
    id: strawberry.ID
    name: str
    kind: str


@strawberry.type(description="(subject, predicate, object), asserted by one memory.")
class Triple:
    id: strawberry.ID
    subject: Entity
    predicate: str
    object: Entity
    polarity: int
    memory_id: str
    created_at: datetime | None
    valid_to: datetime | None

    @classmethod
    def of(cls, t: model.Triple) -> Triple:
        return cls(
            id=strawberry.ID(t.id),
            subject=Entity(id=strawberry.ID(t.subject.id), name=t.subject.name, kind=t.subject.kind),
            predicate=t.predicate,
            object=Entity(id=strawberry.ID(t.object.id), name=t.object.name, kind=t.object.kind),
            polarity=t.polarity,
            memory_id=t.memory_id,
            created_at=t.created_at,
            valid_to=t.valid_to,
        )


@strawberry.type(description="An undirected association between two memories, strength in [0, 1].")
class Association:
    memory_a: str
    memory_b: str
    strength: float

    @classmethod
    def of(cls, a: model.Association) -> Association:
        return cls(memory_a=a.memory_a, memory_b=a.memory_b, strength=a.strength)


@strawberry.type(description="The pair dissociate was asked about, and whether an association was removed.")
class Dissociation:
    memory_a: str
    memory_b: str
    removed: bool


@strawberry.type(description="A memory reached over an association edge, with the edge's strength.")
class AssociatedMemory:
    memory: Memory
    strength: float


@strawberry.type
class MemoryEdge:
    cursor: str
    node: Memory


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type(description="A page of memories (Relay connection, keyset cursors).")
class MemoryConnection:
    edges: list[MemoryEdge]
    page_info: PageInfo


@strawberry.type
class SearchHit:
    memory: Memory
    score: float


@strawberry.type
class ForgetResult:
    id: strawberry.ID
    forgotten: bool
