"""Service-wide counts for monitoring (no tenant data: numbers only)."""

from __future__ import annotations

from graph.store import GraphStore


def memories_by_tier(store: GraphStore) -> dict[str, int]:
    return {str(r["tier"]): int(r["n"]) for r in store.read("meta/memories_by_tier")}
