"""The memory model: the domain types every layer speaks (memories, tiers, triples, associations)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class MemoryType(StrEnum):
    """Memory types from the BMAM seed. WORKING is per session and never stored as a Memory node."""

    FACTUAL = "FACTUAL"
    PROCEDURAL = "PROCEDURAL"
    EPISODIC = "EPISODIC"
    SEMANTIC = "SEMANTIC"
    EMOTIONAL = "EMOTIONAL"
    WORKING = "WORKING"

    @property
    def label(self) -> str:
        """The secondary node label, e.g. :Memory:Factual (closed allow-list for Cypher splicing)."""
        return self.value.capitalize()


STORED_TYPES: tuple[MemoryType, ...] = tuple(t for t in MemoryType if t is not MemoryType.WORKING)

# The largest turn index a session holds, for ingest and import alike: every stored turn fits GraphQL's Int
# (32 bits, at most 2^31 - 1) with one to spare, so neither an explicit index nor an append ever stores one that
# cannot be answered.
MAX_TURN = 2**31 - 2

# The user's own entity: named "user", of one of the kinds a triple's subject "user" may carry (ingest's "user";
# addTriple's default "thing"; "person"). Recall reads it as the user (graph/recall.py), an RDF export links it to
# the user's IRI (graph/rdf_records.py).
USER_ENTITY_NAME = "user"
USER_ENTITY_KINDS = ("user", "person", "thing")


class Tier(StrEnum):
    """The three stores of the three-tier growth seed. core is locked."""

    TEMP = "temp"
    MID = "mid"
    CORE = "core"

    @property
    def rank(self) -> int:
        """The tier's place in growth: temp 0, mid 1, core 2 (a move up is a promotion)."""
        return _TIER_RANK[self]


_TIER_RANK = {Tier.TEMP: 0, Tier.MID: 1, Tier.CORE: 2}


class PresetKind(StrEnum):
    """What the preset weight part is derived from (DESIGN.md "Weights")."""

    DEFAULT = "default"
    SAFETY = "safety"  # safety-critical: fixed at 1.0, never damped
    TEMPORARY = "temporary"  # weather, one-off: starts at 0.3


class ClassifierLevel(StrEnum):
    """Which level of the three-level classifier decided a memory's type."""

    RULE = "rule"
    MODEL = "model"
    FALLBACK = "fallback"
    USER = "user"  # stated explicitly by the caller


@dataclass(frozen=True, slots=True)
class Scope:
    """Whose data a statement may touch: one user inside one tenant (app)."""

    tenant: str
    user_id: str


def scope_params(scope: Scope) -> dict[str, str]:
    """The $tenant and $user_id parameters every statement on a user's data filters on."""
    return {"tenant": scope.tenant, "user_id": scope.user_id}


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a memory came from. The device is provenance, never part of identity."""

    session_id: str | None = None
    turn: int | None = None
    device_id: str | None = None
    episode_id: str | None = None


@dataclass(frozen=True, slots=True)
class WeightParts:
    """The three parts of a memory's weight and the final weight computed from them."""

    passive: float
    active: float
    preset: float
    final: float


@dataclass(frozen=True, slots=True)
class Memory:
    """A stored memory as read back from the graph (embedding left out)."""

    id: str
    tenant: str
    user_id: str
    text: str
    type: MemoryType
    tier: Tier
    weight: WeightParts
    preset_kind: PresetKind
    locked: bool
    created_at: datetime
    last_recalled_at: datetime | None
    last_mentioned_at: datetime | None
    recall_count: int
    mention_count: int
    classified_by: ClassifierLevel
    confidence: float
    provenance: Provenance
    valid_from: datetime
    valid_to: datetime | None = None
    # The user's memory sequence number when it was stored (remember's counter): the order of storing, which
    # breaks a tie of times (a conversation sent at once, without times, is stamped with one). Not compared:
    # an import or a copy numbers the same memory anew.
    seq: int | None = field(default=None, compare=False)
    # The superseded memory whose uncontested facts this one keeps (bmam/usecases/remains.py), if any.
    remains_of: str | None = None
    # A memory's remains were said when it was: the sequence number of the memory first stored with what they
    # say (seq breaks a tie of times in that order, not in the order the remains happened to be stored).
    said_seq: int | None = field(default=None, compare=False)

    @property
    def said_order(self) -> int | None:
        """Where the memory stands in the order the user said things (said_seq, else seq)."""
        return self.said_seq if self.said_seq is not None else self.seq


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory about to be written: validated text, its type and where it came from."""

    id: str
    text: str
    type: MemoryType
    embedding: list[float]
    tier: Tier = Tier.TEMP
    preset_kind: PresetKind = PresetKind.DEFAULT
    preset: float = 0.5
    classified_by: ClassifierLevel = ClassifierLevel.USER
    confidence: float = 1.0
    provenance: Provenance = field(default_factory=Provenance)


@dataclass(frozen=True, slots=True)
class Entity:
    """A thing memories talk about: a person, place, food, organisation, the user themself."""

    id: str
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class Triple:
    """A semantic triple (subject, predicate, object) asserted by one memory.

    polarity is +1 for an affirmed statement and -1 for a negated one (我不吃辣 / I don't eat pork),
    so opposite polarity on the same object is visible as a conflict.
    """

    id: str
    subject: Entity
    predicate: str
    object: Entity
    memory_id: str
    polarity: int = 1
    created_at: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True, slots=True)
class Association:
    """A weighted, undirected association edge between two memories of one user."""

    memory_a: str
    memory_b: str
    strength: float


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """A memory with the relevance score a search gave it."""

    memory: Memory
    score: float


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a keyset-paginated listing; `next_cursor` is None on the last page."""

    items: list[Memory]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class ApiKey:
    """An API key of a tenant (an app), as stored: the secret itself is never kept, only its salted hash."""

    id: str
    tenant: str
    name: str
    prefix: str  # the non-secret start of the key ("bmam_<id>"), to recognise it in a list
    created_at: datetime
    revoked_at: datetime | None = None
    admin: bool = True  # may create, list and revoke the tenant's keys; an app key (False) may not


@dataclass(frozen=True, slots=True)
class ErasureReceipt:
    """What forgetUser removed for one (tenant, user), and the re-query proving nothing is left."""

    tenant: str
    user_id: str
    nodes_removed: int
    relationships_removed: int
    nodes_by_label: dict[str, int]
    relationships_by_type: dict[str, int]
    remaining_nodes: int
    remaining_relationships: int
    at: datetime

    @property
    def verified(self) -> bool:
        return self.remaining_nodes == 0 and self.remaining_relationships == 0
