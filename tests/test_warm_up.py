"""The plan warm-up (bmam/usecases/warm_up.py) against the real Neo4j: it runs recall's and relatedSearch's real
statements, and a rehearsed recall leaves nothing behind (no usage, no strengthened association)."""

from __future__ import annotations

import time

from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from bmam.usecases.warm_up import REHEARSED_QUESTIONS, RestartWatch, WarmUpReport
from graph.ids import log_name
from graph.model import Memory, Scope
from graph.recall import plan_size_class


def _remember(c: Container, scope: Scope, text: str) -> Memory:
    return c.memories.remember(scope.tenant, RememberRequest(user_id=scope.user_id, text=text, type="FACTUAL"))


def _state(c: Container, scope: Scope, memories: list[Memory]) -> list[tuple[int, float, list[float]]]:
    """Each memory's recall count, weight and association strengths, as stored."""
    out = []
    for m in memories:
        got = c.memories.get(scope.tenant, scope.user_id, m.id)
        assert got is not None
        strengths = sorted(a.strength for a in c.memories.associations(scope.tenant, scope.user_id, m.id))
        out.append((got.recall_count, got.weight.final, strengths))
    return out


def test_rehearsals_run_the_real_statements_and_leave_no_trace(container: Container, scope: Scope) -> None:
    c = container
    memories = [_remember(c, scope, text) for text in (
        "I usually drink green tea in the morning", "My name is Lin Wei", "我平时喜欢周末去爬山",
        "Green tea tastes best without sugar")]
    c.memories.associate(scope.tenant, scope.user_id, memories[0].id, memories[3].id, 0.6)
    c.memories.associate(scope.tenant, scope.user_id, memories[0].id, memories[1].id, 0.3)
    before = _state(c, scope, memories)
    timer = c.store.timer
    ran_before = dict(timer.by_statement)

    report = c.plan_warm_up.run([(scope, memories[0].id)])

    assert report.users == (log_name(scope),)  # as logs name a user: no user id (tests/test_log_names.py)
    assert report.recalls == 2 * len(REHEARSED_QUESTIONS) and report.related_depths == 5
    grown = {name for name, seconds in timer.by_statement.items() if seconds > ran_before.get(name, 0.0)}
    # the cached recall's read, the usage write of what it chose, and the traversal: the statements requests run
    assert {"recall/rows_checked", "related/search"} <= grown
    assert {"recall/use", "recall/touch"} & grown
    assert _state(c, scope, memories) == before  # rolled back: no recall counted, no weight or strength moved

    # the same question recalled for real is recorded (what the rehearsal would have written)
    result = c.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query="What is my name?", k=5))
    assert result.memories
    recalled = {r.memory.id for r in result.memories}
    after = _state(c, scope, memories)
    assert all(after[i][0] == 1 for i, m in enumerate(memories) if m.id in recalled)


def test_plan_size_classes_are_the_ones_neo4j_files_plans_under() -> None:
    # measured on Neo4j 5.26 (BENCHMARKS.md "Recall latency", session 20): lengths 1 | 2-10 | 11-100 | 101-1000
    assert [plan_size_class("x" * n) for n in (0, 1, 2, 10, 11, 100, 101, 1000, 1001)] == [0, 1, 1, 1, 2, 2, 3, 3, 4]


def test_the_store_names_the_biggest_user_of_each_size_class(container: Container, tenant: str) -> None:
    # two users of this tenant whose ids fall in different size classes: Neo4j plans for them apart
    short = Scope(tenant=tenant, user_id="bo")
    long = Scope(tenant=tenant, user_id="u" * 150)  # 101-1000: a class few users of the store have
    _remember(container, short, "I keep bees on the roof")
    for text in ("I collect old maps", "My bike is a green Brompton"):
        _remember(container, long, text)

    subjects = container.recall.rehearsal_subjects(limit=50)

    classes = [(plan_size_class(s.tenant), plan_size_class(s.user_id)) for s, _ in subjects]
    assert len(classes) == len(set(classes))  # one user per class
    named = {(plan_size_class(s.tenant), plan_size_class(s.user_id)): (s, m) for s, m in subjects}
    for mine, count in ((short, 1), (long, 2)):
        user, memory_id = named[(plan_size_class(mine.tenant), plan_size_class(mine.user_id))]
        # the biggest of the class: this user, or one with at least as many memories
        held = container.memories.page(user.tenant, user.user_id, first=count, include_history=True).items
        assert user == mine or len(held) >= count
        assert container.memories.get(user.tenant, user.user_id, memory_id) is not None
    assert len(container.recall.rehearsal_subjects(limit=1)) == 1


def test_neo4j_tells_when_it_started(container: Container) -> None:
    started = container.store.server_started()
    assert started is not None and 1_600_000_000_000 < started <= time.time() * 1000


def test_the_plans_are_warmed_again_only_after_neo4j_restarts() -> None:
    starts: list[int | None] = [100, 100, None, 250, 250]
    runs: list[int] = []

    def warm_up() -> WarmUpReport:
        runs.append(1)
        return WarmUpReport(users=("t/u",), recalls=14, related_depths=5, seconds=0.1)

    watch = RestartWatch(warm_up, lambda: starts.pop(0))
    watch.warmed(100)  # bmam's own start warmed the plans of the server started at 100
    reports = [watch.check() for _ in range(5)]
    # same server, Neo4j silent, a restart (once), the restarted server again
    assert [r is not None for r in reports] == [False, False, False, True, False]
    assert len(runs) == 1


def test_the_server_stops_after_a_warm_up_in_progress_ends_not_under_it(settings: Settings,
                                                                        container: Container) -> None:
    """Stopping cancels the warm-up's task, not its thread, which may be inside a statement: the driver was
    closed under it (BufferError in the driver, the shutdown failed). The shutdown now waits for it."""
    from starlette.testclient import TestClient

    from resolvers.app import create_app

    on = settings.model_copy(deep=True)
    on.api.warm_up_plans, on.api.rewarm_check_s = True, 0
    own = Container(on)  # the session's container (its fixture) makes sure Neo4j runs
    ran: list[str] = []

    def slow_warm_up() -> WarmUpReport:
        ran.append("started")
        time.sleep(1.5)  # still running when the test client leaves
        ran.append("store answered" if own.store.ping() else "store closed")
        return WarmUpReport(recalls=0, related_depths=0, seconds=1.5, users=())

    own.__dict__["plan_warm_up"] = type("SlowWarmUp", (), {"run": staticmethod(slow_warm_up)})()
    app = create_app(own, migrate=False, dev_key_enabled=False)
    with TestClient(app):
        deadline = time.monotonic() + 10
        while not ran and time.monotonic() < deadline:
            time.sleep(0.01)
    assert ran == ["started", "store answered"]
