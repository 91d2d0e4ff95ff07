"""Erasure of one user inside one tenant: every node and relationship stamped with (tenant, user_id)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from graph.cypher_library import ERASURE_LABELS
from graph.events import EventLog
from graph.model import Scope
from graph.scope_token import scope_token
from graph.store import GraphStore


@dataclass
class ErasureTally:
    nodes: int = 0
    relationships: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    # (nodes, relationships) of the scope found by a re-query after the last deletion: the receipt's proof
    remaining: tuple[int, int] = (0, 0)

    def add_batch(self, row: dict[str, Any]) -> int:
        """Count one batch's removals; the number removed (0 means the batch found nothing)."""
        nodes = int(row.get("nodes") or 0)
        rel_types = [str(t) for t in row.get("rel_types") or []]
        self.nodes += nodes
        self.relationships += len(rel_types)
        self.labels.update(str(label) for label in row.get("node_labels") or [])
        self.types.update(rel_types)
        return nodes + len(rel_types)


class ErasureRepository:
    def __init__(self, store: GraphStore, *, batch_size: int = 1000, timeout_s: float | None = None) -> None:
        self._store = store
        self._batch = batch_size
        self._timeout_s = timeout_s  # of each statement (None: the store's): the proof scans the whole store

    def erase(self, scope: Scope) -> ErasureTally:
        """Delete everything of the scope in batches (each its own transaction, so a large user never
        hits the transaction timeout); repeat until a batch finds nothing. The label-free sweeps scan every
        node and relationship of the store (seconds at a million memories), so they run only when the
        re-query after the indexed sweeps finds something left (a label outside ERASURE_LABELS); that
        re-query, or the one after them, is the tally's `remaining`. The shared event log, which names the user by
        scope token, is swept by forget_events, once whatever could still append to it was told (the caller's)."""
        tally = ErasureTally()
        params = {"tenant": scope.tenant, "user_id": scope.user_id, "batch": self._batch}
        for label in ERASURE_LABELS:
            while tally.add_batch(self._store.write("erasure/batch_label", params, timeout_s=self._timeout_s,
                                                    label=label)[0]):
                pass
        tally.remaining = self.remaining(scope)
        if tally.remaining == (0, 0):
            return tally
        while tally.add_batch(self._store.write("erasure/batch_any", params, timeout_s=self._timeout_s)[0]):
            pass
        while True:
            row = self._store.write("erasure/batch_relationships", params, timeout_s=self._timeout_s)[0]
            removed = int(row["relationships"])
            if not removed:
                break
            tally.relationships += removed
            tally.types.update(str(t) for t in row["rel_types"])
        tally.remaining = self.remaining(scope)
        return tally

    def forget_events(self, scope: Scope, tally: ErasureTally) -> None:
        """Sweep the user's events from the shared event log, which names the user by scope token, not (tenant,
        user_id); counted in the tally."""
        forgotten = EventLog(self._store).forget_scope(scope_token(scope.tenant, scope.user_id),
                                                       timeout_s=self._timeout_s)
        if forgotten:
            tally.nodes += forgotten
            tally.labels["MemoryEvent"] += forgotten

    def remaining(self, scope: Scope) -> tuple[int, int]:
        """(nodes, relationships) still stamped with the scope: the receipt's proof."""
        row = self._store.read("erasure/remaining", {"tenant": scope.tenant, "user_id": scope.user_id},
                               timeout_s=self._timeout_s)[0]
        return int(row["nodes"]), int(row["relationships"])

    def tenant_user_nodes(self, tenant: str) -> int:
        """How many user-data nodes a tenant has (any user): for isolation checks."""
        rows = self._store.read("erasure/tenant_user_nodes", {"tenant": tenant}, timeout_s=self._timeout_s)
        return int(rows[0]["nodes"])
