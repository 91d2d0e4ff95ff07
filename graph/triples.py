"""Semantic triples between entities, each tied to the memory that asserts it."""

from __future__ import annotations

from datetime import datetime

from graph.errors import NotFound
from graph.ids import entity_id, triple_id
from graph.model import Scope, Triple
from graph.records import triple_from_row
from graph.store import GraphStore


class TripleRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def add(
        self,
        scope: Scope,
        *,
        memory_id: str,
        subject: str,
        subject_kind: str,
        predicate: str,
        object_: str,
        object_kind: str,
        polarity: int,
        now: datetime,
    ) -> Triple:
        subject_id = entity_id(scope, subject_kind, subject)
        object_id = entity_id(scope, object_kind, object_)
        params = {
            "tenant": scope.tenant,
            "user_id": scope.user_id,
            "memory_id": memory_id,
            "subject_id": subject_id,
            "subject_name": subject,
            "subject_kind": subject_kind,
            "object_id": object_id,
            "object_name": object_,
            "object_kind": object_kind,
            "predicate": predicate,
            "polarity": polarity,
            "triple_id": triple_id(scope, memory_id, subject_id, predicate, object_id),
            "now": now,
        }
        rows = self._store.write("triple/add", params)
        if not rows:
            raise NotFound(f"memory {memory_id} not found")
        return triple_from_row(rows[0])

    def for_memory(self, scope: Scope, memory_id: str) -> list[Triple]:
        rows = self._store.read(
            "triple/for_memory", {"tenant": scope.tenant, "user_id": scope.user_id, "memory_id": memory_id}
        )
        return [triple_from_row(r) for r in rows]

    def for_user(self, scope: Scope, *, entity: str | None = None, limit: int = 100) -> list[Triple]:
        rows = self._store.read(
            "triple/for_user",
            {"tenant": scope.tenant, "user_id": scope.user_id, "entity": entity, "limit": limit},
        )
        return [triple_from_row(r) for r in rows]
