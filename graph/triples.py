"""Semantic triples between entities, each tied to the memory that asserts it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.errors import Conflict, NotFound
from graph.ids import entity_id, triple_id
from graph.model import Scope, Triple
from graph.records import time_param, triple_from_row
from graph.store import GraphStore, Tx


@dataclass(frozen=True, slots=True)
class TripleSpec:
    """A triple about to be written: names and kinds (entities are derived from them) and its memory."""

    memory_id: str
    subject: str
    subject_kind: str
    predicate: str
    object: str
    object_kind: str
    polarity: int
    now: datetime


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
        spec = TripleSpec(memory_id=memory_id, subject=subject, subject_kind=subject_kind, predicate=predicate,
                          object=object_, object_kind=object_kind, polarity=polarity, now=now)
        return self._store.write_tx(lambda tx: self.add_many_in(tx, scope, [spec]))[0]

    def add_many_in(self, tx: Tx, scope: Scope, specs: Sequence[TripleSpec]) -> list[Triple]:
        """Add several triples inside the caller's transaction (ingest writes a turn's triples with its
        memory), in order; NotFound when a memory is missing or foreign, Conflict when one is superseded."""
        if not specs:
            return []
        rows = []
        for spec in specs:
            subject_id = entity_id(scope, spec.subject_kind, spec.subject)
            object_id = entity_id(scope, spec.object_kind, spec.object)
            rows.append({
                "memory_id": spec.memory_id,
                "subject_id": subject_id,
                "subject_name": spec.subject,
                "subject_kind": spec.subject_kind,
                "object_id": object_id,
                "object_name": spec.object,
                "object_kind": spec.object_kind,
                "predicate": spec.predicate,
                "polarity": spec.polarity,
                "triple_id": triple_id(scope, spec.memory_id, subject_id, spec.predicate, object_id),
                "now": time_param(spec.now),
            })
        found = tx.run("triple/add", {"tenant": scope.tenant, "user_id": scope.user_id, "rows": rows})[0]["rows"]
        if history := sorted({str(r["memory_id"]) for r in found if r.get("history")}):
            raise Conflict(f"memory {', '.join(history)} is superseded (history, validTo set): add the triple to the "
                           "memory that replaced it")
        by_id = {r["id"]: triple_from_row(r) for r in found}
        out = []
        for row in rows:
            triple = by_id.get(str(row["triple_id"]))
            if triple is None:
                raise NotFound(f"memory {row['memory_id']} not found")
            out.append(triple)
        return out

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
