"""The tier rules alone (pure), then applied to real Neo4j: reactions, lock / unlock, the sweep with a
fake clock, and capacities with demotion and eviction."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.recall import RecallRequest
from graph.conflicts import ConflictStatus, ConflictStrategy
from graph.errors import BadInput, Conflict, NotFound
from graph.model import Memory, MemoryType, PresetKind, Scope, Tier, WeightParts
from graph.tiers import TierMemory
from ingest.tier_policy import (
    Capacities,
    Reason,
    Signal,
    TierChange,
    TierRules,
    current_weight,
    decayed_to,
    enforce_capacity,
    least_useful_first,
    on_mention,
    on_new_memory,
    on_topic,
    react,
    sweep,
)
from ingest.turns import TurnInput
from ingest.weights import Parts, WeightPolicy, decayed, elapsed_ms, final_weight
from tests.test_conflicts import store

T0 = datetime(2026, 3, 1, tzinfo=UTC)
RULES = TierRules(capacities=Capacities(core=2, mid=2, temp=3))


def mem(id: str, tier: Tier = Tier.TEMP, weight: float = 0.2, days_ago: float = 0.0, *, locked: bool | None = None,
        preset: PresetKind = PresetKind.DEFAULT, created_days_ago: float | None = None, superseded: bool = False,
        held: bool = False, succeeds_kept: bool = False) -> TierMemory:
    created = T0 - timedelta(days=created_days_ago if created_days_ago is not None else days_ago)
    return TierMemory(id=id, tier=tier, locked=(tier is Tier.CORE) if locked is None else locked, weight=weight,
                      last_mentioned_at=T0 - timedelta(days=days_ago), created_at=created, preset_kind=preset,
                      superseded=superseded, in_open_conflict=held, succeeds_kept=succeeds_kept)


def weighed(m: TierMemory, passive: float, active: float, *, decayed_days_ago: float,
            memory_type: MemoryType = MemoryType.FACTUAL) -> TierMemory:
    """m with stored weight parts (preset 0.5), last decayed decayed_days_ago; its stored weight from them."""
    stored = final_weight(Parts(passive, active, 0.5), WeightPolicy())
    return replace(m, weight=stored, parts=WeightParts(passive, active, 0.5, stored), memory_type=memory_type,
                   decayed_at=T0 - timedelta(days=decayed_days_ago))


# ----- pure rules ----------------------------------------------------------------------------------


def test_least_useful_is_lowest_weight_then_longest_unmentioned_unlocked_only() -> None:
    ms = [mem("a", weight=0.3, days_ago=9), mem("b", weight=0.2, days_ago=1), mem("c", weight=0.2, days_ago=5),
          mem("d", Tier.CORE, weight=0.0, days_ago=99), mem("e", weight=0.1, days_ago=0, locked=True),
          mem("f", weight=0.2, days_ago=5, created_days_ago=6)]
    assert [m.id for m in least_useful_first(ms)] == ["f", "c", "b", "a"]


def test_capacity_demotes_mid_then_evicts_temp() -> None:
    ms = [mem("m1", Tier.MID, 0.5, 1), mem("m2", Tier.MID, 0.3, 1), mem("m3", Tier.MID, 0.4, 1),
          mem("t1", Tier.TEMP, 0.2, 3), mem("t2", Tier.TEMP, 0.25, 1), mem("t3", Tier.TEMP, 0.35, 1),
          mem("k", Tier.CORE, 0.0, 50)]
    changes = enforce_capacity(ms, RULES.capacities)
    assert changes == [TierChange("m2", Tier.MID, Tier.TEMP, Reason.MID_FULL),
                       TierChange("t1", Tier.TEMP, None, Reason.TEMP_FULL)]
    assert enforce_capacity(ms[:2] + ms[3:5], RULES.capacities) == []


def test_a_safety_memory_counts_in_temp_but_is_never_evicted() -> None:
    """A full temp evicted "I'm allergic to bee stings" (SAFETY, the lightest): it counts, the next one goes; a
    temp full of safety memories stays over its capacity."""
    ms = [mem("bees", Tier.TEMP, 0.1, 3, preset=PresetKind.SAFETY), mem("t1", Tier.TEMP, 0.2, 3),
          mem("t2", Tier.TEMP, 0.25, 1), mem("t3", Tier.TEMP, 0.35, 1)]
    assert enforce_capacity(ms, RULES.capacities) == [TierChange("t1", Tier.TEMP, None, Reason.TEMP_FULL)]
    only_safety = [replace(m, preset_kind=PresetKind.SAFETY) for m in ms]
    assert enforce_capacity(only_safety, RULES.capacities) == []


def test_a_demoted_memory_may_be_the_one_evicted() -> None:
    ms = [mem("m1", Tier.MID, 0.5), mem("m2", Tier.MID, 0.5), mem("m3", Tier.MID, 0.01),
          mem("t1", Tier.TEMP, 0.2), mem("t2", Tier.TEMP, 0.2), mem("t3", Tier.TEMP, 0.2)]
    assert [(c.memory_id, c.to_tier) for c in enforce_capacity(ms, RULES.capacities)] == [
        ("m3", Tier.TEMP), ("m3", None)]


def test_what_was_just_promoted_gives_way_last_but_the_capacity_holds() -> None:
    """keep (what the same turn promoted) is a preference: the others give way first; when the kept alone are
    more than the tier holds, the least useful of them give way too (a batch repeating three temp memories
    into a mid of two left mid over its capacity: CI, 2026-12-03)."""
    ms = [mem("old", Tier.MID, 0.1), mem("p1", Tier.MID, 0.5), mem("p2", Tier.MID, 0.3), mem("p3", Tier.MID, 0.4)]
    keep = frozenset({"p1", "p2", "p3"})
    assert enforce_capacity(ms, RULES.capacities, keep) == [TierChange("old", Tier.MID, Tier.TEMP, Reason.MID_FULL),
                                                            TierChange("p2", Tier.MID, Tier.TEMP, Reason.MID_FULL)]
    assert enforce_capacity(ms[:3], RULES.capacities, keep) == [
        TierChange("old", Tier.MID, Tier.TEMP, Reason.MID_FULL)]  # the kept fit: only the other goes
    temp = [mem("t1", weight=0.1), *(mem(f"n{i}", weight=0.2 + i / 10) for i in range(4))]
    assert enforce_capacity(temp, RULES.capacities, frozenset(f"n{i}" for i in range(4))) == [
        TierChange("t1", Tier.TEMP, None, Reason.TEMP_FULL), TierChange("n0", Tier.TEMP, None, Reason.TEMP_FULL)]


def test_sweep_deletes_stale_temp_and_lets_faded_mid_fall_back() -> None:
    ms = [
        mem("stale", Tier.TEMP, 0.2, days_ago=8),
        mem("fresh", Tier.TEMP, 0.2, days_ago=6),
        mem("heavy", Tier.TEMP, 0.31, days_ago=30),
        mem("safety", Tier.TEMP, 0.25, days_ago=30, preset=PresetKind.SAFETY),
        mem("winner", Tier.TEMP, 0.22, days_ago=30, succeeds_kept=True),
        mem("faded", Tier.MID, 0.35, days_ago=31),
        mem("kept", Tier.MID, 0.45, days_ago=60),
        mem("recent", Tier.MID, 0.1, days_ago=29),
        mem("core", Tier.CORE, 0.0, days_ago=400),
    ]
    rules = TierRules(capacities=Capacities(core=5, mid=5, temp=5))
    assert sweep(ms, rules, T0) == [TierChange("stale", Tier.TEMP, None, Reason.STALE),
                                    TierChange("faded", Tier.MID, Tier.TEMP, Reason.FADED)]
    # the temp tier with the fallen memory is over a capacity of 3: its least useful goes
    small = sweep(ms, TierRules(capacities=Capacities(core=5, mid=5, temp=3)), T0)
    assert small[-2:] == [TierChange("fresh", Tier.TEMP, None, Reason.TEMP_FULL),
                          TierChange("winner", Tier.TEMP, None, Reason.TEMP_FULL)]  # never stale, evictable


def test_the_stale_and_fade_clocks_start_again_on_a_move() -> None:
    """A memory long unmentioned that the user just engaged with (temp -> mid) or unlocked, or that just fell
    back to temp, is judged from its move (tier_since), not swept back down or away at once."""
    rules = TierRules(capacities=Capacities(core=5, mid=5, temp=5))
    engaged = replace(mem("engaged", Tier.MID, 0.26, days_ago=40), tier_since=T0 - timedelta(minutes=3))
    fallen = replace(mem("fallen", Tier.TEMP, 0.2, days_ago=40), tier_since=T0 - timedelta(days=1))
    assert sweep([engaged, fallen], rules, T0) == []
    later = T0 + timedelta(days=31)
    assert sweep([engaged, fallen], rules, later) == [TierChange("fallen", Tier.TEMP, None, Reason.STALE),
                                                      TierChange("engaged", Tier.MID, Tier.TEMP, Reason.FADED)]


def test_the_users_routines_and_how_tos_are_never_stale_and_a_recall_restarts_the_clock() -> None:
    """A routine said with no triple (我每天早上都要喝一杯美式咖啡) is the user's lasting way, not a one-off; said as
    temporary it is one. A memory a recall just returned is in use: judged from that recall."""
    rules = TierRules(capacities=Capacities(core=5, mid=5, temp=9))
    routine = replace(mem("routine", days_ago=30), memory_type=MemoryType.PROCEDURAL)
    tonight = replace(mem("tonight", days_ago=8, preset=PresetKind.TEMPORARY), memory_type=MemoryType.PROCEDURAL)
    episode = replace(mem("episode", days_ago=8), memory_type=MemoryType.EPISODIC)
    recalled = replace(mem("recalled", days_ago=8), memory_type=MemoryType.EPISODIC,
                       last_recalled_at=T0 - timedelta(days=2))
    recalled_long_ago = replace(mem("recalled_long_ago", days_ago=20), memory_type=MemoryType.EPISODIC,
                                last_recalled_at=T0 - timedelta(days=9))
    ms = [routine, tonight, episode, recalled, recalled_long_ago]
    assert sweep(ms, rules, T0) == [TierChange(i, Tier.TEMP, None, Reason.STALE)
                                    for i in ("tonight", "episode", "recalled_long_ago")]
    assert sweep([routine, recalled], rules, T0 + timedelta(days=6)) == [  # 8 days after its recall
        TierChange("recalled", Tier.TEMP, None, Reason.STALE)]
    # the fade of mid counts from the recall too
    in_use = replace(mem("in_use", Tier.MID, 0.35, days_ago=40), last_recalled_at=T0 - timedelta(days=3))
    assert sweep([in_use], rules, T0) == []
    assert sweep([in_use], rules, T0 + timedelta(days=28)) == [TierChange("in_use", Tier.MID, Tier.TEMP, Reason.FADED)]


def test_history_and_memories_held_for_review_are_never_swept_or_evicted() -> None:
    ms = [mem("old", Tier.TEMP, 0.0, days_ago=90, superseded=True), mem("older", Tier.MID, 0.0, 90, superseded=True),
          mem("held", Tier.TEMP, 0.0, days_ago=90, held=True), mem("held_mid", Tier.MID, 0.0, 90, held=True),
          mem("t1", Tier.TEMP, 0.2, days_ago=1), mem("t2", Tier.TEMP, 0.25, days_ago=1),
          mem("m1", Tier.MID, 0.5, days_ago=1), mem("m2", Tier.MID, 0.45, days_ago=1)]
    # history is outside the capacities (mid holds 3 live, temp 3 + the demoted one); held ones count, stay put
    assert enforce_capacity(ms, RULES.capacities) == [TierChange("m2", Tier.MID, Tier.TEMP, Reason.MID_FULL),
                                                      TierChange("t1", Tier.TEMP, None, Reason.TEMP_FULL)]
    roomy = TierRules(capacities=Capacities(core=9, mid=9, temp=9))
    assert sweep(ms, roomy, T0) == []  # old, held: stale by age and weight; older, held_mid: faded
    assert sweep(ms, roomy, T0 + timedelta(days=400)) == [TierChange("t1", Tier.TEMP, None, Reason.STALE),
                                                          TierChange("t2", Tier.TEMP, None, Reason.STALE)]
    # only held memories over a capacity: the tier stays over it until the conflict is resolved
    assert enforce_capacity([mem("h1", held=True), mem("h2", held=True)], Capacities(core=1, mid=1, temp=1)) == []


def test_the_rules_decide_on_the_weight_decayed_to_now() -> None:
    policy = WeightPolicy()
    # stored 0.56 at its last decay 400 days ago: passive lost 5 % a week since, so it is well below 0.4 now
    faded = weighed(mem("faded", Tier.MID, days_ago=400), 0.6, 0.5, decayed_days_ago=400)
    expect = final_weight(decayed(Parts(0.6, 0.5, 0.5), MemoryType.FACTUAL,
                                  elapsed_ms(T0 - timedelta(days=400), T0), policy), policy)
    assert faded.weight == pytest.approx(0.56) and expect < 0.3
    assert current_weight(faded, policy, T0) == pytest.approx(expect)
    assert decayed_to([faded], policy, T0)[0].weight == pytest.approx(expect)
    # decayed half-way by some other call: the same weight now (decay is path independent)
    half = decayed(Parts(0.6, 0.5, 0.5), MemoryType.FACTUAL, elapsed_ms(T0 - timedelta(days=400),
                                                                      T0 - timedelta(days=200)), policy)
    halfway = weighed(mem("faded", Tier.MID, days_ago=400), half.passive, half.active, decayed_days_ago=200)
    assert current_weight(halfway, policy, T0) == pytest.approx(expect)
    # an emotional memory also fades per day by the scenario factor (social 0.9)
    sad = weighed(mem("sad", Tier.MID, days_ago=40), 0.2, 1.0, decayed_days_ago=10, memory_type=MemoryType.EMOTIONAL)
    assert sad.weight == pytest.approx(0.47)
    fade = 0.9**10
    assert current_weight(sad, policy, T0) == pytest.approx(0.6 * 0.2 * 0.95 ** (10 / 7) * fade + 0.3 * fade + 0.05)
    rules = TierRules(capacities=Capacities(core=9, mid=9, temp=9))
    assert sweep([faded, sad], rules, T0) == [TierChange("faded", Tier.MID, Tier.TEMP, Reason.FADED),
                                              TierChange("sad", Tier.MID, Tier.TEMP, Reason.FADED)]
    # eviction: the stored 0.56 decayed to ~0.22 is lighter than a fresh 0.26
    fresh = [weighed(mem(f"t{i}", Tier.TEMP, days_ago=0), 0.0, 0.7, decayed_days_ago=0) for i in range(3)]
    was_heavy = replace(faded, tier=Tier.TEMP)
    assert enforce_capacity(decayed_to([*fresh, was_heavy], policy, T0), Capacities(core=1, mid=1, temp=3)) == [
        TierChange("faded", Tier.TEMP, None, Reason.TEMP_FULL)]


def test_reactions() -> None:
    temp, mid, core = mem("t"), mem("m", Tier.MID), mem("c", Tier.CORE)
    assert react(temp, Signal.ENGAGED, RULES).change == TierChange("t", Tier.TEMP, Tier.MID, Reason.ENGAGED)
    assert react(temp, Signal.ENGAGED, RULES).active_delta == RULES.explicit_feedback
    assert react(temp, Signal.IGNORED, RULES).change is None
    assert react(temp, Signal.DISMISSED, RULES).change == TierChange("t", Tier.TEMP, None, Reason.DISMISSED)
    assert react(mid, Signal.ENGAGED, RULES).change is None
    out = react(mid, Signal.DISMISSED, RULES)
    assert out.change == TierChange("m", Tier.MID, Tier.TEMP, Reason.DISMISSED) and out.active_delta < 0
    assert react(core, Signal.ENGAGED, RULES).change is None
    assert react(core, Signal.DISMISSED, RULES).refused
    # dismissing deletes a temp memory, but never history or one held for review (forget removes them)
    assert react(mem("h", held=True), Signal.DISMISSED, RULES).refused
    assert react(mem("s", superseded=True), Signal.DISMISSED, RULES).refused
    # history is outside the tiers: engaging it is refused too (it promoted temp history to mid)
    assert react(mem("s", superseded=True), Signal.ENGAGED, RULES).refused
    assert react(mem("sm", Tier.MID, superseded=True), Signal.DISMISSED, RULES).refused
    # every signal alike: IGNORED answered success on history while the other two were refused
    assert react(mem("s", superseded=True), Signal.IGNORED, RULES).refused
    held_mid = react(mem("hm", Tier.MID, held=True), Signal.DISMISSED, RULES)
    assert held_mid.change == TierChange("hm", Tier.MID, Tier.TEMP, Reason.DISMISSED)


def test_mentions_emphasis_and_topic() -> None:
    assert on_mention(Tier.TEMP, 2, emphasis=False, rules=RULES) == [(Tier.TEMP, Tier.MID, Reason.REPEATED)]
    assert on_mention(Tier.MID, 2, emphasis=False, rules=RULES) == []
    assert on_mention(Tier.MID, 3, emphasis=False, rules=RULES) == [(Tier.MID, Tier.CORE, Reason.MENTIONED_OFTEN)]
    assert on_mention(Tier.TEMP, 5, emphasis=False, rules=RULES) == [
        (Tier.TEMP, Tier.MID, Reason.REPEATED), (Tier.MID, Tier.CORE, Reason.MENTIONED_OFTEN)]
    assert on_mention(Tier.TEMP, 2, emphasis=True, rules=RULES) == [(Tier.TEMP, Tier.CORE, Reason.EMPHASIS)]
    assert on_mention(Tier.CORE, 9, emphasis=True, rules=RULES) == []
    assert on_new_memory(emphasis=True) == [(Tier.TEMP, Tier.CORE, Reason.EMPHASIS)]
    assert on_new_memory(emphasis=False) == []
    assert on_topic(Tier.TEMP) == (Tier.TEMP, Tier.MID, Reason.TOPIC_PICKED_UP)
    assert on_topic(Tier.MID) is None and on_topic(Tier.CORE) is None


# ----- against Neo4j -----------------------------------------------------------------------------


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


def small(settings: Settings, clock: FakeClock, **tiers: Any) -> Container:
    return Container(settings.model_copy(update={"tiers": settings.tiers.model_copy(update=tiers)}), clock=clock)


@pytest.fixture
def c(settings: Settings, clock: FakeClock, container: Container) -> Iterator[Container]:
    made = small(settings, clock, core_capacity=1, mid_capacity=2, temp_capacity=4)
    yield made
    made.close()


FACTS = ["My sister lives in Berlin", "I play the piano every day", "我的生日是7月20日", "我在腾讯工作",
         "I am learning Japanese", "我养了一只猫叫咪咪"]


def remember_facts(c: Container, tenant: str, facts: list[str], clock: FakeClock) -> list[str]:
    ids = []
    for text in facts:
        r = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user", text=text))
        assert r.memories, text
        ids.append(r.memories[0].id)
        clock.advance(timedelta(minutes=1))
    return ids


def tier_of(c: Container, tenant: str, mid: str) -> Tier | None:
    m = c.memories.get(tenant, "alice", mid)
    return m.tier if m else None


def test_engaged_promotes_and_a_full_mid_demotes_its_least_useful(c: Container, tenant: str,
                                                                  clock: FakeClock) -> None:
    a, b, d = remember_facts(c, tenant, FACTS[:3], clock)
    c.tiers.react(tenant, "alice", a, "ENGAGED")
    c.tiers.react(tenant, "alice", b, "engaged")
    result = c.tiers.react(tenant, "alice", d, Signal.ENGAGED)
    # three in a mid of two: the longest unmentioned of equal weight (a) goes back to temp
    assert [(x.memory_id, x.to_tier, x.reason) for x in result.changes] == [
        (d, Tier.MID, Reason.ENGAGED), (a, Tier.TEMP, Reason.MID_FULL)]
    assert [tier_of(c, tenant, m) for m in (a, b, d)] == [Tier.TEMP, Tier.MID, Tier.MID]
    got = c.memories.get(tenant, "alice", d)
    assert got is not None and got.weight.active == pytest.approx(1.0)
    assert c.tiers.usage(tenant, "alice").counts == {Tier.TEMP: 1, Tier.MID: 2, Tier.CORE: 0}


def mid_full_of_heavier_ones(c: Container, tenant: str, clock: FakeClock) -> tuple[str, str, str]:
    """Three memories a, b, d: a and b engaged into a mid of two and recalled (they gain passive weight), so d
    would be mid's least useful once there."""
    a, b, d = remember_facts(c, tenant, FACTS[:3], clock)
    c.tiers.react(tenant, "alice", a, "ENGAGED")
    c.tiers.react(tenant, "alice", b, "ENGAGED")
    for _ in range(3):
        for text in FACTS[:2]:
            c.recall.recall(tenant, RecallRequest(user_id="alice", query=text, k=1))
    return a, b, d


def test_the_engaged_memory_keeps_its_promotion_when_it_is_mids_least_useful(c: Container, tenant: str,
                                                                              clock: FakeClock) -> None:
    """The user just engaged with it: a full mid gives way by its least useful other memory, never by the
    one promoted (which would be a promotion and a demotion of the same memory in one reaction)."""
    a, b, d = mid_full_of_heavier_ones(c, tenant, clock)
    ms = {m.id: m for m in (c.memories.get(tenant, "alice", x) for x in (a, b, d)) if m is not None}
    assert ms[d].weight.final < min(ms[a].weight.final, ms[b].weight.final)
    result = c.tiers.react(tenant, "alice", d, Signal.ENGAGED)
    assert [(x.memory_id, x.to_tier, x.reason) for x in result.changes] == [
        (d, Tier.MID, Reason.ENGAGED), (a if ms[a].weight.final <= ms[b].weight.final else b, Tier.TEMP,
                                        Reason.MID_FULL)]
    assert result.memory is not None and result.memory.tier is Tier.MID
    assert c.tiers.usage(tenant, "alice").counts == {Tier.TEMP: 1, Tier.MID: 2, Tier.CORE: 0}


def test_a_memory_promoted_by_a_repeat_keeps_its_promotion_when_it_is_mids_least_useful(
        c: Container, tenant: str, clock: FakeClock) -> None:
    """Ingest's capacity check spares what the same turn promoted, as a reaction's does: said again, the memory
    goes to mid and a full mid gives way by another (it went up and straight back down, reported PROMOTED then
    DEMOTED in one turn)."""
    a, b, d = mid_full_of_heavier_ones(c, tenant, clock)
    clock.advance(timedelta(minutes=1))
    c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s2", speaker="user", text=FACTS[2]))
    assert tier_of(c, tenant, d) is Tier.MID
    assert {tier_of(c, tenant, a), tier_of(c, tenant, b)} == {Tier.MID, Tier.TEMP}
    assert c.tiers.usage(tenant, "alice").counts == {Tier.TEMP: 1, Tier.MID: 2, Tier.CORE: 0}


def test_a_turn_repeating_more_than_mid_holds_leaves_mid_within_its_capacity(
        c: Container, tenant: str, clock: FakeClock) -> None:
    """Three temp memories said again in one request all go up (REPEATED) into a mid of two: the least useful of
    them goes back down, mid holds two (it held three, over its capacity, when ingest spared all it promoted)."""
    remember_facts(c, tenant, FACTS[:3], clock)
    report = c.ingest.ingest_conversation(tenant, [TurnInput(user_id="alice", session_id="s2", speaker="user",
                                                             text=text) for text in FACTS[:3]])
    assert sum(ch.to_tier is Tier.MID for t in report.turns for ch in t.changes) == 3
    assert c.tiers.usage(tenant, "alice").counts == {Tier.TEMP: 1, Tier.MID: 2, Tier.CORE: 0}


def test_dismissed_deletes_temp_and_sends_mid_back(c: Container, tenant: str, clock: FakeClock) -> None:
    a, b = remember_facts(c, tenant, FACTS[:2], clock)
    assert c.tiers.react(tenant, "alice", a, "IGNORED").changes == []
    assert tier_of(c, tenant, a) is Tier.TEMP
    gone = c.tiers.react(tenant, "alice", a, "DISMISSED")
    assert gone.deleted and tier_of(c, tenant, a) is None
    c.tiers.react(tenant, "alice", b, "ENGAGED")
    back = c.tiers.react(tenant, "alice", b, "DISMISSED")
    assert back.memory is not None and back.memory.tier is Tier.TEMP
    assert back.memory.weight.active == pytest.approx(0.5)
    with pytest.raises(NotFound):
        c.tiers.react(tenant, "alice", a, "ENGAGED")
    with pytest.raises(BadInput):
        c.tiers.react(tenant, "alice", b, "LOVED")


def test_a_memory_the_tier_rules_delete_leaves_nothing_naming_it(c: Container, tenant: str, clock: FakeClock) -> None:
    """As forget does: a dismissed (or evicted, or stale) memory takes with it the settled conflicts it was in (one
    left its winner's id and a single BETWEEN edge behind) and the entities only it named; what another memory
    names stays."""
    from tests.ops_support import Inspector

    for text in ("I live in Beijing.", "We moved to Seattle last month."):
        clock.advance(timedelta(minutes=1))
        c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user", text=text))
    [settled] = c.conflicts.conflicts(tenant, "alice", status=None)
    assert settled.status is ConflictStatus.RESOLVED and settled.winner_id is not None
    assert c.tiers.react(tenant, "alice", settled.winner_id, "DISMISSED").deleted
    assert c.conflicts.conflicts(tenant, "alice", status=None) == []
    config = c.store.config
    inspector = Inspector(config.uri, config.user, config.password)
    try:
        names = {r["name"] for r in inspector.rows(
            "MATCH (e:Entity) WHERE e.tenant = $t AND e.user_id = 'alice' RETURN e.name AS name", t=tenant)}
        conflicts = inspector.rows("MATCH (k:Conflict) WHERE k.tenant = $t RETURN k.id AS id", t=tenant)
    finally:
        inspector.close()
    assert "Seattle" not in names and "Beijing" in names  # the superseded memory still names Beijing
    assert conflicts == []
    # the loser stays history, listed though its successor is gone (it dropped out of the listing with the edge)
    [entry] = c.conflicts.history(tenant, "alice")
    assert entry.memory.id == settled.loser_id and entry.memory.valid_to is not None and entry.superseded_by == []


def test_memories_deleted_together_share_their_entities_cleanly(c: Container, tenant: str, clock: FakeClock) -> None:
    """Two memories evicted in one statement that both name the same entity: the entity goes once, when neither
    is left (tier/delete gathers every deleted memory's entities first; deleting them row by row read an entity
    a previous row had already deleted: Neo.ClientError.Statement.EntityNotFound, found by the property test)."""
    from tests.ops_support import Inspector

    kept, a, b = remember_facts(c, tenant, ["I live in Berlin", "My sister Anna lives in Berlin",
                                            "My sister Anna is a doctor"], clock)
    scope = Scope(tenant, "alice")
    changes = [TierChange(a, Tier.TEMP, None, Reason.STALE), TierChange(b, Tier.TEMP, None, Reason.STALE),
               TierChange(a, Tier.TEMP, None, Reason.STALE)]  # an id twice is deleted once
    done = c.store.write_tx(lambda tx: c.tiers.apply(tx, scope, changes, now=clock.now()))
    assert {ch.memory_id for ch in done} == {a, b}
    assert tier_of(c, tenant, a) is None and tier_of(c, tenant, b) is None and tier_of(c, tenant, kept) is not None
    config = c.store.config
    inspector = Inspector(config.uri, config.user, config.password)
    try:
        names = {r["name"] for r in inspector.rows(
            "MATCH (e:Entity) WHERE e.tenant = $t AND e.user_id = 'alice' RETURN e.name AS name", t=tenant)}
    finally:
        inspector.close()
    assert "Berlin" in names  # the kept memory names it still
    assert "Anna" not in names and "doctor" not in names, names  # only the two deleted named them
    # now the last one naming Berlin goes too, alone
    c.store.write_tx(lambda tx: c.tiers.apply(tx, scope, [TierChange(kept, Tier.TEMP, None, Reason.STALE)],
                                              now=clock.now()))


def test_the_winner_of_a_conflict_with_a_kept_memory_never_goes_stale(c: Container, tenant: str,
                                                                        clock: FakeClock) -> None:
    """"We moved to Seattle" superseding the mid "I live in Beijing" is what the user now says of a thing kept (a
    home is lasting knowledge anyway); so is a cancellation of a plan kept in mid, which states no lasting fact:
    were it stale after a week unmentioned, the plan would be gone and its end too (the pure rule above: a winner
    over a temp memory stating nothing lasting goes stale as any such temp memory does)."""
    said = {}
    pairs = {"alice": ("I live in Beijing.", "We moved to Seattle last month."),
             "carol": ("I'm planning a trip to Japan next month.", "We cancelled the Japan trip.")}
    for user, (old, new) in pairs.items():
        for text in (old, new):
            clock.advance(timedelta(minutes=1))
            r = c.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id="s1", speaker="user", text=text))
            said[(user, text)] = r.memories[0].id
            if text == old:
                assert c.tiers.react(tenant, user, r.memories[0].id, "ENGAGED").memory.tier is Tier.MID  # type: ignore[union-attr]
        [settled] = c.conflicts.conflicts(tenant, user, status=None)
        assert settled.winner_id == said[(user, new)], user
    clock.advance(timedelta(days=8))
    for user in ("alice", "carol"):
        assert [x.reason for x in c.tiers.sweep(tenant, user)] == []
        kept = c.memories.get(tenant, user, said[(user, pairs[user][1])])
        assert kept is not None and kept.tier is Tier.TEMP


def test_what_the_user_engaged_with_or_unlocked_is_not_swept_back_at_once(c: Container, tenant: str,
                                                                         clock: FakeClock) -> None:
    """ENGAGED on a memory said 40 days ago moved it to mid, and the next sweep sent it back to temp (unmentioned
    30 days, weight 0.26 < 0.4), the one after deleted it; an unlocked memory likewise. The move starts the
    clocks again."""
    a, b = remember_facts(c, tenant, FACTS[:2], clock)
    c.tiers.lock(tenant, "alice", b)
    clock.advance(timedelta(days=40))
    assert c.tiers.react(tenant, "alice", a, "ENGAGED").memory.tier is Tier.MID  # type: ignore[union-attr]
    assert c.tiers.unlock(tenant, "alice", b).tier is Tier.MID
    clock.advance(timedelta(minutes=3))
    assert c.tiers.sweep(tenant, "alice") == []
    clock.advance(timedelta(days=31))  # now long unmentioned in mid, and light: they fall back, and wait there
    assert {(x.memory_id, x.reason) for x in c.tiers.sweep(tenant, "alice")} == {(a, Reason.FADED),
                                                                                  (b, Reason.FADED)}
    clock.advance(timedelta(days=1))
    assert c.tiers.sweep(tenant, "alice") == []
    assert tier_of(c, tenant, a) is Tier.TEMP and tier_of(c, tenant, b) is Tier.TEMP


def test_a_memory_a_later_turn_engages_is_not_swept_back_at_once(c: Container, tenant: str,
                                                                  clock: FakeClock) -> None:
    """A later turn picking up a temp memory's topic moves it to mid; that move set no tier_since, so the next sweep
    counted it unmentioned since it was said (past mid's 30 days: faded) and sent it back to temp (session 51's
    audit)."""
    said = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                  text="My sister Lily is allergic to cats.", turn=0))
    [sister] = said.memories
    clock.advance(timedelta(days=17))
    later = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s2", speaker="user",
                                                   text="Lily is coming to visit me in Hamburg next month.", turn=0))
    assert [(x.memory_id, x.to_tier) for x in later.changes] == [(sister.id, Tier.MID)]
    moved = c.memories.get(tenant, "alice", sister.id)
    assert moved is not None and moved.tier is Tier.MID
    clock.advance(timedelta(days=14))  # 31 days since it was said, 14 since the user came back to it
    assert [x for x in c.tiers.sweep(tenant, "alice") if x.memory_id == sister.id] == []
    assert tier_of(c, tenant, sister.id) is Tier.MID


def test_a_conversation_ingested_late_charges_no_decay_to_what_it_locked(c: Container, tenant: str,
                                                                         clock: FakeClock) -> None:
    """"Remember this: ..." said 36 days before its conversation was ingested went into core locked from its turn,
    yet entering core brought its weight to the ingest's now: an emotional liking lost 36 days at 0.9 a day (active
    0.5 -> 0.01). Locked time is never charged (README "Weights"): it is brought to its turn's time."""
    said_at = clock.now() - timedelta(days=36)
    r = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user", at=said_at,
                                               text="Remember this: I absolutely love the colour teal.", turn=0))
    [teal] = r.memories
    stored = c.memories.get(tenant, "alice", teal.id)
    assert stored is not None and stored.tier is Tier.CORE and stored.locked
    w = c.settings.weights
    assert (stored.weight.passive, stored.weight.active) == pytest.approx((w.initial_passive, w.initial_active))


def test_remember_this_refused_by_a_full_core_stays_in_a_full_temp(c: Container, tenant: str,
                                                                   clock: FakeClock) -> None:
    """README: a memory said with emphasis when core is full stays in temp (lock it once core has room). With temp
    full too, it was evicted the moment it was said (the newest and lightest): what a turn says gives way last."""
    ids = remember_facts(c, tenant, FACTS[:1], clock)
    c.tiers.lock(tenant, "alice", ids[0])
    older = remember_facts(c, tenant, [*PLAIN[1:], "I go swimming on Sundays"], clock)  # temp full
    for m in older:  # each recalled: heavier than what is said next
        c.recall.recall(tenant, RecallRequest(user_id="alice", query=c.memories.get(tenant, "alice", m).text))  # type: ignore[union-attr]
    r = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user",
                                               text="Remember this: I take warfarin every day."))
    assert any("core is full" in e.message for e in r.errors)
    [said] = r.memories
    assert tier_of(c, tenant, said.id) is Tier.TEMP
    assert c.tiers.usage(tenant, "alice").counts[Tier.TEMP] == 4
    assert sum(tier_of(c, tenant, m) is None for m in older) == 1


def _locked_home_then_a_move(c: Container, tenant: str, clock: FakeClock) -> tuple[Memory, Memory]:
    """'I live in Berlin.', locked by the user, then 'I moved, I live in Hamburg now.': a conflict held for review
    (the loser would be the locked memory)."""
    [berlin] = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                      text="I live in Berlin.")).memories
    c.tiers.lock(tenant, "alice", berlin.id)
    clock.advance(timedelta(minutes=1))
    [hamburg] = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                       text="I moved, I live in Hamburg now.")).memories
    return berlin, hamburg


def test_the_users_choice_over_a_locked_core_memory_takes_its_place(c: Container, tenant: str,
                                                                    clock: FakeClock) -> None:
    """Resolving a held conflict for the new memory over a locked core one left the winner in temp, unlocked, and
    the next sweep deleted it: the user was left no home. It takes the loser's place (core of one: the loser, now
    history, takes no room). The loser stayed CORE and locked with validTo set: it looked live in core, and forget
    asked for confirm while unlock refused it as history. History is outside the tiers and core is locked: the
    loser leaves core as an unlock takes it out (mid, unlocked); so does the memory a correction supersedes."""
    berlin, hamburg = _locked_home_then_a_move(c, tenant, clock)
    [held] = c.conflicts.conflicts(tenant, "alice")
    settled = c.conflicts.resolve(tenant, "alice", held.id, hamburg.id)
    assert settled.winner_id == hamburg.id and settled.new_memory is not None and settled.new_memory.locked
    won = c.memories.get(tenant, "alice", hamburg.id)
    assert won is not None and won.tier is Tier.CORE and won.locked
    lost = c.memories.get(tenant, "alice", berlin.id)
    assert lost is not None and lost.valid_to is not None and (lost.tier, lost.locked) == (Tier.MID, False)
    clock.advance(timedelta(days=60))
    assert c.tiers.sweep(tenant, "alice") == []
    assert c.tiers.usage(tenant, "alice").counts[Tier.CORE] == 1
    corrected = c.corrections.correct(tenant, "alice", hamburg.id, "I live in Hamburg-Altona now.")
    assert (corrected.memory.tier, corrected.memory.locked) == (Tier.CORE, True)
    assert (corrected.corrected.tier, corrected.corrected.locked) == (Tier.MID, False)
    assert c.tiers.usage(tenant, "alice").counts[Tier.CORE] == 1
    # history needs no confirm to be forgotten; a live locked memory still does, and the answer names the API's
    # argument, not the CLI's flag (tests/test_cli_commands.py: the CLI names its --confirm)
    assert c.memories.forget(tenant, "alice", berlin.id) == berlin.id
    with pytest.raises(Conflict) as err:
        c.memories.forget(tenant, "alice", corrected.memory.id)
    assert "needs confirm: true" in str(err.value) and "--confirm" not in str(err.value)


def test_history_stored_locked_in_core_is_unlocked_by_the_data_step(c: Container, tenant: str,
                                                                    clock: FakeClock) -> None:
    """Losers superseded by the user before the settlement unlocked them are stored CORE and locked with validTo
    set: the data step data/history_unlocked takes them out of core as an unlock does; live core memories and
    history in other tiers are left as they are."""
    from graph.migrations import unlock_history
    from tests.ops_support import store_rows

    berlin, hamburg = _locked_home_then_a_move(c, tenant, clock)
    c.conflicts.resolve(tenant, "alice", c.conflicts.conflicts(tenant, "alice")[0].id, hamburg.id)
    # as the settlement stored the loser before it unlocked one
    store_rows(c, "MATCH (m:Memory {id: $id}) SET m.tier = 'core', m.locked = true", id=berlin.id)
    assert unlock_history(c.store, now=clock.now(), tenant=tenant) == 1
    lost, won = (c.memories.get(tenant, "alice", m.id) for m in (berlin, hamburg))
    assert lost is not None and (lost.tier, lost.locked) == (Tier.MID, False) and lost.valid_to is not None
    assert won is not None and (won.tier, won.locked) == (Tier.CORE, True)
    assert unlock_history(c.store, now=clock.now(), tenant=tenant) == 0  # nothing left of the kind


def test_what_the_user_dismissed_from_mid_does_not_wait_a_week_more_in_temp(c: Container, tenant: str,
                                                                            clock: FakeClock) -> None:
    """DISMISSED sends a mid memory back to temp; unlike a fall back, it does not start the stale clock again."""
    [a] = remember_facts(c, tenant, ["I watched a documentary about octopuses"], clock)
    assert c.tiers.react(tenant, "alice", a, "ENGAGED").memory.tier is Tier.MID  # type: ignore[union-attr]
    clock.advance(timedelta(days=10))
    assert c.tiers.react(tenant, "alice", a, "DISMISSED").memory.tier is Tier.TEMP  # type: ignore[union-attr]
    clock.advance(timedelta(minutes=5))
    assert [(x.memory_id, x.reason) for x in c.tiers.sweep(tenant, "alice")] == [(a, Reason.STALE)]


def test_lock_unlock_and_a_full_core(c: Container, tenant: str, clock: FakeClock) -> None:
    a, b = remember_facts(c, tenant, FACTS[:2], clock)
    locked = c.tiers.lock(tenant, "alice", a)
    assert locked.tier is Tier.CORE and locked.locked
    with pytest.raises(Conflict):
        c.tiers.lock(tenant, "alice", b)  # core holds one
    with pytest.raises(Conflict):
        c.tiers.react(tenant, "alice", a, "DISMISSED")
    assert c.tiers.react(tenant, "alice", a, "ENGAGED").memory.tier is Tier.CORE  # type: ignore[union-attr]
    with pytest.raises(Conflict):
        c.memories.forget(tenant, "alice", a)  # forget needs confirm for a locked memory
    unlocked = c.tiers.unlock(tenant, "alice", a)
    assert unlocked.tier is Tier.MID and not unlocked.locked
    assert c.tiers.lock(tenant, "alice", b).tier is Tier.CORE


def test_lock_and_unlock_are_idempotent(c: Container, tenant: str, clock: FakeClock) -> None:
    """A retried lock (its first answer lost) returns the memory locked, not an error; unlock on a temp or mid memory
    returns it where it is, unlocked: what the user asked for holds, and the memory says where it is."""
    a, b = remember_facts(c, tenant, FACTS[:2], clock)
    c.tiers.react(tenant, "alice", b, "ENGAGED")  # to mid
    for memory_id, tier in ((a, Tier.TEMP), (b, Tier.MID)):
        same = c.tiers.unlock(tenant, "alice", memory_id)
        assert (same.tier, same.locked) == (tier, False)
    first = c.tiers.lock(tenant, "alice", a)
    again = c.tiers.lock(tenant, "alice", a)
    assert (again.tier, again.locked) == (Tier.CORE, True) and again == first  # nothing written
    assert [tier_of(c, tenant, m) for m in (a, b)] == [Tier.CORE, Tier.MID]


def test_a_full_temp_evicts_and_core_is_never_touched(c: Container, tenant: str, clock: FakeClock) -> None:
    ids = remember_facts(c, tenant, FACTS[:1], clock)
    c.tiers.lock(tenant, "alice", ids[0])
    ids += remember_facts(c, tenant, FACTS[1:], clock)
    counts = c.tiers.usage(tenant, "alice").counts
    assert counts == {Tier.TEMP: 4, Tier.MID: 0, Tier.CORE: 1}
    assert tier_of(c, tenant, ids[0]) is Tier.CORE
    assert tier_of(c, tenant, ids[1]) is None  # the oldest temp went first


def test_sweep_with_a_fake_clock(c: Container, tenant: str, clock: FakeClock) -> None:
    """Trivia unmentioned for a week goes; the user's lasting knowledge (their sister's home) does not, however
    light: "I started a new job at Microsoft" was deleted 8 days after it was said."""
    a, b, d, sister = remember_facts(c, tenant, ["I watched a documentary about octopuses", *FACTS[1:3], FACTS[0]],
                                     clock)
    c.tiers.react(tenant, "alice", b, "ENGAGED")  # mid, weight 0.35
    c.tiers.lock(tenant, "alice", d)
    clock.advance(timedelta(days=6))
    assert c.tiers.sweep(tenant, "alice") == []
    clock.advance(timedelta(days=2))
    assert [(x.memory_id, x.reason) for x in c.tiers.sweep(tenant, "alice")] == [(a, Reason.STALE)]
    assert tier_of(c, tenant, sister) is Tier.TEMP
    clock.advance(timedelta(days=23))
    assert [(x.memory_id, x.to_tier) for x in c.tiers.sweep(tenant, "alice")] == [(b, Tier.TEMP)]
    clock.advance(timedelta(days=3650))
    # b is back in temp but weighs 0.35, above the stale bar (0.3): only capacity can evict it now;
    # the locked d is never touched
    assert c.tiers.sweep(tenant, "alice") == []
    assert tier_of(c, tenant, b) is Tier.TEMP and tier_of(c, tenant, d) is Tier.CORE


# The facts below assert nothing the conflict tests' memories contradict (no birthday, no employer).
PLAIN = [FACTS[0], FACTS[1], FACTS[4], FACTS[5]]


def test_memories_held_for_review_outlive_eviction_and_sweeps(c: Container, scope: Scope, clock: FakeClock) -> None:
    old = store(c, scope, "My birthday is March 3rd", triples=[("user", "birthday", "March 3rd", 1)], passive=0.0,
                active=0.0)
    clock.advance(timedelta(hours=1))
    new = store(c, scope, "My birthday is July 20th", triples=[("user", "birthday", "July 20th", 1)], passive=0.0,
                active=0.0, strategy=ConflictStrategy.REVIEW)
    [held] = c.conflicts.conflicts(scope.tenant, "alice")
    # the lightest in a full temp (capacity 4), yet held for review: the ingested facts give way
    facts = remember_facts(c, scope.tenant, PLAIN, clock)
    assert [tier_of(c, scope.tenant, m) for m in (old.id, new.id, *facts)] == [
        Tier.TEMP, Tier.TEMP, None, None, Tier.TEMP, Tier.TEMP]
    # stale by age and weight, held all the same (the cat, a pet of the user's, is lasting knowledge: never stale)
    clock.advance(timedelta(days=8))
    assert {(x.memory_id, x.reason) for x in c.tiers.sweep(scope.tenant, "alice")} == {(facts[2], Reason.STALE)}
    with pytest.raises(Conflict, match="open conflict"):  # a dismissal would delete it
        c.tiers.react(scope.tenant, "alice", old.id, "DISMISSED")
    settled = c.conflicts.resolve(scope.tenant, "alice", held.id, new.id)
    assert settled.status is ConflictStatus.RESOLVED
    # superseded from when the winner was said, not from when the review settled it
    assert c.memory_repository.get(scope, old.id).valid_to == new.valid_from  # type: ignore[union-attr]


def test_superseded_history_is_kept_and_takes_no_room(c: Container, scope: Scope, clock: FakeClock) -> None:
    old = store(c, scope, "I work at Siemens", triples=[("user", "works_at", "Siemens", 1)], passive=0.0, active=0.0)
    clock.advance(timedelta(hours=1))
    new = store(c, scope, "I work at Bosch", triples=[("user", "works_at", "Bosch", 1)], passive=0.6, active=0.5)
    assert c.memory_repository.get(scope, old.id).valid_to == clock.now()  # type: ignore[union-attr]
    assert c.tiers.usage(scope.tenant, "alice").counts[Tier.TEMP] == 1
    # the live temp (new + 4 facts) is over its capacity of 4 by one: the oldest fact goes, not the history
    facts = remember_facts(c, scope.tenant, PLAIN, clock)
    assert [tier_of(c, scope.tenant, m) for m in (old.id, facts[0])] == [Tier.TEMP, None]
    assert c.tiers.usage(scope.tenant, "alice").counts == {Tier.TEMP: 4, Tier.MID: 0, Tier.CORE: 0}
    for days in (40, 8):  # long unmentioned and light: stale, were it live
        clock.advance(timedelta(days=days))
        assert old.id not in {x.memory_id for x in c.tiers.sweep(scope.tenant, "alice")}
    kept = c.memory_repository.get(scope, old.id)
    assert kept is not None and kept.valid_to is not None
    assert old.id in {h.memory.id for h in c.conflicts.history(scope.tenant, "alice", memory_id=new.id)}
    # nor does the user move it: a reaction, an unlock, a triple on history are refused and change nothing
    for refused in (lambda: c.tiers.react(scope.tenant, "alice", old.id, "ENGAGED"),
                    lambda: c.tiers.react(scope.tenant, "alice", old.id, "IGNORED"),
                    lambda: c.tiers.unlock(scope.tenant, "alice", old.id),
                    lambda: c.memories.add_triple(scope.tenant, "alice", memory_id=old.id, subject="user",
                                                  predicate="works_at", object_="Siemens AG")):
        with pytest.raises(Conflict, match="superseded"):
            refused()
    assert tier_of(c, scope.tenant, old.id) == Tier.TEMP
    assert [t.object.name for t in c.memories.triples(scope.tenant, "alice", old.id)] == ["Siemens"]


def test_a_routine_a_commute_a_plan_and_a_reply_style_outlive_the_sweep_a_one_off_does_not(
        settings: Settings, tenant: str, clock: FakeClock, container: Container) -> None:
    """A 90-day life (session 52's audit) lost its gym days, commute, morning coffee and a trip planned five weeks
    ahead a week after each was said: each weighs 0.2, under the stale line, and stated nothing the sweep kept."""
    c = small(settings, clock, temp_capacity=16)
    lasting = ["I go to the gym every Monday and Thursday evening.", "I bike to work every day, it takes 20 minutes.",
               "我每天早上都要喝一杯美式咖啡。", "We're flying to Lisbon in March for a week.",
               "Please keep your answers short."]
    said = remember_facts(c, tenant, [*lasting, "Yesterday I ran a 10K in 55 minutes!"], clock)
    assert len(said) == len(lasting) + 1
    clock.advance(timedelta(days=8))
    assert [(x.memory_id, x.reason) for x in c.tiers.sweep(tenant, "alice")] == [(said[-1], Reason.STALE)]
    assert all(tier_of(c, tenant, m) is not None for m in said[:-1])  # kept (a later turn may have lifted one)
    c.close()


def test_a_memory_recalled_is_judged_stale_from_its_recall(c: Container, tenant: str, clock: FakeClock) -> None:
    """"What did I do last week?" returned the 10K, and the sweep minutes later deleted it as stale."""
    [run] = remember_facts(c, tenant, ["Yesterday I ran a 10K in 55 minutes!"], clock)
    clock.advance(timedelta(days=6))
    recalled = c.recall.recall(tenant, RecallRequest(user_id="alice", query="How fast did I run the 10K?"))
    assert run in [r.memory.id for r in recalled.memories]
    clock.advance(timedelta(days=3))  # 9 days after it was said, 3 after its recall
    assert c.tiers.sweep(tenant, "alice") == []
    clock.advance(timedelta(days=5))  # 8 after its recall
    assert [(x.memory_id, x.reason) for x in c.tiers.sweep(tenant, "alice")] == [(run, Reason.STALE)]


def test_sweep_and_eviction_weigh_memories_decayed_to_now(c: Container, tenant: str, clock: FakeClock) -> None:
    alice, bob = Scope(tenant, "alice"), Scope(tenant, "bob")
    cameras = store(c, alice, "I collect vintage cameras", passive=0.6, active=0.5, tier=Tier.MID, hook=False)
    violin = store(c, bob, "I used to play the violin", passive=1.0, active=1.0, hook=False)
    clock.advance(timedelta(days=400))
    # bob's temp: four fresh memories (0.47) and the violin, 0.95 as stored but ~0.38 today: over a capacity of 4
    fresh = [store(c, bob, text, passive=0.2, active=1.0, hook=False).id for text in PLAIN]
    # no other call decayed them: the stored weights are those of 400 days ago
    assert c.memory_repository.get(alice, cameras.id).weight.final == pytest.approx(0.56)  # type: ignore[union-attr]
    assert c.memory_repository.get(bob, violin.id).weight.final == pytest.approx(0.95)  # type: ignore[union-attr]
    # 0.56 stored, ~0.22 today: unmentioned for 400 days and faded, it falls back
    assert [(x.memory_id, x.to_tier, x.reason) for x in c.tiers.sweep(tenant, "alice")] == [
        (cameras.id, Tier.TEMP, Reason.FADED)]
    # the capacity check after a reaction evicts the memory that weighs least today
    changes = c.tiers.react(tenant, "bob", fresh[0], "IGNORED").changes
    assert [(x.memory_id, x.reason) for x in changes] == [(violin.id, Reason.TEMP_FULL)]


def test_engagement_lands_on_weights_brought_to_now(c: Container, tenant: str, clock: FakeClock) -> None:
    """react ENGAGED and a later turn picking the topic up add active weight as feedback does: after the
    memory's weight is decayed to now (an emotional memory fades by day), so the boost is not faded for the
    days before it was given (decay once per elapsed time)."""
    from bmam.usecases.memories import RememberRequest

    def emotional(text: str) -> str:
        return c.memories.remember(tenant, RememberRequest(user_id="alice", text=text, type="EMOTIONAL")).id

    liked, engaged = emotional("I felt really sad after the exam"), emotional("I was so angry at my landlord today")
    picked = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                    text="My cat Mochi makes me so happy", at=clock.now()))
    [topic] = picked.memories
    clock.advance(timedelta(days=7))
    c.feedback.feedback(tenant, "alice", liked, "LIKE")
    c.tiers.react(tenant, "alice", engaged, "ENGAGED")
    later = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                   text="Mochi knocked my cup off the table again", at=clock.now()))
    assert any(ch.memory_id == topic.id and ch.to_tier is Tier.MID for ch in later.changes)
    got = {mid: c.memories.get(tenant, "alice", mid) for mid in (liked, engaged, topic.id)}
    assert all(m is not None for m in got.values())
    policy = c.weight_policy
    seven_days = 7 * 86_400_000
    for mid, boost in ((liked, 0.5), (engaged, c.settings.tiers.explicit_feedback)):
        m = got[mid]
        assert m is not None
        start = Parts(passive=c.settings.weights.initial_passive, active=c.settings.weights.initial_active,
                      preset=m.weight.preset)
        expected = decayed(start, MemoryType.EMOTIONAL, seven_days, policy)
        assert m.weight.active == pytest.approx(min(1.0, expected.active + boost), abs=1e-9)
    t = got[topic.id]
    assert t is not None
    start = Parts(passive=c.settings.weights.initial_passive, active=c.settings.weights.initial_active,
                  preset=t.weight.preset)
    expected = decayed(start, t.type, seven_days, policy)
    assert t.weight.active == pytest.approx(min(1.0, expected.active + c.settings.tiers.implicit_feedback), abs=1e-9)


def test_a_dry_run_sweep_tells_the_moves_and_changes_nothing(c: Container, scope: Scope, clock: FakeClock,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep deletes (no changeset, no undo): its dry run is the same transaction rolled back, nothing published
    (audit of session 51: a user could not preview it)."""
    trivia = store(c, scope, "I had toast for breakfast", passive=0.0, active=0.0)
    clock.advance(timedelta(days=8))
    published: list[object] = []
    monkeypatch.setattr(c.events, "publish", published.append)
    preview = c.tiers.sweep(scope.tenant, scope.user_id, dry_run=True)
    assert [(x.memory_id, x.reason) for x in preview] == [(trivia.id, Reason.STALE)]
    assert tier_of(c, scope.tenant, trivia.id) is Tier.TEMP and published == []
    done = c.tiers.sweep(scope.tenant, scope.user_id)
    assert done == preview and tier_of(c, scope.tenant, trivia.id) is None and len(published) == 1
