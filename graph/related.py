"""Related search and association forming (cypher/related/*): the depth-bounded best-path traversal over
ASSOCIATED edges and shared entities, and the edges a newly stored memory gets by itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from graph.errors import NotFound
from graph.model import Association, Memory, Scope
from graph.records import memory_from_row
from graph.store import GraphStore

MIN_DEPTH = 1
MAX_DEPTH = 5  # the allow-list `depth` in graph/cypher_library.py; the statement has this many rounds


class Via(StrEnum):
    """How one memory reaches another: an association edge or a shared entity."""

    ASSOCIATED = "ASSOCIATED"
    ENTITY = "ENTITY"


@dataclass(frozen=True, slots=True)
class PathStep:
    from_id: str
    to_id: str
    via: Via
    strength: float
    entity: str | None = None  # the shared entity's name, for an ENTITY step


@dataclass(frozen=True, slots=True)
class RelatedMemory:
    memory: Memory
    score: float  # product of the strengths along path
    path: list[PathStep]


@dataclass(frozen=True, slots=True)
class TraversalParams:
    """Entity hops: min(1, entity_base / sqrt(mentions - 1)); no hop through an entity with more than
    max_degree mentions."""

    entity_base: float = 0.5
    max_degree: int = 50


class RelatedRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def search(
        self,
        scope: Scope,
        memory_id: str,
        *,
        depth: int,
        limit: int,
        min_strength: float,
        traversal: TraversalParams,
        include_history: bool = False,
    ) -> list[RelatedMemory]:
        """Best paths from memory_id; NotFound when it is not this user's memory. depth must already be
        validated: it is spliced (through the allow-list, which refuses anything outside 1..5)."""
        rows = self._store.read(
            "related/search",
            {
                "tenant": scope.tenant,
                "user_id": scope.user_id,
                "memory_id": memory_id,
                "limit": limit,
                "min_strength": min_strength,
                "entity_base": traversal.entity_base,
                "max_degree": traversal.max_degree,
                "include_history": include_history,
            },
            depth=depth,
        )
        if not rows:
            raise NotFound(f"memory {memory_id} not found")
        return [
            RelatedMemory(
                memory=memory_from_row(r["memory"]),
                score=float(r["score"]),
                path=[PathStep(from_id=s["from"], to_id=s["to"], via=Via(s["via"]), strength=float(s["strength"]),
                               entity=s.get("entity")) for s in r["path"]],
            )
            for r in rows[0]["results"]
        ]

    def form(
        self,
        scope: Scope,
        memory_id: str,
        *,
        episode_id: str | None,
        episode_mates: Sequence[str] = (),
        same_episode: float,
        traversal: TraversalParams,
        per_entity: int,
        now: datetime,
    ) -> list[Association]:
        """Associate a stored memory with its episode mates and the memories sharing its entities."""
        rows = self._store.write(
            "related/form",
            {
                "tenant": scope.tenant,
                "user_id": scope.user_id,
                "memory_id": memory_id,
                "episode_id": episode_id,
                "episode_mates": list(episode_mates),
                "same_episode": same_episode,
                "entity_base": traversal.entity_base,
                "max_degree": traversal.max_degree,
                "per_entity": per_entity,
                "now": now,
            },
        )
        return [Association(memory_a=r["memory_a"], memory_b=r["memory_b"], strength=float(r["strength"]))
                for r in rows]

    def form_by_terms(
        self,
        scope: Scope,
        memory_id: str,
        *,
        han_terms: Sequence[str],
        latin_terms: Sequence[str],
        lucene: str | None,
        term_base: float,
        max_df: int,
        scan_max: int,
        limit: int,
        min_memories: int,
        now: datetime,
    ) -> list[Association]:
        """Associate a stored memory with the memories sharing one of its rare terms (at most max_df others
        hold it): strength min(1, term_base / sqrt(df))."""
        if not han_terms and not latin_terms:
            return []
        rows = self._store.write(
            "related/form_terms",
            {
                "tenant": scope.tenant,
                "user_id": scope.user_id,
                "memory_id": memory_id,
                "han_terms": list(han_terms),
                "latin_terms": list(latin_terms),
                "lucene": lucene,
                "term_base": term_base,
                "max_df": max_df,
                "scan_max": scan_max,
                "limit": limit,
                "min_memories": min_memories,
                "now": now,
            },
        )
        return [Association(memory_a=r["memory_a"], memory_b=r["memory_b"], strength=float(r["strength"]))
                for r in rows]
