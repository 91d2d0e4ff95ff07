"""Weighted association edges between memories of one user (undirected, one edge per pair)."""

from __future__ import annotations

from datetime import datetime

from graph.errors import BadInput, Conflict, NotFound
from graph.model import Association, Scope
from graph.store import GraphStore


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
        if row["superseded"]:
            # History is not linked: the edge would be invisible (listings, relatedSearch) yet kept.
            names = ", ".join(row["superseded"])
            raise Conflict(f"memory {names} is superseded (history): associate the memory that replaced it")
        return Association(memory_a=row["memory_a"], memory_b=row["memory_b"], strength=float(row["strength"]))

    def dissociate(self, scope: Scope, memory_a: str, memory_b: str) -> bool:
        """Remove the pair's association edge; False when there was none. NotFound when either memory is not
        the user's."""
        if memory_a == memory_b:
            raise BadInput("a memory is never associated with itself", field="memoryB")
        low, high = sorted((memory_a, memory_b))
        rows = self._store.write("association/dissociate", {"tenant": scope.tenant, "user_id": scope.user_id,
                                                            "low_id": low, "high_id": high})
        if not rows:
            raise NotFound("one or both memories not found")
        return int(rows[0]["removed"]) > 0

    def for_memory(self, scope: Scope, memory_id: str, *, limit: int = 50) -> list[Association]:
        rows = self._store.read(
            "association/for_memory",
            {"tenant": scope.tenant, "user_id": scope.user_id, "memory_id": memory_id, "limit": limit},
        )
        return [Association(memory_a=r["memory_a"], memory_b=r["memory_b"], strength=float(r["strength"]))
                for r in rows]
