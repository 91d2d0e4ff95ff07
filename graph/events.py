"""The shared event log (cypher/events/*): memory events carried between the processes that serve one store,
numbered in commit order, named by the user's scope token only, and kept minutes, not forever."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from graph.store import GraphStore


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """One event as the log holds it: `scope` is the user's scope token (graph/scope_token.py)."""

    scope: str
    kind: str
    memory_id: str
    at: str  # ISO 8601, as published
    detail: dict[str, str] = field(default_factory=dict)
    seq: int = 0  # its number in the log (0 until appended)


@dataclass(frozen=True, slots=True)
class LogPage:
    head: int  # the last seq committed when read
    events: list[LoggedEvent]


class EventLog:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def append(self, origin: str, events: Sequence[LoggedEvent], *, now: datetime) -> int:
        """Append events in order (one transaction); the log's head after them (0 when none given)."""
        if not events:
            return 0
        rows = self._store.write("events/append", {"origin": origin, "now": now, "events": [
            {"scope": e.scope, "kind": e.kind, "memory_id": e.memory_id, "at": e.at,
             "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True)} for e in events]})
        return int(rows[0]["head"])

    def after(self, seq: int, *, origin: str, scopes: Sequence[str], limit: int) -> LogPage:
        """The head, and the events after seq of these scopes that another origin appended, oldest first."""
        [row] = self._store.read("events/after", {"after": seq, "origin": origin, "scopes": list(scopes),
                                                   "limit": limit})
        return LogPage(head=int(row["head"]), events=[
            LoggedEvent(scope=e["scope"], kind=e["kind"], memory_id=e["memory_id"], at=e["at"],
                        detail=json.loads(e["detail"]), seq=int(e["seq"])) for e in row["events"]])

    def prune(self, before: datetime, *, batch: int = 10_000) -> int:
        """Drop events logged before `before` (at most batch a call); how many went."""
        return int(self._store.write("events/prune", {"before": before, "batch": batch})[0]["pruned"])

    def forget_scope(self, scope: str, *, timeout_s: float | None = None) -> int:
        """Drop every event of one user (forgetUser); how many went."""
        return int(self._store.write("events/forget_scope", {"scope": scope}, timeout_s=timeout_s)[0]["forgotten"])
