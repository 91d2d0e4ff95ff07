"""Service health for monitoring: whether the store serves (/healthz) and its memories per tier (/metrics).
Service-level, no tenant data: names and counts only."""

from __future__ import annotations

from dataclasses import dataclass

from graph.migrations import index_states, missing_migrations
from graph.stats import memories_by_tier
from graph.store import GraphStore


@dataclass(frozen=True, slots=True)
class HealthReport:
    neo4j: bool  # Neo4j answered
    pending_migrations: list[str]  # schema files and data steps not yet applied
    indexes_not_online: list[str]

    @property
    def ok(self) -> bool:
        return self.neo4j and not self.pending_migrations and not self.indexes_not_online


class Health:
    """Reads of the whole store that say whether this service can serve."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def check(self) -> HealthReport:
        """Neo4j reachable, every migration applied and every index ONLINE (a probe: never raises)."""
        if not self._store.ping():
            return HealthReport(neo4j=False, pending_migrations=[], indexes_not_online=[])
        pending: list[str] = []
        try:
            pending = missing_migrations(self._store)
            states = index_states(self._store)
        except Exception:  # the store went away between the calls
            return HealthReport(neo4j=False, pending_migrations=pending, indexes_not_online=[])
        not_online = sorted(name for name, state in states.items() if state != "ONLINE")
        return HealthReport(neo4j=True, pending_migrations=pending, indexes_not_online=not_online)

    def memories_by_tier(self) -> dict[str, int]:
        """Memories of every tenant per tier (numbers only)."""
        return memories_by_tier(self._store)
