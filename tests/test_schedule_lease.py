"""The maintenance schedule's lease against the real Neo4j (graph/schedule.py, bmam/scheduler.py): a worker
renews the lease of the job it runs, so a run longer than one lease is not claimed a second time; a renewal
by a worker whose claim was taken over writes nothing, and that worker stops its job at the next user; at a
shutdown the job stops at its next user and its run is given back, unless it is still running when stop()
stops waiting (then it keeps its lease until it stops)."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.scheduler import MaintenanceScheduler, Schedule, scheduled_job
from graph.changesets import MaintenanceKind
from graph.model import Scope
from graph.schedule import JobState, ScheduleRepository
from tests.test_maintenance import START

DAY = timedelta(days=1)
LEASE = Schedule().lease
RENEW_S = 0.02  # real seconds between renewals: many renewals in a fraction of a second


@pytest.fixture
def schedule_name() -> str:
    return f"test-{uuid.uuid4().hex[:10]}"  # a schedule of its own in the shared store


def worker(container: Container, clock: FakeClock, name: str, job: Callable[[MaintenanceKind], object],
           tick_s: float = 60.0) -> MaintenanceScheduler:
    return MaintenanceScheduler(job=job, clock=clock, schedule=Schedule(renew_s=RENEW_S, tick_s=tick_s),
                                claims=ScheduleRepository(container.store, name))


def state(container: Container, name: str, kind: MaintenanceKind) -> JobState:
    held = ScheduleRepository(container.store, name).state(kind.value)
    assert held is not None
    return held


def wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    """Polls (a slow machine gets its time); never a long sleep."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class Users:
    """One tenant's maintenance as scheduled_job sees it: its users run one at a time, the first user of a
    `hold` run held until `go` (a long user transaction); `done` records each (kind, user) finished."""

    def __init__(self, hold: MaintenanceKind, users: Sequence[str] = ("u1", "u2", "u3")) -> None:
        self._hold, self._users = hold, list(users)
        self.running, self.go = threading.Event(), threading.Event()
        self.done: list[tuple[MaintenanceKind, str]] = []

    def tenants(self) -> Sequence[str]:
        return ["acme"]

    def run(self, tenant: str, kind: MaintenanceKind, *, on_user_done: Callable[[Any], None] | None = None) -> Any:
        for user in self._users:
            if kind is self._hold and user == self._users[0]:
                self.running.set()
                assert self.go.wait(30)
            self.done.append((kind, user))
            if on_user_done is not None:
                on_user_done(user)
        return None

    def users(self) -> Sequence[Scope]:
        return []


class NoTiers:
    def sweep(self, tenant: str, user_id: str) -> Sequence[Any]:
        return []


def test_a_renewed_lease_is_not_claimed_by_another_worker_after_its_first_end(container: Container,
                                                                              schedule_name: str) -> None:
    clock = FakeClock(START)
    running, go = threading.Event(), threading.Event()
    ran: list[tuple[str, MaintenanceKind]] = []

    def long_decay(kind: MaintenanceKind) -> None:
        if kind is MaintenanceKind.DECAY:
            running.set()
            assert go.wait(30)
        ran.append(("a", kind))

    a = worker(container, clock, schedule_name, long_decay)
    b = worker(container, clock, schedule_name, lambda kind: ran.append(("b", kind)))
    assert a.tick() == []
    clock.advance(DAY)
    a_ran: list[list[MaintenanceKind]] = []
    ta = threading.Thread(target=lambda: a_ran.append(a.tick()))
    try:
        ta.start()
        assert running.wait(30)
        claimed = state(container, schedule_name, MaintenanceKind.DECAY)
        assert claimed.lease_until == START + DAY + LEASE
        clock.advance(LEASE + timedelta(minutes=1))  # A's job outlives its first lease ...
        assert wait_for(lambda: state(container, schedule_name, MaintenanceKind.DECAY).lease_until
                        == clock.now() + LEASE)  # ... and A renews it
        assert b.tick() == [MaintenanceKind.CHECK]  # DECAY is still A's
        held = state(container, schedule_name, MaintenanceKind.DECAY)
        assert (held.claimed_by, held.claimed_at, held.last_run) == (claimed.claimed_by, START + DAY, START)
    finally:
        go.set()
        ta.join(30)
    assert a_ran == [[MaintenanceKind.DECAY]]
    assert ran == [("b", MaintenanceKind.CHECK), ("a", MaintenanceKind.DECAY)]  # DECAY ran once
    done = state(container, schedule_name, MaintenanceKind.DECAY)
    assert (done.last_run, done.claimed_by, done.lease_until) == (START + DAY, None, None)  # the claim's time


def test_a_renewal_after_the_claim_was_taken_over_or_finished_writes_nothing(container: Container,
                                                                             schedule_name: str) -> None:
    clock = FakeClock(START)
    a, b = ScheduleRepository(container.store, schedule_name), ScheduleRepository(container.store, schedule_name)
    lease = timedelta(hours=2)

    def claim(of: ScheduleRepository) -> Any:
        return of.claim("CHECK", now=clock.now(), period=DAY, run_new=False, lease=lease)

    def stored() -> tuple[Any, ...]:
        held = state(container, schedule_name, MaintenanceKind.CHECK)
        return held.last_run, held.claimed_by, held.claimed_at, held.lease_until

    assert claim(a) is None
    clock.advance(DAY)
    mine = claim(a)
    assert mine is not None
    clock.advance(timedelta(hours=1))
    assert a.renew(mine, now=clock.now(), lease=lease)
    assert stored() == (START, mine.by, mine.at, clock.now() + lease)  # only the lease's end moved
    clock.advance(lease - timedelta(seconds=1))
    assert claim(b) is None  # renewed: not claimable an hour after the first lease ended
    clock.advance(timedelta(seconds=1))
    theirs = claim(b)
    assert theirs is not None and theirs.taken_from == mine.by
    taken = stored()
    clock.advance(timedelta(minutes=1))
    assert not a.renew(mine, now=clock.now(), lease=lease)  # taken over: nothing written
    assert stored() == taken == (START, theirs.by, theirs.at, theirs.at + lease)
    assert b.finish(theirs)
    assert not b.renew(theirs, now=clock.now(), lease=lease)  # finished: nothing held, nothing written
    assert stored() == (theirs.at, None, None, None)


def test_a_worker_whose_claim_was_taken_over_learns_it_and_stops_at_its_next_user(
        container: Container, schedule_name: str, caplog: pytest.LogCaptureFixture) -> None:
    # B's clock runs ahead: A's renewals (to A's now + lease) cannot keep B out, so B takes the run over as
    # after renewals that failed for a whole lease.
    clock_a, clock_b = FakeClock(START), FakeClock(START)
    users = Users(hold=MaintenanceKind.DECAY)
    b_running, b_go = threading.Event(), threading.Event()

    def b_job(kind: MaintenanceKind) -> None:
        if kind is MaintenanceKind.DECAY:
            b_running.set()
            assert b_go.wait(30)

    a = worker(container, clock_a, schedule_name, scheduled_job(users, NoTiers()))
    b = worker(container, clock_b, schedule_name, b_job)
    assert a.tick() == []
    clock_a.advance(DAY)
    clock_b.advance(DAY + LEASE + timedelta(minutes=1))
    a_ran: list[list[MaintenanceKind]] = []
    b_ran: list[list[MaintenanceKind]] = []
    ta = threading.Thread(target=lambda: a_ran.append(a.tick()))
    tb = threading.Thread(target=lambda: b_ran.append(b.tick()))
    try:
        with caplog.at_level(logging.WARNING, logger="bmam.scheduler"):
            ta.start()
            assert users.running.wait(30)  # A runs DECAY, in its first user
            tb.start()
            assert b_running.wait(30)  # B took the run over
            taken = state(container, schedule_name, MaintenanceKind.DECAY)
            assert (taken.claimed_at, taken.lease_until) == (clock_b.now(), clock_b.now() + LEASE)
            assert wait_for(lambda: "maintenance DECAY lost its lease" in caplog.text)  # A's renewal finds out
            assert state(container, schedule_name, MaintenanceKind.DECAY) == taken  # and wrote nothing
            users.go.set()
            ta.join(30)
        assert a_ran == [[MaintenanceKind.CHECK]]  # A's DECAY stopped, not counted; A's CHECK ran
        assert [user for kind, user in users.done if kind is MaintenanceKind.DECAY] == ["u1"]  # at its next user
        assert state(container, schedule_name, MaintenanceKind.DECAY) == taken  # B's claim left alone
    finally:
        users.go.set()
        b_go.set()
        ta.join(30)
        if tb.ident is not None:  # started
            tb.join(30)
    assert b_ran == [[MaintenanceKind.DECAY]]
    done = state(container, schedule_name, MaintenanceKind.DECAY)
    assert (done.last_run, done.claimed_by) == (clock_b.now(), None)  # B's run is the one recorded


def decay_held_in_its_first_user(container: Container, name: str
                                 ) -> tuple[Users, MaintenanceScheduler, MaintenanceScheduler, list[MaintenanceKind]]:
    """A worker whose loop starts a day after the schedule's first tick, its DECAY held in its first user until
    `users.go`, and another worker (its jobs recorded in the list) on the same clock."""
    clock = FakeClock(START)
    users = Users(hold=MaintenanceKind.DECAY)
    w = worker(container, clock, name, scheduled_job(users, NoTiers()), tick_s=0.01)
    other_ran: list[MaintenanceKind] = []
    other = worker(container, clock, name, other_ran.append)
    assert w.tick() == []
    clock.advance(DAY)
    w.start()
    return users, w, other, other_ran


def test_a_shutdown_stops_the_job_at_its_next_user_and_gives_its_run_back(container: Container,
                                                                          schedule_name: str) -> None:
    users, w, other, _ = decay_held_in_its_first_user(container, schedule_name)
    try:
        assert users.running.wait(30)  # the loop runs DECAY, in its first user
        assert state(container, schedule_name, MaintenanceKind.DECAY).claimed_by is not None
        stopping = threading.Thread(target=w.stop, kwargs={"timeout_s": 30})
        stopping.start()
        assert wait_for(w._stop.is_set)  # stop() has asked (its join is still waiting)
        users.go.set()  # the user in progress finishes ...
        stopping.join(30)
        assert not stopping.is_alive()
    finally:
        users.go.set()
        w.stop()
    assert users.done == [(MaintenanceKind.DECAY, "u1")]  # ... and the job stopped there
    given = state(container, schedule_name, MaintenanceKind.DECAY)
    assert (given.last_run, given.claimed_by, given.lease_until) == (START, None, None)  # given back, not recorded
    assert other.tick() == [MaintenanceKind.DECAY, MaintenanceKind.CHECK]  # at the next tick, not a lease later


def test_a_job_still_running_when_stop_gives_up_keeps_its_lease_until_it_stops(
        container: Container, schedule_name: str, caplog: pytest.LogCaptureFixture) -> None:
    """Given back while still in a user's transaction, the job could run on another worker alongside it."""
    users, w, other, other_ran = decay_held_in_its_first_user(container, schedule_name)
    try:
        assert users.running.wait(30)
        with caplog.at_level(logging.WARNING, logger="bmam.scheduler"):
            w.stop(timeout_s=0.05)  # the user's transaction outlasts the wait
        assert "keeps its lease" in caplog.text
        assert state(container, schedule_name, MaintenanceKind.DECAY).claimed_by is not None
        assert other.tick() == [MaintenanceKind.CHECK]  # DECAY is still running here: nobody else's yet
        users.go.set()
        assert wait_for(lambda: state(container, schedule_name, MaintenanceKind.DECAY).claimed_by is None)
    finally:
        users.go.set()
    assert users.done == [(MaintenanceKind.DECAY, "u1")]  # stopped at its next user, then given back
    assert state(container, schedule_name, MaintenanceKind.DECAY).last_run == START
    assert other.tick() == [MaintenanceKind.DECAY]
    assert other_ran == [MaintenanceKind.CHECK, MaintenanceKind.DECAY]
