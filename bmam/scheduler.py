"""The optional maintenance schedule of the server (seed "BMAM" 5.2): a daily quick check (with a decay and
the tier sweep of every user: stale temp memories deleted, faded mid ones back to temp), a weekly rebalance
and a monthly full run, over every tenant. Off unless configured (BMAM_MAINTENANCE__SCHEDULE=true).

A background thread wakes every `tick_s` seconds (real time) and asks the injected clock whether a job is
due; `tick()` does one such round and is what tests drive with a FakeClock. The lead wires it into the
app's lifespan: `scheduler.start()` after start-up, `scheduler.stop()` at shutdown.

When each job last ran is the `claims`' (graph/schedule.py: kept in Neo4j, so a restart does not reset the
schedule and of several workers exactly one runs each due job); without them (tests of the loop alone) it is
held in the process. A claim is a lease (`Schedule.lease`): the run is recorded only when the job returns, and
a run whose worker died mid-job is due again once its lease runs out.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from bmam.clock import Clock
from graph.changesets import MaintenanceKind
from graph.model import Scope

log = logging.getLogger(__name__)


class Maintenance(Protocol):
    def tenants(self) -> Sequence[str]: ...

    def run(self, tenant: str, kind: MaintenanceKind) -> Any: ...

    def users(self) -> Sequence[Scope]: ...


class TierSweeps(Protocol):
    def sweep(self, tenant: str, user_id: str) -> Sequence[Any]: ...


def scheduled_job(maintenance: Maintenance, tiers: TierSweeps) -> Callable[[MaintenanceKind], None]:
    """What the schedule runs for a kind: the maintenance run of each tenant (a quick check's problems logged
    as warnings), and with the daily decay the tier sweep of every user (DESIGN.md "Tiers"; like sweepTiers,
    not part of a changeset). A tenant whose run fails, or a user whose sweep fails, is logged and the
    others go on: one broken tenant does not hold back, or make the schedule redo, everyone else's."""

    def job(kind: MaintenanceKind) -> None:
        for tenant in maintenance.tenants():
            try:
                result = maintenance.run(tenant, kind)
            except Exception:
                log.exception("scheduled maintenance %s of tenant %s failed; tried again next period",
                              kind.value, tenant)
                continue
            check = getattr(result, "check", None)
            if check is not None and check.problems:
                log.warning("quick check of tenant %s: %s", tenant, "; ".join(check.problems))
        if kind is MaintenanceKind.DECAY:
            for scope in maintenance.users():
                try:
                    tiers.sweep(scope.tenant, scope.user_id)
                except Exception:
                    log.exception("tier sweep of %s/%s failed; tried again tomorrow", scope.tenant, scope.user_id)

    return job


@dataclass(frozen=True, slots=True)
class Schedule:
    check_every: timedelta = timedelta(days=1)
    rebalance_every: timedelta = timedelta(days=7)
    full_every: timedelta = timedelta(days=30)
    tick_s: float = 60.0
    run_at_start: bool = False  # False: the first run of each job is one period after start
    # How long a claimed run is held for its worker (every kind): a run not finished by then (its worker died:
    # OOM, deploy, kill -9) is due again for any worker. Longer than any run should take, since a run that
    # outlives it can be claimed a second time: a full run took 80 s for 10k memories (BENCHMARKS.md), so
    # 2-5 h over a store of a million (this machine's times move 2x). Too long only delays the rerun of a
    # killed job; 12 h also keeps it under the daily period.
    lease: timedelta = timedelta(hours=12)

    def periods(self) -> dict[MaintenanceKind, timedelta]:
        # Daily: the quick check and a decay (so weights read between runs are at most a day stale).
        return {
            MaintenanceKind.CHECK: self.check_every,
            MaintenanceKind.DECAY: self.check_every,
            MaintenanceKind.REBALANCE: self.rebalance_every,
            MaintenanceKind.FULL: self.full_every,
        }


def due(last: datetime | None, now: datetime, period: timedelta) -> bool:
    return last is None or now - last >= period


class Claims(Protocol):
    """Who runs a due job, and when it last ran (graph/schedule.py ScheduleRepository)."""

    def claim(self, kind: str, *, now: datetime, period: timedelta, run_new: bool,
              lease: timedelta) -> Any | None: ...

    def finish(self, claim: Any) -> bool: ...

    def release(self, claim: Any) -> None: ...


@dataclass
class MaintenanceScheduler:
    """Runs `job(kind)` whenever a kind is due. `job` is the container's maintenance over every tenant."""

    job: Callable[[MaintenanceKind], object]
    clock: Clock
    schedule: Schedule = field(default_factory=Schedule)
    claims: Claims | None = None
    # When each job last ran, held here only without claims (with them the store holds it).
    last_run: dict[MaintenanceKind, datetime] = field(default_factory=dict)
    runs: list[tuple[MaintenanceKind, datetime]] = field(default_factory=list)
    _thread: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)  # the running loop's own (a new one per start)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Held while a round runs: a loop still finishing its job after a timed-out stop() and the loop a later
    # start() made never run jobs at the same time (nor does a tick() called by hand).
    _round: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        """Start the background thread (idempotent)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if not self.schedule.run_at_start and self.claims is None:
                now = self.clock.now()
                for kind in self.schedule.periods():
                    self.last_run.setdefault(kind, now)
            # A fresh event: a loop a timed-out stop() left finishing its job keeps its own, set, and ends.
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._loop, args=(self._stop,), name="bmam-maintenance",
                                            daemon=True)
            self._thread.start()
        log.info("maintenance schedule started: %s", self.schedule)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop the thread; a job in progress finishes its current user first (the thread is joined)."""
        with self._lock:
            thread = self._thread
            self._thread = None
            self._stop.set()
        if thread is not None:
            thread.join(timeout=timeout_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def tick(self, *, stop: threading.Event | None = None) -> list[MaintenanceKind]:
        """Run every job that is due now (the longest first: a full run also decays, and so on), one round at a
        time. From the background loop (its stop event given), a stop() between two jobs ends the round."""
        with self._round:
            return self._round_of_jobs(stop)

    def _round_of_jobs(self, stop: threading.Event | None) -> list[MaintenanceKind]:
        now = self.clock.now()
        ran: list[MaintenanceKind] = []
        order = [MaintenanceKind.FULL, MaintenanceKind.REBALANCE, MaintenanceKind.DECAY, MaintenanceKind.CHECK]
        periods = self.schedule.periods()
        for kind in order:
            if stop is not None and stop.is_set():
                break
            claim: Any | None = None
            if self.claims is not None:
                try:
                    claim = self.claims.claim(kind.value, now=now, period=periods[kind],
                                              run_new=self.schedule.run_at_start, lease=self.schedule.lease)
                except Exception:
                    log.exception("could not tell whether maintenance %s is due; asked again at the next tick",
                                  kind.value)
                    continue
                if claim is None:  # not due, or another worker runs it
                    continue
                if getattr(claim, "taken_from", None):
                    log.warning("maintenance %s: the run claimed by %s never finished (its worker died or "
                                "overran the lease); running it again", kind.value, claim.taken_from)
            elif not due(self.last_run.get(kind), now, periods[kind]):
                continue
            try:
                self.job(kind)
            except Exception:
                log.exception("scheduled maintenance %s failed; it is retried at the next tick", kind.value)
                if claim is not None and self.claims is not None:
                    try:
                        self.claims.release(claim)
                    except Exception:
                        log.exception("could not give back the run of maintenance %s", kind.value)
                continue
            if claim is not None and self.claims is not None:
                try:
                    if not self.claims.finish(claim):
                        log.warning("maintenance %s ran past its lease and another worker took the run over: "
                                    "that worker's run is the one recorded", kind.value)
                except Exception:
                    log.exception("maintenance %s ran but could not be recorded; it runs again once its lease "
                                  "runs out", kind.value)
            if self.claims is None:
                self.last_run[kind] = now
            self.runs.append((kind, now))
            ran.append(kind)
        return ran

    def _loop(self, stop: threading.Event) -> None:
        while not stop.wait(self.schedule.tick_s):
            self.tick(stop=stop)
