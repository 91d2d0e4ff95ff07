"""Weights: the pure formulas alone, then the store against them with a fake clock advancing weeks (every
part and the final weight checked to 1e-9)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bmam.clock import FakeClock
from bmam.container import Container
from graph.ids import new_memory_id
from graph.model import Memory, MemoryType, NewMemory, PresetKind, Scope, Tier
from ingest.weights import (
    DAY_MS,
    SCENARIO_FACTORS,
    WEEK_MS,
    FeedbackSignal,
    Parts,
    RebalancePolicy,
    Scenario,
    WeightPolicy,
    clamp01,
    damped,
    decayed,
    elapsed_ms,
    feedback_delta,
    final_weight,
    is_valuable_low_frequency,
    lifted,
    preset_for,
    recalled,
    with_active,
)

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TOL = 1e-9
P = WeightPolicy()

# ----- pure ----------------------------------------------------------------------------------------------


def test_final_weight_is_the_seed_formula_with_every_part_clamped() -> None:
    assert final_weight(Parts(0.5, 0.4, 0.3), P) == pytest.approx(0.6 * 0.5 + 0.3 * 0.4 + 0.1 * 0.3, abs=1e-15)
    assert final_weight(Parts(1.7, -2.0, 3.0), P) == pytest.approx(0.6 * 1.0 + 0.3 * 0.0 + 0.1 * 1.0, abs=1e-15)
    assert final_weight(Parts(1.0, 1.0, 1.0), P) == pytest.approx(1.0, abs=1e-15)
    assert final_weight(Parts(0.0, 0.0, 0.0), P) == 0.0
    assert clamp01(-0.1) == 0.0 and clamp01(1.1) == 1.0 and clamp01(0.25) == 0.25


def test_presets_by_kind() -> None:
    assert preset_for(PresetKind.SAFETY, P) == 1.0
    assert preset_for(PresetKind.TEMPORARY, P) == 0.3
    assert preset_for(PresetKind.DEFAULT, P) == 0.5


def test_passive_loses_five_percent_a_week_compounded_over_fractions() -> None:
    parts = Parts(0.8, 0.6, 0.5)
    one_week = decayed(parts, MemoryType.FACTUAL, WEEK_MS, P)
    assert one_week.passive == pytest.approx(0.8 * 0.95, abs=1e-15)
    assert one_week.active == 0.6 and one_week.preset == 0.5  # only passive decays for a factual memory
    half = decayed(parts, MemoryType.FACTUAL, WEEK_MS // 2, P)
    assert half.passive == pytest.approx(0.8 * 0.95**0.5, abs=1e-15)
    assert decayed(parts, MemoryType.FACTUAL, 0, P) == parts
    assert decayed(parts, MemoryType.FACTUAL, -5, P) == parts


def test_emotional_memories_also_fade_by_the_scenario_factor_per_day() -> None:
    parts = Parts(0.8, 0.6, 0.5)
    for scenario, factor in ((Scenario.SOCIAL, 0.9), (Scenario.CUSTOMER_SERVICE, 0.95), (Scenario.EDUCATION, 0.8)):
        assert SCENARIO_FACTORS[scenario] == factor
        policy = WeightPolicy(emotional_daily_factor=factor)
        after = decayed(parts, MemoryType.EMOTIONAL, 3 * DAY_MS, policy)
        assert after.passive == pytest.approx(0.8 * 0.95 ** (3 / 7) * factor**3, abs=1e-15)
        assert after.active == pytest.approx(0.6 * factor**3, abs=1e-15)
        assert after.preset == 0.5


@settings(max_examples=60, deadline=None)
@given(
    p=st.floats(0, 1), a=st.floats(0, 1),
    t1=st.integers(0, 60 * WEEK_MS), t2=st.integers(0, 60 * WEEK_MS),
    kind=st.sampled_from([MemoryType.FACTUAL, MemoryType.EMOTIONAL]),
)
def test_decay_is_path_independent(p: float, a: float, t1: int, t2: int, kind: MemoryType) -> None:
    once = decayed(Parts(p, a, 0.5), kind, t1 + t2, P)
    twice = decayed(decayed(Parts(p, a, 0.5), kind, t1, P), kind, t2, P)
    assert twice.passive == pytest.approx(once.passive, abs=1e-12)
    assert twice.active == pytest.approx(once.active, abs=1e-12)


def test_feedback_signals() -> None:
    assert [feedback_delta(s, P) for s in FeedbackSignal] == [0.5, -0.5, 0.2, -0.2]
    assert with_active(Parts(0, 0.8, 0), 0.5).active == 1.0
    assert with_active(Parts(0, 0.1, 0), -0.2).active == 0.0
    assert recalled(Parts(0.95, 0, 0), P).passive == 1.0
    assert recalled(Parts(0.3, 0, 0), P).passive == pytest.approx(0.4)


def test_elapsed_ms_truncates_like_neo4j_epoch_millis() -> None:
    a = datetime(2026, 1, 1, 0, 0, 0, 999, tzinfo=UTC)  # 0.999 ms
    b = datetime(2026, 1, 1, 0, 0, 1, 1500, tzinfo=UTC)
    assert elapsed_ms(a, b) == 1001
    assert elapsed_ms(b, a) == 0


R = RebalancePolicy()


@settings(max_examples=80, deadline=None)
@given(p=st.floats(0, 1), a=st.floats(0, 1), s=st.floats(0, 1))
def test_damping_drops_the_weight_by_exactly_damp_by_and_is_idempotent(p: float, a: float, s: float) -> None:
    parts = Parts(p, a, s)
    w = final_weight(parts, P)
    after = damped(parts, PresetKind.DEFAULT, False, P, R)
    if w <= R.damp_above + 1e-9:
        assert after is None
        return
    assert after is not None
    assert final_weight(after, P) == pytest.approx(w - R.damp_by, abs=1e-12)
    assert final_weight(after, P) <= R.damp_above + 1e-9
    assert damped(after, PresetKind.DEFAULT, False, P, R) is None  # a second rebalance leaves it alone


def test_no_damping_of_locked_or_safety_memories() -> None:
    heavy = Parts(1.0, 1.0, 1.0)
    assert damped(heavy, PresetKind.SAFETY, False, P, R) is None
    assert damped(heavy, PresetKind.DEFAULT, True, P, R) is None
    assert damped(heavy, PresetKind.DEFAULT, False, P, R) is not None


def test_valuable_low_frequency_means_engaged_or_repeated_but_rarely_recalled() -> None:
    liked = Parts(0.0, 0.7, 0.5)  # a DWELL beyond the starting 0.5
    plain = Parts(0.0, 0.5, 0.5)
    assert is_valuable_low_frequency(liked, mention_count=1, recall_count=0, locked=False, policy=P, rebalance=R)
    assert is_valuable_low_frequency(plain, mention_count=3, recall_count=1, locked=False, policy=P, rebalance=R)
    assert not is_valuable_low_frequency(plain, mention_count=1, recall_count=0, locked=False, policy=P, rebalance=R)
    assert not is_valuable_low_frequency(liked, mention_count=1, recall_count=2, locked=False, policy=P, rebalance=R)
    assert not is_valuable_low_frequency(liked, mention_count=1, recall_count=0, locked=True, policy=P, rebalance=R)
    assert not is_valuable_low_frequency(liked, mention_count=1, recall_count=0, locked=False, policy=P, rebalance=R,
                                         temporary=True)  # weather picked up again is no value
    assert lifted(liked, R).passive == 0.5 and lifted(lifted(liked, R), R) == lifted(liked, R)


# ----- against the store -----------------------------------------------------------------------------------


@pytest.fixture
def living(container: Container) -> Iterator[tuple[Container, FakeClock]]:
    """A container on a fake clock sharing the session's store and embedding model."""
    clock = FakeClock(START)
    c = Container(container.settings, clock=clock)
    c.__dict__["store"] = container.store
    c.__dict__["embedder"] = container.embedder
    c.__dict__["maintenance_store"] = container.maintenance_store
    yield c, clock


def store_memory(c: Container, scope: Scope, text: str, *, type: MemoryType = MemoryType.FACTUAL,
                 passive: float = 0.8, active: float = 0.6, preset_kind: PresetKind = PresetKind.DEFAULT,
                 tier: Tier = Tier.TEMP) -> Memory:
    embedding = [float(x) for x in c.embedder.embed_passages([text])[0]]
    new = NewMemory(id=new_memory_id(), text=text, type=type, embedding=embedding, tier=tier, preset_kind=preset_kind,
                    preset=preset_for(preset_kind, c.weight_policy))
    return c.memory_repository.remember(scope, new, now=c.clock.now(), passive=passive, active=active).memory


def assert_parts(m: Memory, expected: Parts, policy: WeightPolicy) -> None:
    assert m.weight.passive == pytest.approx(expected.passive, abs=TOL)
    assert m.weight.active == pytest.approx(expected.active, abs=TOL)
    assert m.weight.preset == pytest.approx(expected.preset, abs=TOL)
    assert m.weight.final == pytest.approx(final_weight(expected, policy), abs=TOL)


def test_weights_follow_the_formulas_as_weeks_pass(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    policy = c.weight_policy
    factual = store_memory(c, scope, "I work at a bank in Chengdu", passive=0.8, active=0.6)
    emotional = store_memory(c, scope, "I felt lonely after moving", type=MemoryType.EMOTIONAL, passive=0.9,
                             active=0.7)
    safety = store_memory(c, scope, "I am allergic to peanuts", preset_kind=PresetKind.SAFETY, passive=0.5,
                          active=0.5)
    temporary = store_memory(c, scope, "It is raining today", preset_kind=PresetKind.TEMPORARY, passive=0.4,
                             active=0.5)
    expected = {m.id: (m.type, Parts(m.weight.passive, m.weight.active, m.weight.preset))
                for m in (factual, emotional, safety, temporary)}
    assert expected[safety.id][1].preset == 1.0 and expected[temporary.id][1].preset == 0.3
    last = clock.now()
    for step in (timedelta(weeks=1), timedelta(days=3, hours=5), timedelta(weeks=2), timedelta(minutes=7)):
        clock.advance(step)
        assert c.feedback.decay(scope.tenant, scope.user_id) == 4
        elapsed = elapsed_ms(last, clock.now())
        last = clock.now()
        for mid, (kind, parts) in list(expected.items()):
            expected[mid] = (kind, decayed(parts, kind, elapsed, policy))
            got = c.memory_repository.get(scope, mid)
            assert got is not None
            assert_parts(got, expected[mid][1], policy)
    # Decay is lazy as well: feedback first brings the memory up to now, then moves `active`.
    clock.advance(timedelta(weeks=3))
    liked = c.feedback.feedback(scope.tenant, scope.user_id, factual.id, "LIKE")
    kind, parts = expected[factual.id]
    assert_parts(liked, with_active(decayed(parts, kind, 3 * WEEK_MS, policy), 0.5), policy)
    # A second decay at the same instant changes nothing.
    assert c.feedback.decay(scope.tenant, scope.user_id, [factual.id]) == 0


def test_recall_adds_a_tenth_to_passive_after_decaying(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    m = store_memory(c, scope, "My sister lives in Berlin", passive=0.3, active=0.5)
    clock.advance(timedelta(weeks=2))
    weights = c.feedback.recalled(scope, [m.id])
    expected = recalled(decayed(Parts(0.3, 0.5, 0.5), MemoryType.FACTUAL, 2 * WEEK_MS, c.weight_policy),
                        c.weight_policy)
    got = c.memory_repository.get(scope, m.id)
    assert got is not None and got.recall_count == 1
    assert_parts(got, expected, c.weight_policy)
    assert weights[m.id] == pytest.approx(final_weight(expected, c.weight_policy), abs=TOL)


def test_maintenance_decay_matches_the_formulas_and_leaves_locked_memories(living: tuple[Container, FakeClock],
                                                                          scope: Scope) -> None:
    c, clock = living
    loose = store_memory(c, scope, "I like jazz", passive=0.7, active=0.5)
    core = store_memory(c, scope, "My name is Alice", passive=0.7, active=0.5, tier=Tier.CORE)
    assert core.locked
    clock.advance(timedelta(days=10))
    result = c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id)
    assert result.changeset is not None and result.changeset.decayed == 1
    got = c.memory_repository.get(scope, loose.id)
    assert got is not None
    assert_parts(got, decayed(Parts(0.7, 0.5, 0.5), MemoryType.FACTUAL, 10 * DAY_MS, c.weight_policy), c.weight_policy)
    assert c.memory_repository.get(scope, core.id) == core


def test_a_locked_memory_does_not_decay_and_unlock_restarts_its_clock(living: tuple[Container, FakeClock],
                                                                      scope: Scope) -> None:
    """Core is locked: only the user changes it, and time is not the user. Its weight is brought to now as it
    enters core, then no path decays it (a decay pass, recall's ranking and usage write, feedback), while
    recall and feedback still move it; unlock starts its decay from the unlock, never charging the locked time."""
    from bmam.usecases.recall import RecallRequest

    c, clock = living
    policy = c.weight_policy
    m = store_memory(c, scope, "My daughter Mei was born in Qingdao", passive=0.8, active=0.5, tier=Tier.MID)
    clock.advance(timedelta(weeks=2))
    c.tiers.lock(scope.tenant, scope.user_id, m.id)
    at_lock = decayed(Parts(0.8, 0.5, 0.5), MemoryType.FACTUAL, 2 * WEEK_MS, policy)
    locked = c.memory_repository.get(scope, m.id)
    assert locked is not None and locked.locked
    assert_parts(locked, at_lock, policy)  # brought to the lock's instant, not frozen at its creation weight

    clock.advance(timedelta(weeks=6))
    assert c.feedback.decay(scope.tenant, scope.user_id) == 0
    assert c.memory_repository.get(scope, m.id) == locked
    found = c.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query="Where was my daughter Mei born?"))
    [hit] = [r for r in found.memories if r.memory.id == m.id]
    assert hit.scores.weight == pytest.approx(final_weight(at_lock, policy), abs=1e-6)  # ranked as stored
    used = recalled(at_lock, policy)  # the recall's +0.1, on the undecayed parts
    assert_parts(hit.memory, used, policy)
    liked = c.feedback.feedback(scope.tenant, scope.user_id, m.id, "LIKE")
    assert_parts(liked, with_active(used, 0.5), policy)

    clock.advance(timedelta(weeks=3))
    c.tiers.unlock(scope.tenant, scope.user_id, m.id)
    clock.advance(timedelta(weeks=1))
    assert c.feedback.decay(scope.tenant, scope.user_id, [m.id]) == 1
    got = c.memory_repository.get(scope, m.id)
    assert got is not None and not got.locked and got.tier is Tier.MID
    assert_parts(got, decayed(with_active(used, 0.5), MemoryType.FACTUAL, WEEK_MS, policy), policy)  # 1 week, not 10
