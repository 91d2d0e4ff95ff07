"""The maintenance schedule against the real Neo4j (graph/schedule.py, bmam/scheduler.py): when each job last
ran is kept in the store, so a restarted server does not start the clock again, several workers of one
deployment run each due job once between them, a failed job is due again at the next tick; and the daily
job sweeps every user's tiers (stale temp memories go) and logs a quick check's problems."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.scheduler import MaintenanceScheduler, Schedule, scheduled_job
from graph.changesets import MaintenanceKind
from graph.ids import new_memory_id
from graph.model import MemoryType, NewMemory, Scope, Tier
from graph.schedule import ScheduleRepository
from tests.test_maintenance import START, living

__all__ = ["living"]  # the fixture, used by name

DAILY = [MaintenanceKind.DECAY, MaintenanceKind.CHECK]


@pytest.fixture
def schedule_name() -> str:
    return f"test-{uuid.uuid4().hex[:10]}"  # a schedule of its own in the shared store


def worker(container: Container, clock: FakeClock, name: str, ran: list[MaintenanceKind],
           job: Any = None) -> MaintenanceScheduler:
    return MaintenanceScheduler(job=job or ran.append, clock=clock, schedule=Schedule(),
                                claims=ScheduleRepository(container.store, name))


def test_two_workers_run_each_due_job_once_and_a_restart_keeps_the_clock(container: Container,
                                                                         schedule_name: str) -> None:
    clock = FakeClock(START)
    ran: list[MaintenanceKind] = []
    a, b = worker(container, clock, schedule_name, ran), worker(container, clock, schedule_name, ran)
    assert a.tick() == [] and b.tick() == []  # first seen now: each job's first run is one period later
    clock.advance(timedelta(days=1))
    assert a.tick() == DAILY and b.tick() == []  # the other worker finds this run claimed
    assert ran == DAILY
    clock.advance(timedelta(hours=12))
    restarted = worker(container, clock, schedule_name, ran)  # a new process: the last runs come from the store
    assert restarted.tick() == []
    clock.advance(timedelta(hours=12))
    assert sorted(restarted.tick() + a.tick()) == sorted(DAILY)
    clock.advance(timedelta(days=6))
    assert MaintenanceKind.REBALANCE in b.tick()
    assert ran.count(MaintenanceKind.REBALANCE) == 1 and ran.count(MaintenanceKind.DECAY) == 3


def test_a_failed_job_is_due_again_at_the_next_tick(container: Container, schedule_name: str) -> None:
    clock = FakeClock(START)
    ran: list[MaintenanceKind] = []
    failures = [MaintenanceKind.DECAY]

    def flaky(kind: MaintenanceKind) -> None:
        if kind in failures:
            failures.remove(kind)
            raise RuntimeError("Neo4j went away")
        ran.append(kind)

    w = worker(container, clock, schedule_name, ran, job=flaky)
    w.tick()
    clock.advance(timedelta(days=1))
    assert w.tick() == [MaintenanceKind.CHECK]  # DECAY failed: given back
    clock.advance(timedelta(minutes=1))
    assert w.tick() == [MaintenanceKind.DECAY]  # and run at the next tick, not a day later
    assert ran == [MaintenanceKind.CHECK, MaintenanceKind.DECAY]


class Killed(BaseException):
    """The worker process dying mid-job (kill -9, OOM, a deploy): nothing after it runs, no release either."""


def test_a_killed_workers_run_is_due_again_once_its_lease_runs_out_and_not_before(container: Container,
                                                                                  schedule_name: str) -> None:
    clock = FakeClock(START)
    ran: list[MaintenanceKind] = []
    lease = Schedule().lease

    def dies_in_full(kind: MaintenanceKind) -> None:
        if kind is MaintenanceKind.FULL:
            raise Killed
        ran.append(kind)

    dead, alive = worker(container, clock, schedule_name, ran, job=dies_in_full), worker(container, clock,
                                                                                         schedule_name, ran)
    assert dead.tick() == []
    clock.advance(timedelta(days=30))
    with pytest.raises(Killed):
        dead.tick()  # claimed the monthly FULL run and died in it
    assert alive.tick() == [MaintenanceKind.REBALANCE, *DAILY]  # FULL: leased to the dead worker
    clock.advance(lease - timedelta(minutes=1))
    assert alive.tick() == []  # the lease still holds: its worker might yet be running it
    clock.advance(timedelta(minutes=1))
    assert alive.tick() == [MaintenanceKind.FULL]  # the lease ran out: run now, not skipped for a month
    clock.advance(timedelta(days=30) - timedelta(minutes=1))
    assert MaintenanceKind.FULL not in alive.tick()  # counted from the run that finished
    clock.advance(timedelta(minutes=1))
    assert MaintenanceKind.FULL in alive.tick()


def test_a_claim_dropped_unfinished_leaves_the_last_run_and_finishing_moves_it(container: Container,
                                                                               schedule_name: str) -> None:
    """The store's side: a claim (whose worker then vanishes) holds a lease and leaves last_run; the next
    claim is refused until the lease runs out; finishing records the run and ends the lease."""
    clock = FakeClock(START)
    repo = ScheduleRepository(container.store, schedule_name)
    day, lease = timedelta(days=1), timedelta(hours=2)

    def claim(of: ScheduleRepository) -> Any:
        return of.claim("CHECK", now=clock.now(), period=day, run_new=False, lease=lease)

    def stored(of: ScheduleRepository) -> tuple[Any, ...]:
        state = of.state("CHECK")
        assert state is not None
        return state.last_run, state.claimed_by, state.claimed_at, state.lease_until

    assert claim(repo) is None  # first seen: its first run is one period later
    clock.advance(day)
    dropped = claim(ScheduleRepository(container.store, schedule_name))  # a worker that then dies
    assert dropped is not None
    assert stored(repo) == (START, dropped.by, clock.now(), clock.now() + lease)  # last_run has not moved
    clock.advance(lease - timedelta(seconds=1))
    assert claim(repo) is None
    clock.advance(timedelta(seconds=1))
    taken = claim(repo)
    assert taken is not None and taken.taken_from == dropped.by
    assert stored(repo) == (START, taken.by, clock.now(), clock.now() + lease)
    assert repo.finish(taken)
    assert stored(repo) == (taken.at, None, None, None)
    assert not repo.finish(dropped) and not repo.finish(taken)  # nothing held: nothing written
    assert stored(repo) == (taken.at, None, None, None)
    clock.advance(day - timedelta(seconds=1))
    assert claim(repo) is None
    clock.advance(timedelta(seconds=1))
    assert claim(repo) is not None


def test_a_finish_after_the_lease_was_taken_over_leaves_the_new_holder_alone(container: Container,
                                                                             schedule_name: str,
                                                                             caplog: pytest.LogCaptureFixture) -> None:
    """Worker A's job outlives its lease and B takes the run over; A's job then returns while B's still runs:
    A's finish writes nothing (B keeps its lease, so no third worker runs the job; B's run is the one
    recorded)."""
    clock = FakeClock(START)
    lease = Schedule().lease
    ran: list[tuple[str, MaintenanceKind]] = []
    running = {"a": threading.Event(), "b": threading.Event()}
    go = {"a": threading.Event(), "b": threading.Event()}

    def job_of(who: str) -> Any:
        def job(kind: MaintenanceKind) -> None:
            if kind is MaintenanceKind.DECAY:
                running[who].set()
                assert go[who].wait(60)
            ran.append((who, kind))
        return job

    a = worker(container, clock, schedule_name, [], job=job_of("a"))
    b = worker(container, clock, schedule_name, [], job=job_of("b"))
    c = worker(container, clock, schedule_name, [], job=lambda kind: ran.append(("c", kind)))
    assert a.tick() == []
    clock.advance(timedelta(days=1))
    a_ran: list[list[MaintenanceKind]] = []
    b_ran: list[list[MaintenanceKind]] = []
    ta = threading.Thread(target=lambda: a_ran.append(a.tick()))
    tb = threading.Thread(target=lambda: b_ran.append(b.tick()))
    try:
        ta.start()
        assert running["a"].wait(30)  # A runs DECAY ...
        clock.advance(lease + timedelta(minutes=1))  # ... past its lease
        tb.start()
        assert running["b"].wait(30)  # B took the DECAY run over and runs it
        with caplog.at_level(logging.WARNING, logger="bmam.scheduler"):
            go["a"].set()
            ta.join(30)
        assert a_ran == [DAILY]  # A's job did run (and A ran CHECK after it)
        held = ScheduleRepository(container.store, schedule_name).state("DECAY")
        assert held is not None and held.last_run == START and held.lease_until == clock.now() + lease
        assert c.tick() == []  # B's lease still holds
        assert "another worker took the run over" in caplog.text
    finally:
        go["a"].set()
        go["b"].set()
        ta.join(30)
        if tb.ident is not None:  # started
            tb.join(30)
    assert b_ran == [[MaintenanceKind.DECAY]]  # CHECK: A's run finished it
    assert ran == [("a", MaintenanceKind.DECAY), ("a", MaintenanceKind.CHECK), ("b", MaintenanceKind.DECAY)]
    # B's run is the one recorded: DECAY due a day after B's claim, not after A's
    clock.advance(timedelta(days=1) - lease - timedelta(minutes=1))
    assert c.tick() == [MaintenanceKind.CHECK]
    clock.advance(lease + timedelta(minutes=1))
    assert c.tick() == [MaintenanceKind.DECAY]


class OneTenant:
    """The container's maintenance over the test's own tenant only (the shared store holds every test's)."""

    def __init__(self, c: Container, tenant: str) -> None:
        self._c, self._tenant = c, tenant

    def tenants(self) -> Sequence[str]:
        return [self._tenant]

    def run(self, tenant: str, kind: MaintenanceKind, *, on_user_done: Callable[[Any], None] | None = None) -> Any:
        return self._c.maintenance.run(tenant, kind, on_user_done=on_user_done)

    def users(self) -> Sequence[Scope]:
        return [u for u in self._c.maintenance.users() if u.tenant == self._tenant]


def test_the_daily_job_sweeps_every_users_tiers(living: tuple[Container, FakeClock], tenant: str) -> None:
    c, clock = living
    stale: dict[str, str] = {}
    for user in ("alice", "bob"):
        new = NewMemory(id=new_memory_id(), text=f"{user} saw a red car once", type=MemoryType.EPISODIC,
                        embedding=[float(x) for x in c.embedder.embed_passages(["a red car"])[0]], tier=Tier.TEMP)
        stale[user] = c.memory_repository.remember(Scope(tenant, user), new, now=clock.now(), passive=0.0,
                                                   active=0.2).memory.id
    clock.advance(timedelta(days=c.settings.tiers.temp_stale_after_days + 1))
    job = scheduled_job(OneTenant(c, tenant), c.tiers)
    job(MaintenanceKind.REBALANCE)  # no sweep with the other jobs
    assert all(c.memories.get(tenant, u, m) is not None for u, m in stale.items())
    job(MaintenanceKind.DECAY)
    assert all(c.memories.get(tenant, u, m) is None for u, m in stale.items())  # stale temp memories went


def test_the_daily_job_keeps_the_remains_of_superseded_memories(living: tuple[Container, FakeClock],
                                                                tenant: str) -> None:
    c, _ = living

    class Remains:
        swept = 0

        def sweep(self) -> None:
            self.swept += 1

    remains = Remains()
    job = scheduled_job(OneTenant(c, tenant), c.tiers, remains)
    for kind in (MaintenanceKind.CHECK, MaintenanceKind.REBALANCE, MaintenanceKind.FULL):
        job(kind)
    assert remains.swept == 0  # with the daily decay only
    job(MaintenanceKind.DECAY)
    assert remains.swept == 1


def test_a_quick_checks_problems_are_logged(container: Container, caplog: pytest.LogCaptureFixture) -> None:
    class Sick:
        def tenants(self) -> Sequence[str]:
            return ["acme"]

        def run(self, tenant: str, kind: MaintenanceKind, *,
                on_user_done: Callable[[Any], None] | None = None) -> Any:
            return SimpleNamespace(check=SimpleNamespace(problems=["index memory_text_scoped is FAILED, not ONLINE"]))

        def users(self) -> Sequence[Scope]:
            return []

    with caplog.at_level(logging.WARNING, logger="bmam.scheduler"):
        scheduled_job(Sick(), container.tiers)(MaintenanceKind.CHECK)
    assert "quick check of tenant acme: index memory_text_scoped is FAILED" in caplog.text


def test_one_failing_tenant_holds_back_no_other(living: tuple[Container, FakeClock], tenant: str,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """A tenant whose run raises is logged; the others are maintained and the users swept all the same, and
    the job does not fail (the schedule would give the run back and redo every tenant at each tick)."""
    c, clock = living

    class OneBroken(OneTenant):
        def tenants(self) -> Sequence[str]:
            return ["a-broken-tenant", tenant]

        def run(self, name: str, kind: MaintenanceKind, *,
                on_user_done: Callable[[Any], None] | None = None) -> Any:
            if name == "a-broken-tenant":
                raise RuntimeError("a value of the wrong type in this tenant's data")
            return super().run(name, kind, on_user_done=on_user_done)

    new = NewMemory(id=new_memory_id(), text="alice saw a red car once", type=MemoryType.EPISODIC,
                    embedding=[float(x) for x in c.embedder.embed_passages(["a red car"])[0]], tier=Tier.TEMP)
    stale = c.memory_repository.remember(Scope(tenant, "alice"), new, now=clock.now(), passive=0.0,
                                         active=0.2).memory.id
    clock.advance(timedelta(days=c.settings.tiers.temp_stale_after_days + 1))
    with caplog.at_level(logging.ERROR, logger="bmam.scheduler"):
        scheduled_job(OneBroken(c, tenant), c.tiers)(MaintenanceKind.DECAY)  # does not raise
    assert "tenant a-broken-tenant failed" in caplog.text
    assert [cs.kind for cs in c.maintenance.changesets(tenant)] == [MaintenanceKind.DECAY]
    assert c.memories.get(tenant, "alice", stale) is None  # swept all the same


def test_the_lease_is_a_setting(container: Container) -> None:
    settings = container.settings.model_copy(update={
        "maintenance": container.settings.maintenance.model_copy(update={"lease_hours": 3.5})})
    made, default = Container(settings), Container(container.settings)
    for c in (made, default):
        c.__dict__["store"] = container.store
    assert made.scheduler.schedule.lease == timedelta(hours=3.5)  # BMAM_MAINTENANCE__LEASE_HOURS
    assert default.scheduler.schedule.lease == timedelta(hours=12)
