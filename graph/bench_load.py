"""Bench only (bench/recall_latency.py): bulk-load synthetic memories, entity mentions and associations of
one user with UNWIND batches (cypher/bench/*), and delete them again. The service never calls this."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.model import Scope
from graph.scope_token import scope_token
from graph.store import GraphStore
from graph.text_key import text_key


class BenchLoader:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def memories(self, scope: Scope, rows: Sequence[dict[str, Any]], *, now: datetime) -> int:
        """rows: {id, text, created_at, session_id, embedding}."""
        keyed = [{**r, "text_key": text_key(r["text"])} for r in rows]
        found = self._store.write("bench/load_memories", {"tenant": scope.tenant, "user_id": scope.user_id,
                                                          "scope_token": scope_token(scope.tenant, scope.user_id),
                                                          "rows": keyed, "now": now})
        return int(found[0]["loaded"]) if found else 0

    def links(self, scope: Scope, mentions: Sequence[dict[str, Any]], pairs: Sequence[dict[str, Any]], *,
              now: datetime) -> None:
        """mentions: {memory_id, entity_id, name}; pairs: {low, high, strength}."""
        self._store.write("bench/load_links", {"tenant": scope.tenant, "user_id": scope.user_id,
                                               "mentions": list(mentions), "pairs": list(pairs), "now": now})

    def delete_user(self, scope: Scope, *, batch: int = 5000) -> int:
        """Delete everything of one bench user, a batch per transaction; how many nodes went."""
        total = 0
        while True:
            rows = self._store.write("bench/delete_user", {"tenant": scope.tenant, "user_id": scope.user_id,
                                                           "batch": batch})
            deleted = int(rows[0]["deleted"]) if rows else 0
            total += deleted
            if deleted == 0:
                return total
