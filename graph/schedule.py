"""When each scheduled maintenance job last ran, kept in Neo4j as (:MaintenanceSchedule {name, kind, last_run})
(cypher/maintenance/schedule_*): the schedule survives restarts, and of several workers of one deployment
(uvicorn --workers, several hosts) exactly one runs each due job."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from graph.records import time_param, to_datetime
from graph.store import GraphStore, Tx


@dataclass(frozen=True, slots=True)
class Claim:
    """A run of a job this worker claimed: when, and when the job ran before (None: never)."""

    kind: str
    at: datetime
    previous: datetime | None


class ScheduleRepository:
    def __init__(self, store: GraphStore, name: str = "server") -> None:
        self._store = store
        self._name = name  # one schedule per deployment; tests use names of their own

    def claim(self, kind: str, *, now: datetime, period: timedelta, run_new: bool) -> Claim | None:
        """The run of `kind` due at `now` (last run at least `period` ago), for this worker only; None when it
        is not due or another worker has it. A job never seen before counts as run now unless run_new."""
        params = {"name": self._name, "kind": kind, "now": time_param(now), "run_new": run_new,
                  "due_before": time_param(now - period)}

        def work(tx: Tx) -> Claim | None:
            tx.run("maintenance/schedule_lock", params)
            rows = tx.run("maintenance/schedule_claim", params)
            return Claim(kind=kind, at=now, previous=to_datetime(rows[0]["previous"])) if rows else None

        return self._store.write_tx(work)

    def release(self, claim: Claim) -> None:
        """The claimed run did not happen (its job failed): due again at the next tick."""
        self._store.write("maintenance/schedule_release", {
            "name": self._name, "kind": claim.kind, "claimed_at": time_param(claim.at),
            "previous": time_param(claim.previous)})
