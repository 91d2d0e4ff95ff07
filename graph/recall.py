"""Recall's reads and writes (cypher/recall/*): candidates from the vector and full-text indexes, one hop
of graph expansion, and the usage update of the recalled memories, all inside the caller's transaction
so recall reads its final results and records their use atomically."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from graph.memories import WeightShares
from graph.model import Memory, MemoryType, Scope, Tier
from graph.records import memory_from_row
from graph.related import TraversalParams
from graph.store import GraphStore, Tx

T = TypeVar("T")


def cosine_of(score: float | None) -> float | None:
    """Neo4j's vector functions answer (1 + cos) / 2; recall thinks in plain cosines."""
    return None if score is None else 2.0 * float(score) - 1.0


@dataclass(frozen=True, slots=True)
class RecallFilters:
    """Which memories recall may see. Live memories only, unless include_history (superseded too) or
    as_of (those valid at that instant)."""

    types: Sequence[MemoryType] | None = None
    tiers: Sequence[Tier] | None = None
    include_history: bool = False
    as_of: datetime | None = None

    def params(self) -> dict[str, Any]:
        return {
            "types": [t.value for t in self.types] if self.types else None,
            "tiers": [t.value for t in self.tiers] if self.tiers else None,
            "include_history": self.include_history,
            "as_of": self.as_of,
        }


@dataclass(frozen=True, slots=True)
class RetrievalLimits:
    """How many candidates each stage reads, and when the exact scan beats the vector index."""

    k_dense: int = 30
    k_text: int = 30
    exact_max: int = 300
    exact_per_candidate: float = 8.0
    oversample: float = 1.5
    max_candidates: int = 2000


@dataclass(frozen=True, slots=True)
class Found:
    """A candidate memory as recall scores it: a compact row, not the whole memory (recall reads the
    full memories of the ones it returns in recall/touch)."""

    id: str
    text: str
    weight: float
    seen_ms: int  # when the memory was last mentioned (or created), epoch milliseconds
    entities: tuple[str, ...] = ()  # names of the entities the memory mentions


@dataclass(frozen=True, slots=True)
class DenseHit:
    memory: Found
    cosine: float
    rank: int


@dataclass(frozen=True, slots=True)
class TextHit:
    memory: Found
    score: float
    cosine: float | None
    rank: int


@dataclass(frozen=True, slots=True)
class CandidateSet:
    user_memories: int  # how many memories the user has (0 when the user is unknown)
    dense: list[DenseHit]
    text: list[TextHit]


@dataclass(frozen=True, slots=True)
class Neighbour:
    seed_id: str
    memory: Found
    strength: float
    via: str  # ASSOCIATED or ENTITY
    entity: str | None
    cosine: float | None


class RecallRepository:
    def __init__(self, store: GraphStore, vector_dimensions: int) -> None:
        self._store = store
        self._dimensions = vector_dimensions

    def write(self, work: Callable[[Tx], T]) -> T:
        """Run recall's statements in one write transaction (the read of the results and their usage)."""
        return self._store.write_tx(work)

    def read(self, work: Callable[[Tx], T]) -> T:
        return self._store.read_tx(work)

    def candidates(
        self,
        tx: Tx,
        scope: Scope,
        embedding: Sequence[float],
        query_terms: Sequence[str],
        lucene: str | None,
        filters: RecallFilters,
        limits: RetrievalLimits,
    ) -> CandidateSet:
        """Dense and full-text candidates. query_terms are matched as substrings for a small user (exact
        path), lucene is the full-text index query for a large one."""
        params = {
            **_scope(scope),
            **filters.params(),
            "embedding": list(embedding),
            "terms": list(query_terms),
            "lucene": lucene,
            "k_dense": limits.k_dense,
            "k_text": limits.k_text,
            "exact_max": limits.exact_max,
            "exact_per_candidate": limits.exact_per_candidate,
            "oversample": limits.oversample,
            "max_candidates": limits.max_candidates,
        }
        rows = tx.run("recall/candidates", params, dimensions=self._dimensions)
        if not rows:
            return CandidateSet(user_memories=0, dense=[], text=[])
        row = rows[0]
        dense = [
            DenseHit(memory=_found(d), cosine=float(cosine_of(d["sim"]) or 0.0), rank=i + 1)
            for i, d in enumerate(sorted(row["dense"], key=lambda d: (-float(d["sim"]), d["id"])))
        ]
        text = [
            TextHit(memory=_found(t), score=float(t["score"]), cosine=cosine_of(t["sim"]), rank=i + 1)
            for i, t in enumerate(row["text"])
        ]
        return CandidateSet(user_memories=int(row["mine"]), dense=dense, text=text)

    def expand(
        self,
        tx: Tx,
        scope: Scope,
        seeds: Sequence[str],
        embedding: Sequence[float],
        filters: RecallFilters,
        *,
        min_strength: float,
        hop: TraversalParams,
        per_seed: int,
    ) -> list[Neighbour]:
        if not seeds:
            return []
        params = {
            **_scope(scope),
            **filters.params(),
            "seeds": list(seeds),
            "embedding": list(embedding),
            "min_strength": min_strength,
            "entity_base": hop.entity_base,
            "max_degree": hop.max_degree,
            "per_seed": per_seed,
        }
        return [
            Neighbour(seed_id=r["seed_id"], memory=_found(r), strength=float(r["strength"]), via=str(r["via"]),
                      entity=r["entity"], cosine=cosine_of(r["sim"]))
            for r in tx.run("recall/expand", params)
        ]

    def touch(
        self, tx: Tx, scope: Scope, ids: Sequence[str], *, now: datetime, boost: float, shares: WeightShares,
        pairs: Sequence[tuple[str, str]] = (), delta: float = 0.0,
    ) -> dict[str, Memory]:
        """The recalled memories as they are after this recall: recall_count + 1, last_recalled_at, passive
        + boost, weight recomputed; and the associations of the pairs recalled together + delta (one atomic
        statement)."""
        if not ids:
            return {}
        rows = tx.run("recall/touch", {
            **_scope(scope), "ids": list(ids), "now": now, "boost": boost,
            "passive_share": shares.passive, "active_share": shares.active, "preset_share": shares.preset,
            "pairs": [{"low": min(a, b), "high": max(a, b)} for a, b in pairs if a != b] if delta > 0 else [],
            "delta": delta,
        })
        memories = [memory_from_row(r["memory"]) for r in rows]
        return {m.id: m for m in memories}


def _found(row: dict[str, Any]) -> Found:
    return Found(id=row["id"], text=row["text"], weight=float(row.get("weight") or 0.0), seen_ms=int(row["seen"]),
                 entities=tuple(row.get("names") or ()))


def _scope(scope: Scope) -> dict[str, str]:
    return {"tenant": scope.tenant, "user_id": scope.user_id}
