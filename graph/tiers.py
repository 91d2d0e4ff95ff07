"""Tier state in Neo4j: read what the tier rules decide on, apply their decisions (ingest/tier_policy.py
decides; this module only runs the statements), always inside the caller's transaction and always
after taking the user's lock, so capacities hold under concurrent writers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.memories import WeightShares
from graph.model import Memory, MemoryType, PresetKind, Scope, Tier, WeightParts, scope_params
from graph.records import memory_from_row, time_param, to_datetime
from graph.store import Tx


def tier_counts(rows: Sequence[dict[str, Any]]) -> dict[Tier, int]:
    """Memories per tier from rows {tier, n} (tier/counts), every tier present."""
    found = {Tier(r["tier"]): int(r["n"]) for r in rows if r["tier"]}
    return {t: found.get(t, 0) for t in Tier}


@dataclass(frozen=True, slots=True)
class TierMemory:
    """What the tier rules look at for one memory. weight is as stored: as of decayed_at, when the stored
    parts were last decayed (ingest/tier_policy.py brings it to now from parts, type and decayed_at)."""

    id: str
    tier: Tier
    locked: bool
    weight: float
    last_mentioned_at: datetime | None
    created_at: datetime
    preset_kind: PresetKind = PresetKind.DEFAULT
    mention_count: int = 1
    memory_type: MemoryType = MemoryType.FACTUAL
    parts: WeightParts | None = None  # None: not read (the weight is taken as it is)
    decayed_at: datetime | None = None
    superseded: bool = False  # valid_to set: the loser of a resolved conflict, kept as history
    in_open_conflict: bool = False  # held for review: one side of an OPEN conflict
    # the winner of a conflict with a mid or core memory: the user's current word on something kept
    succeeds_kept: bool = False
    tier_since: datetime | None = None  # when it entered its tier (None: not recorded, read as ever)
    durable: bool = False  # it states a live triple with one of the durable predicates asked for (tier/memories)
    last_recalled_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class MemoryUpdate:
    """One memory's change: a new tier (or None), mentions to add, the mention time, active feedback."""

    id: str
    tier: Tier | None = None
    mentions: int = 0
    mentioned_at: datetime | None = None
    active_delta: float = 0.0
    moved_at: datetime | None = None  # when a tier move happens (None: at the mention, mentioned_at)


def tier_memory_from_row(row: dict[str, Any]) -> TierMemory:
    created = to_datetime(row["created_at"])
    if created is None:
        raise ValueError(f"memory {row['id']} has no created_at")
    weight = float(row.get("weight") or 0.0)
    parts = None
    if row.get("passive") is not None:
        parts = WeightParts(passive=float(row["passive"]), active=float(row.get("active") or 0.0),
                            preset=float(row.get("preset") or 0.0), final=weight)
    return TierMemory(
        id=row["id"],
        tier=Tier(row["tier"]),
        locked=bool(row.get("locked")),
        weight=weight,
        last_mentioned_at=to_datetime(row.get("last_mentioned_at")),
        created_at=created,
        preset_kind=PresetKind(row.get("preset_kind") or PresetKind.DEFAULT),
        mention_count=int(row.get("mention_count") or 0),
        memory_type=MemoryType(row.get("type") or MemoryType.FACTUAL),
        parts=parts,
        decayed_at=to_datetime(row.get("decayed_at")) or created,
        superseded=bool(row.get("superseded")),
        in_open_conflict=bool(row.get("in_open_conflict")),
        succeeds_kept=bool(row.get("succeeds_kept")),
        tier_since=to_datetime(row.get("tier_since")),
        durable=bool(row.get("durable")),
        last_recalled_at=to_datetime(row.get("last_recalled_at")),
    )


class TierRepository:
    def __init__(self, shares: WeightShares) -> None:
        self._shares = shares

    def lock_user(self, tx: Tx, scope: Scope, *, now: datetime) -> None:
        """Hold the user's write lock until the transaction ends (creates the user when missing)."""
        tx.run("tier/lock_user", {**scope_params(scope), "now": now})

    def lock_known_user(self, tx: Tx, scope: Scope) -> bool:
        """Hold the user's write lock until the transaction ends, when the user exists (False: unknown, and
        nothing was created)."""
        return bool(tx.run("tier/lock_known_user", scope_params(scope)))

    def counts(self, tx: Tx, scope: Scope) -> dict[Tier, int]:
        return tier_counts(tx.run("tier/counts", scope_params(scope)))

    def memories(self, tx: Tx, scope: Scope, tiers: Sequence[Tier],
                 durable_predicates: Iterable[str] | None = None) -> list[TierMemory]:
        """The tier state of the user's memories in these tiers. With durable_predicates (the sweep) also what only
        staleness looks at: succeeds_kept, and durable (a live triple with one of them); without (capacity), both
        false and not read."""
        rows = tx.run("tier/memories", {**scope_params(scope), "tiers": [t.value for t in tiers],
                                        "durable_predicates": None if durable_predicates is None
                                        else sorted(durable_predicates)})
        return [tier_memory_from_row(r) for r in rows]

    def get(self, tx: Tx, scope: Scope, memory_id: str) -> TierMemory | None:
        rows = tx.run("tier/get", {**scope_params(scope), "id": memory_id})
        return tier_memory_from_row(rows[0]) if rows else None

    def update(self, tx: Tx, scope: Scope, updates: Sequence[MemoryUpdate]) -> dict[str, tuple[Tier, Tier]]:
        """Apply the updates; returns id -> (tier before, tier after) for the memories found."""
        if not updates:
            return {}
        rows = tx.run("tier/update", {**scope_params(scope), **self.update_params(updates)})[0]["rows"]
        return {r["id"]: (Tier(r["before"]), Tier(r["tier"])) for r in rows}

    def update_params(self, updates: Sequence[MemoryUpdate]) -> dict[str, Any]:
        """tier/update's parameters but the user's, for a statement that includes it (episode/batch_end)."""
        return {
            "passive_share": self._shares.passive,
            "active_share": self._shares.active,
            "preset_share": self._shares.preset,
            "updates": [
                {"id": u.id, "tier": u.tier.value if u.tier else None, "mentions": u.mentions,
                 "mentioned_at": time_param(u.mentioned_at), "moved_at": time_param(u.moved_at),
                 "active_delta": float(u.active_delta)}
                for u in updates
            ],
        }

    def delete(self, tx: Tx, scope: Scope, ids: Sequence[str]) -> list[str]:
        """Delete unlocked memories (with their triples and edges); returns the ids deleted."""
        if not ids:
            return []
        return [r["id"] for r in tx.run("tier/delete", {**scope_params(scope), "ids": list(ids)})]

    def unlock(self, tx: Tx, scope: Scope, memory_id: str, *, now: datetime) -> bool:
        """core -> mid, unlocked (the user's explicit mutation); its weight decays again from now."""
        return bool(tx.run("tier/unlock", {**scope_params(scope), "id": memory_id, "now": now}))

    def memory(self, tx: Tx, scope: Scope, memory_id: str) -> Memory | None:
        """The memory as stored now (inside the transaction that changed it)."""
        rows = tx.run("memory/get", {**scope_params(scope), "id": memory_id})
        return memory_from_row(rows[0]["memory"]) if rows else None
