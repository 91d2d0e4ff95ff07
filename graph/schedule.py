"""When each scheduled maintenance job last ran, kept in Neo4j as (:MaintenanceSchedule {name, kind, last_run})
(cypher/maintenance/schedule_*): the schedule survives restarts, and of several workers of one deployment
(uvicorn --workers, several hosts) exactly one runs each due job.

A worker claims a due run as a lease (claimed_by, claimed_at, lease_until on the node) and last_run moves
only when it finishes: a worker killed mid-job (OOM, deploy, kill -9) leaves the run unfinished, and once
its lease runs out any worker claims it again, instead of the job skipping a whole period. While the job runs
its worker renews the lease (`renew`), so a run that outlives one lease is not claimed a second time."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from graph.records import time_param, to_datetime
from graph.store import GraphStore, Row, Tx


@dataclass(frozen=True, slots=True)
class Claim:
    """A run of a job this worker claimed: when (the job's last run once it finishes), held as `by` (the lease's
    end is on the node); `taken_from` names the claim before it when that one's lease ran out unfinished (its
    worker died, or overran the lease)."""

    kind: str
    at: datetime
    by: str
    taken_from: str | None = None


@dataclass(frozen=True, slots=True)
class JobState:
    """What the store holds for one job: its last finished run and the claim in progress, if any."""

    last_run: datetime | None
    claimed_by: str | None
    claimed_at: datetime | None
    lease_until: datetime | None


class ScheduleRepository:
    def __init__(self, store: GraphStore, name: str = "server", worker: str | None = None) -> None:
        self._store = store
        self._name = name  # one schedule per deployment; tests use names of their own
        # Who claims, for an operator reading the node (which host and process holds a run).
        self._worker = worker or f"{socket.gethostname()}:{os.getpid()}"

    def claim(self, kind: str, *, now: datetime, period: timedelta, run_new: bool,
              lease: timedelta) -> Claim | None:
        """The run of `kind` due at `now` (last finished at least `period` ago, and no live lease on it), for
        this worker only until `now + lease`; None when it is not due or another worker holds it. A job never
        seen before counts as run now unless run_new."""
        # Unique per claim, not per worker: a finish or release matches only its own claim, never a later
        # one of the same process.
        by = f"{self._worker}/{uuid.uuid4().hex[:12]}"
        params = {"name": self._name, "kind": kind, "now": time_param(now), "run_new": run_new,
                  "due_before": time_param(now - period), "claimed_by": by, "lease_until": time_param(now + lease)}

        def work(tx: Tx) -> Claim | None:
            tx.run("maintenance/schedule_lock", params)
            rows = tx.run("maintenance/schedule_claim", params)
            if not rows:
                return None
            return Claim(kind=kind, at=now, by=by, taken_from=rows[0]["taken_from"])

        return self._store.write_tx(work)

    def finish(self, claim: Claim) -> bool:
        """The claimed run finished: it becomes the job's last run and the lease ends. False (and nothing
        written) when the claim is no longer held: its lease ran out and another worker claimed the run."""
        return bool(self._held(claim, "maintenance/schedule_finish"))

    def renew(self, claim: Claim, *, now: datetime, lease: timedelta) -> bool:
        """The claimed run is still running: its lease now ends at `now + lease` (its time, `claim.at`, stays).
        False (and nothing written) when the claim is no longer held: its lease ran out and another worker
        claimed the run, or it was finished or given back."""
        return bool(self._held(claim, "maintenance/schedule_renew", lease_until=time_param(now + lease)))

    def release(self, claim: Claim) -> None:
        """The claimed run did not happen, or stopped before its end (its job failed, or its worker shut down):
        the lease ends and the job is due again at the next tick of any worker (its last run unchanged)."""
        self._held(claim, "maintenance/schedule_release")

    def state(self, kind: str) -> JobState | None:
        """What the store holds for `kind` (None: never seen), for operators and tests."""
        rows = self._store.read("maintenance/schedule_state", {"name": self._name, "kind": kind})
        if not rows:
            return None
        row = rows[0]
        return JobState(last_run=to_datetime(row["last_run"]), claimed_by=row["claimed_by"],
                        claimed_at=to_datetime(row["claimed_at"]), lease_until=to_datetime(row["lease_until"]))

    def _held(self, claim: Claim, statement: str, **more: str | None) -> list[Row]:
        params: dict[str, str | None] = {"name": self._name, "kind": claim.kind, "claimed_by": claim.by, **more}

        def work(tx: Tx) -> list[Row]:
            # The node's lock first, then the test of who holds it: a claim committing meanwhile is seen.
            tx.run("maintenance/schedule_lock_held", params)
            return tx.run(statement, params)

        return self._store.write_tx(work)
