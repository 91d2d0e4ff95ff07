"""Weighted association edges between memories of one user (undirected, one edge per pair)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graph.errors import BadInput, NotFound
from graph.model import Association, Scope
from graph.records import time_param
from graph.related import FormRequest, FormSettings
from graph.store import GraphStore, Tx


def form_many_in(tx: Tx, scope: Scope, settings: FormSettings, requests: Sequence[FormRequest]
                 ) -> list[list[Association]]:
    """graph/related.py RelatedRepository.form_many_in through association/form_many: the same edges and
    strengths, the term part's candidate memories read once per statement instead of once per memory."""
    if not requests:
        return []
    items = [{
        "memory_id": r.memory_id, "episode_id": r.episode_id, "episode_mates": list(r.episode_mates),
        "now": time_param(r.now), "terms": bool(r.han_terms or r.latin_terms), "han_terms": list(r.han_terms),
        "latin_terms": list(r.latin_terms), "lucene": r.lucene,
    } for r in requests]
    rows = tx.run("association/form_many", {
        "tenant": scope.tenant,
        "user_id": scope.user_id,
        "items": items,
        "same_episode": settings.same_episode,
        "entity_base": settings.traversal.entity_base,
        "max_degree": settings.traversal.max_degree,
        "per_entity": settings.per_entity,
        "term_base": settings.term_base,
        "max_df": settings.max_df,
        "scan_max": settings.scan_max,
        "limit": settings.limit,
        "min_memories": settings.min_memories,
    })
    return [[Association(memory_a=a["memory_a"], memory_b=a["memory_b"], strength=float(a["strength"]))
             for a in (*r["by_form"], *r["by_terms"])] for r in rows]


class AssociationRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def associate(self, scope: Scope, memory_a: str, memory_b: str, strength: float, *, now: datetime) -> Association:
        if memory_a == memory_b:
            raise BadInput("a memory cannot be associated with itself", field="memoryB")
        low, high = sorted((memory_a, memory_b))
        rows = self._store.write(
            "association/associate",
            {"tenant": scope.tenant, "user_id": scope.user_id, "low_id": low, "high_id": high,
             "strength": strength, "now": now},
        )
        if not rows:
            raise NotFound("one or both memories not found")
        row = rows[0]
        return Association(memory_a=row["memory_a"], memory_b=row["memory_b"], strength=float(row["strength"]))

    def for_memory(self, scope: Scope, memory_id: str, *, limit: int = 50) -> list[Association]:
        rows = self._store.read(
            "association/for_memory",
            {"tenant": scope.tenant, "user_id": scope.user_id, "memory_id": memory_id, "limit": limit},
        )
        return [Association(memory_a=r["memory_a"], memory_b=r["memory_b"], strength=float(r["strength"]))
                for r in rows]
