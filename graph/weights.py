"""Weight updates in the store: decay, feedback and recall, each atomic in Cypher (cypher/weights/*).

Every update runs in one write transaction: lock the memories (weights/lock), bring their parts up to now
(weights/decay), then apply the change with the weight recomputed in the same SET. Nothing is read into
Python and written back, so concurrent updates never lose one another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.model import Memory, Scope, scope_params
from graph.records import memory_from_row, present_props
from graph.store import GraphStore, Tx


@dataclass(frozen=True, slots=True)
class DecayedMemory:
    """A memory decay changed: its id, its properties before (embedding left out) and its new weight."""

    id: str
    before: dict[str, Any]
    weight: float


def lock(tx: Tx, scope: Scope, ids: Sequence[str]) -> dict[str, bool]:
    """Write-lock memories of one user for the rest of the transaction; id -> locked flag of those found."""
    rows = tx.run("weights/lock", {**scope_params(scope), "ids": list(ids)})
    return {r["id"]: bool(r["locked"]) for r in rows}


def decay(tx: Tx, scope: Scope, params: Mapping[str, float], now: datetime, *, ids: Sequence[str] | None = None,
          with_before: bool = True) -> list[DecayedMemory]:
    """Decay memories of one user to `now` inside a transaction (all of them when ids is None); locked ones are
    write-locked with the rest but do not decay (weights/decay).
    with_before=False leaves each one's before-image out (empty): recall has no use for it, and reading
    its timestamps back costs ~1.5 ms a recall."""
    if ids is None:
        ids = [r["id"] for r in tx.run("weights/user_memory_ids", scope_params(scope))]
    rows = tx.run("weights/decay", {**scope_params(scope), **params, "ids": list(dict.fromkeys(ids)), "now": now,
                                     "with_before": with_before})
    return [DecayedMemory(id=r["id"], before=present_props(r["before"] or {}), weight=float(r["weight"])) for r in rows]


class WeightRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def adjust_active(self, scope: Scope, memory_id: str, delta: float, params: Mapping[str, float],
                      now: datetime, *, count: int = 1) -> Memory | None:
        """Decay to now, then active += delta (clamped), weight recomputed; None when no such memory. A superseded
        memory (history, valid_to set) is returned as it is, unchanged: the caller refuses feedback on it."""

        def work(tx: Tx) -> Memory | None:
            if not lock(tx, scope, [memory_id]):
                return None
            current = tx.run("memory/get", {**scope_params(scope), "id": memory_id})
            if current and (stored := memory_from_row(current[0]["memory"])).valid_to is not None:
                return stored
            decay(tx, scope, params, now, ids=[memory_id])
            rows = tx.run("weights/adjust_active", {**scope_params(scope), **params, "id": memory_id, "delta": delta,
                                                    "count": count, "now": now})
            return memory_from_row(rows[0]["memory"]) if rows else None

        return self._store.write_tx(work)

    def decay_user(self, scope: Scope, params: Mapping[str, float], now: datetime, *,
                   ids: Sequence[str] | None = None) -> list[DecayedMemory]:
        """Lazily bring memories up to now (all the user's memories when ids is None)."""

        def work(tx: Tx) -> list[DecayedMemory]:
            if ids is not None:
                lock(tx, scope, ids)
            return decay(tx, scope, params, now, ids=ids)

        return self._store.write_tx(work)

    def record_recall(self, scope: Scope, ids: Sequence[str], params: Mapping[str, float], recall_boost: float,
                      now: datetime) -> dict[str, float]:
        """passive + 0.1 per recall (after decaying to now), atomically; id -> new weight."""

        def work(tx: Tx) -> dict[str, float]:
            lock(tx, scope, ids)
            decay(tx, scope, params, now, ids=ids)
            rows = tx.run("weights/recalled", {**scope_params(scope), **params, "ids": list(ids),
                                               "recall_boost": recall_boost, "now": now})
            return {r["id"]: float(r["weight"]) for r in rows}

        return self._store.write_tx(work)
