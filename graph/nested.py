"""Batched reads behind nested GraphQL fields (Memory.triples, Memory.associated): one query for many
memories of one user, so a page of memories never costs a query per memory (no N+1)."""

from __future__ import annotations

from collections.abc import Sequence

from graph.model import Memory, Scope, Triple
from graph.records import memory_from_row, triple_from_row
from graph.store import GraphStore


class NestedReads:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def triples(self, scope: Scope, memory_ids: Sequence[str]) -> dict[str, list[Triple]]:
        rows = self._store.read(
            "nested/triples",
            {"tenant": scope.tenant, "user_id": scope.user_id, "memory_ids": list(memory_ids)},
        )
        found: dict[str, list[Triple]] = {m: [] for m in memory_ids}
        for row in rows:
            found[row["memory_id"]].append(triple_from_row({**row, "memory_id": row["memory_id_of_triple"]}))
        return found

    def associated(
        self, scope: Scope, memory_ids: Sequence[str], *, limit: int
    ) -> dict[str, list[tuple[Memory, float]]]:
        rows = self._store.read(
            "nested/associated",
            {"tenant": scope.tenant, "user_id": scope.user_id, "memory_ids": list(memory_ids), "limit": limit},
        )
        found: dict[str, list[tuple[Memory, float]]] = {m: [] for m in memory_ids}
        for row in rows:
            found[row["memory_id"]].append((memory_from_row(row["memory"]), float(row["strength"])))
        return found
