"""The optional maintenance schedule of the server (seed "BMAM" 5.2): a daily quick check (with a decay and
the tier sweep of every user: stale temp memories deleted, faded mid ones back to temp), a weekly rebalance
and a monthly full run, over every tenant. Off unless configured (BMAM_MAINTENANCE__SCHEDULE=true).

A background thread wakes every `tick_s` seconds (real time) and asks the injected clock whether a job is
due; `tick()` does one such round and is what tests drive with a FakeClock. The lead wires it into the
app's lifespan: `scheduler.start()` after start-up, `scheduler.stop()` at shutdown.

When each job last ran is the `claims`' (graph/schedule.py: kept in Neo4j, so a restart does not reset the
schedule and of several workers exactly one runs each due job); without them (tests of the loop alone) it is
held in the process. A claim is a lease (`Schedule.lease`): the run is recorded only when the job returns, and
a run whose worker died mid-job is due again once its lease runs out. While the job runs, its worker renews
the lease (`LeaseKeeper`, every third of it), so a run longer than one lease is never claimed a second time;
a worker that finds its claim taken over (renewals failed for a whole lease) stops its job at the next user.

At a shutdown (`stop()`) a job in progress stops at its next user (`stop_if_asked`, called by `scheduled_job`
between users: what finished users did stays, and a rerun is idempotent) and its run is given back, so any
worker runs it at its next tick rather than a lease later. A job still in one user's transaction when stop()
stops waiting keeps its lease: given back then, another worker could run the job alongside it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from bmam.clock import Clock
from graph.changesets import MaintenanceKind
from graph.ids import log_name
from graph.model import Scope

log = logging.getLogger(__name__)


class Maintenance(Protocol):
    def tenants(self) -> Sequence[str]: ...

    def run(self, tenant: str, kind: MaintenanceKind, *,
            on_user_done: Callable[[Any], None] | None = None) -> Any: ...

    def users(self) -> Sequence[Scope]: ...


class TierSweeps(Protocol):
    def sweep(self, tenant: str, user_id: str) -> Sequence[Any]: ...


class RemainsSweep(Protocol):
    def sweep(self) -> Any: ...


class JobInterrupted(Exception):
    """A job stopped before its end because the round running it asked (a shutdown, or its lease was lost)."""


def _never() -> bool:
    return False


# Whether the job in progress is asked to stop, for the round's own thread. A job is `job(kind)` (the container
# builds it before any round, tests pass plain callables), so the ask reaches it through the context of the
# round that runs it rather than an argument.
_stop_asked: ContextVar[Callable[[], bool]] = ContextVar("bmam_maintenance_stop_asked", default=_never)


def stop_if_asked() -> None:
    """For a job, where stopping leaves nothing half done (between users): raise JobInterrupted when the round
    running it asks it to stop. Outside a round (a job called by hand) never."""
    if _stop_asked.get()():
        raise JobInterrupted


def _stop_between_users(_done: object) -> None:
    stop_if_asked()


def scheduled_job(maintenance: Maintenance, tiers: TierSweeps,
                  remains: RemainsSweep | None = None) -> Callable[[MaintenanceKind], None]:
    """What the schedule runs for a kind: the maintenance run of each tenant (a quick check's problems logged
    as warnings), and with the daily decay the tier sweep of every user (DESIGN.md "Tiers"; like sweepTiers,
    not part of a changeset) and the remains of superseded memories left without them (bmam/usecases/remains.py).
    A tenant whose run fails, or a user whose sweep fails, is logged and the others go on: one broken tenant does
    not hold back, or make the schedule redo, everyone else's. Asked to stop (stop_if_asked), it stops after the
    user in progress: the tenant's changeset stays RUNNING, as an interrupted run's does."""

    def job(kind: MaintenanceKind) -> None:
        for tenant in maintenance.tenants():
            stop_if_asked()
            try:
                result = maintenance.run(tenant, kind, on_user_done=_stop_between_users)
            except JobInterrupted:
                raise
            except Exception:
                log.exception("scheduled maintenance %s of tenant %s failed; tried again next period",
                              kind.value, tenant)
                continue
            check = getattr(result, "check", None)
            if check is not None and check.problems:
                log.warning("quick check of tenant %s: %s", tenant, "; ".join(check.problems))
        if kind is MaintenanceKind.DECAY:
            for scope in maintenance.users():
                stop_if_asked()
                try:
                    tiers.sweep(scope.tenant, scope.user_id)
                except Exception:
                    log.exception("tier sweep of %s failed; tried again tomorrow", log_name(scope))
            if remains is not None:
                stop_if_asked()
                try:
                    remains.sweep()
                except Exception:
                    log.exception("the sweep of superseded memories' remains failed; tried again tomorrow")

    return job


@dataclass(frozen=True, slots=True)
class Schedule:
    check_every: timedelta = timedelta(days=1)
    rebalance_every: timedelta = timedelta(days=7)
    full_every: timedelta = timedelta(days=30)
    tick_s: float = 60.0
    run_at_start: bool = False  # False: the first run of each job is one period after start
    # How long a claimed run is held for its worker (every kind) past its claim or last renewal: a run not
    # renewed by then (its worker died: OOM, deploy, kill -9) is due again for any worker. Its worker renews it
    # while the job runs (a full run took 80 s for 10k memories, BENCHMARKS.md, so 2-5 h over a store of a
    # million), so a run may outlast it. Too long delays the rerun of a killed job; too short hands a live run
    # to another worker after a briefer Neo4j outage (renewals fail meanwhile). 12 h keeps it under a day.
    lease: timedelta = timedelta(hours=12)
    # Seconds (real time) between renewals of a running job's lease; None: a third of the lease, so one or two
    # renewals may fail (Neo4j away for a moment) before the lease runs out under a live run.
    renew_s: float | None = None

    def renew_every_s(self) -> float:
        return self.renew_s if self.renew_s is not None else self.lease.total_seconds() / 3

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

    def renew(self, claim: Any, *, now: datetime, lease: timedelta) -> bool: ...

    def release(self, claim: Any) -> None: ...


class LeaseKeeper:
    """Holds a claimed run's lease while its job runs (`with LeaseKeeper(...)`): a thread of its own renews it
    every `every_s` seconds (real time) to `clock.now() + lease` until the block ends. A renewal that finds the
    claim no longer held (its lease ran out and another worker took the run over) writes nothing: renewals end,
    a warning says so and `lost` turns true."""

    def __init__(self, claims: Claims, claim: Any, *, kind: MaintenanceKind, clock: Clock, lease: timedelta,
                 every_s: float) -> None:
        self._claims, self._claim, self._kind = claims, claim, kind
        self._clock, self._lease, self._every_s = clock, lease, every_s
        self._done = threading.Event()
        self._lost = threading.Event()
        self._thread = threading.Thread(target=self._renew_until_done, name="bmam-maintenance-lease", daemon=True)

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # Joined before the run is finished or given back: no renewal comes after either (it would find the
        # claim gone and warn of a loss that is none).
        self._done.set()
        self._thread.join()

    def _renew_until_done(self) -> None:
        while not self._done.wait(self._every_s):
            if not self._renew():
                return

    def _renew(self) -> bool:
        """One renewal; False once the lease is lost (no more renewals)."""
        try:
            held = self._claims.renew(self._claim, now=self._clock.now(), lease=self._lease)
        except Exception:
            # Neo4j away for a moment: the lease still holds a while (renewed every third of it), try again.
            log.exception("could not renew the lease of maintenance %s; tried again in %.0f s", self._kind.value,
                          self._every_s)
            return True
        if not held:
            self._lost.set()
            log.warning("maintenance %s lost its lease: another worker took the run over (renewals failed for a "
                        "whole lease); this run stops at its next user", self._kind.value)
        return held


def _asked_to_stop(stop: threading.Event | None, lease: LeaseKeeper | None) -> Callable[[], bool]:
    """What asks a job in progress to stop: the loop's stop (a shutdown), or its lease lost to another worker."""

    def asked() -> bool:
        return (stop is not None and stop.is_set()) or (lease is not None and lease.lost)

    return asked


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
        """Stop the thread, joined for up to `timeout_s`. A job in progress stops at its next user and its run
        is given back (any worker runs it at its next tick). One still running when the wait ends keeps its
        lease: it is given back once the job stops, or lapses a lease after its last renewal should the
        process end first."""
        with self._lock:
            thread = self._thread
            self._thread = None
            self._stop.set()
        if thread is None:
            return
        thread.join(timeout=timeout_s)
        if thread.is_alive():
            log.warning("maintenance schedule stopped waiting after %.0f s for a job still in one user's run: it "
                        "keeps its lease until it stops (given back now, another worker could run it alongside)",
                        timeout_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def tick(self, *, stop: threading.Event | None = None) -> list[MaintenanceKind]:
        """Run every job that is due now (the longest first: a full run also decays, and so on), one round at a
        time. From the background loop (its stop event given), a stop() ends the round: between two jobs, or
        within one at its next user (scheduled_job asks)."""
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
                claim = self._claim(self.claims, kind, now, periods[kind])
                if claim is None:  # not due, or another worker runs it
                    continue
            elif not due(self.last_run.get(kind), now, periods[kind]):
                continue
            if not self._run(kind, claim, stop):
                continue
            if self.claims is None:
                self.last_run[kind] = now
            self.runs.append((kind, now))
            ran.append(kind)
        return ran

    def _claim(self, claims: Claims, kind: MaintenanceKind, now: datetime, period: timedelta) -> Any | None:
        """This worker's claim of the run of `kind` due at `now`; None when it is not due, another worker holds
        it, or the store could not tell."""
        try:
            claim = claims.claim(kind.value, now=now, period=period, run_new=self.schedule.run_at_start,
                                 lease=self.schedule.lease)
        except Exception:
            log.exception("could not tell whether maintenance %s is due; asked again at the next tick", kind.value)
            return None
        if claim is not None and getattr(claim, "taken_from", None):
            log.warning("maintenance %s: the run claimed by %s never finished (its worker died or overran the "
                        "lease); running it again", kind.value, claim.taken_from)
        return claim

    def _run(self, kind: MaintenanceKind, claim: Any | None, stop: threading.Event | None) -> bool:
        """Run the job of `kind`, its claim's lease kept meanwhile, and settle the claim: recorded when the job
        ran to its end (True), given back when it failed or stopped before its end (False)."""
        lease = self._lease_keeper(kind, claim)
        asked = _stop_asked.set(_asked_to_stop(stop, lease))
        try:
            self._run_job(kind, lease)
        except JobInterrupted:
            lost = lease is not None and lease.lost
            log.info("maintenance %s stopped before its end (%s)", kind.value,
                     "another worker runs it" if lost else "shutdown: given back, any worker runs it at its next tick")
            self._give_back(kind, claim)  # writes nothing once the lease is lost
            return False
        except Exception:
            log.exception("scheduled maintenance %s failed; it is retried at the next tick", kind.value)
            self._give_back(kind, claim)
            return False
        finally:
            _stop_asked.reset(asked)
        self._finish(kind, claim)
        return True

    def _lease_keeper(self, kind: MaintenanceKind, claim: Any | None) -> LeaseKeeper | None:
        if claim is None or self.claims is None:
            return None
        return LeaseKeeper(self.claims, claim, kind=kind, clock=self.clock, lease=self.schedule.lease,
                           every_s=self.schedule.renew_every_s())

    def _run_job(self, kind: MaintenanceKind, lease: LeaseKeeper | None) -> None:
        with lease if lease is not None else nullcontext():
            self.job(kind)

    def _give_back(self, kind: MaintenanceKind, claim: Any | None) -> None:
        if claim is None or self.claims is None:
            return
        try:
            self.claims.release(claim)
        except Exception:
            log.exception("could not give back the run of maintenance %s", kind.value)

    def _finish(self, kind: MaintenanceKind, claim: Any | None) -> None:
        if claim is None or self.claims is None:
            return
        try:
            if not self.claims.finish(claim):
                log.warning("maintenance %s ran past its lease and another worker took the run over: that "
                            "worker's run is the one recorded", kind.value)
        except Exception:
            log.exception("maintenance %s ran but could not be recorded; it runs again once its lease runs out",
                          kind.value)

    def _loop(self, stop: threading.Event) -> None:
        while not stop.wait(self.schedule.tick_s):
            self.tick(stop=stop)
