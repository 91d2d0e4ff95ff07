"""Property test (hypothesis, stateful) over random sequences of ingest, reactions, lock / unlock, time passing
and sweeps, against the real Neo4j with small capacities (temp 5, mid 3, core 2): capacities are never
exceeded (superseded history takes no room), a locked memory is never removed or demoted by the system, nor is
history or a memory held for review, and every tier move is one the rules allow for that step."""

from __future__ import annotations

import contextlib
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings, load_settings
from graph.errors import Conflict
from graph.memories import WeightShares
from graph.model import Scope, Tier
from graph.tiers import TierMemory, TierRepository
from ingest.tier_policy import Signal, TierRules, has_faded, held, is_stale
from ingest.turns import TurnInput

CAPS = {"temp_capacity": 5, "mid_capacity": 3, "core_capacity": 2}
TEXTS = [
    "My sister lives in Berlin", "I play the piano every day", "我的生日是7月20日", "我在腾讯工作",
    "I am learning Japanese", "我养了一只猫叫咪咪", "I love spicy food", "我住在成都，最喜欢吃火锅",
    "My wife's name is Anna", "我每天早上跑步五公里", "I drink green tea every morning", "上次在成都吃的火锅很棒",
    "记住：我对花生过敏", "Remember this: I am allergic to penicillin", "推荐一个火锅店?", "ok thanks",
    "what should I cook tonight?", "我女儿今年五岁了",
]

State = dict[str, TierMemory]


class TierMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.c: Container | None = None

    @initialize()
    def start(self) -> None:
        base: Settings = load_settings()
        self.clock = FakeClock(datetime(2026, 3, 1, tzinfo=UTC))
        self.c = Container(base.model_copy(update={"tiers": base.tiers.model_copy(update=CAPS)}), clock=self.clock)
        self.tenant = f"prop-{uuid.uuid4().hex[:12]}"
        self.scope = Scope(self.tenant, "alice")
        w = base.weights
        self.repo = TierRepository(WeightShares(w.passive_share, w.active_share, w.preset_share))
        # (not self.rules: RuleBasedStateMachine keeps its list of rules there)
        self.tier_rules: TierRules = self.c.tiers.rules
        self.state: State = self.read()
        self.sessions = 0

    def teardown(self) -> None:
        if self.c is not None:
            self.c.close()

    # ----- helpers ---------------------------------------------------------------------------

    def read(self) -> State:
        assert self.c is not None
        rows = self.c.store.read_tx(lambda tx: self.repo.memories(tx, self.scope, list(Tier)))
        return {m.id: m for m in rows}

    def step(self, kind: str, target: str | None = None) -> None:
        """Check every move of the last step against what the rules allow for it."""
        before, after = self.state, self.read()
        rules = self.tier_rules
        caps = rules.capacities
        counts = {t: sum(1 for m in after.values() if m.tier is t and not m.superseded) for t in Tier}
        now = self.clock.now()
        for mid in set(before) | set(after):
            b = before[mid].tier if mid in before else None
            a = after[mid].tier if mid in after else None
            if b == a:
                continue
            move = (b, a)
            event(f"{kind}: {b.value if b else 'new'} -> {a.value if a else 'gone'}")
            if b is Tier.CORE:  # only the user's unlock moves a core memory: to mid (on to temp if mid is full)
                assert kind == "unlock" and mid == target, (kind, move)
                assert a is Tier.MID or (a is Tier.TEMP and counts[Tier.MID] == caps.mid), (kind, move)
                continue
            if mid == target and kind == "react":
                # engaged: temp -> mid; dismissed: temp -> gone, mid -> temp (and on, when temp is full)
                assert move in {(Tier.TEMP, Tier.MID), (Tier.TEMP, None), (Tier.MID, Tier.TEMP)} or (
                    move == (Tier.MID, None) and counts[Tier.TEMP] == caps.temp), (kind, move)
                continue
            if mid == target and kind == "lock":
                assert a is Tier.CORE, move
                continue
            if b is None:  # a new memory: lands in temp, goes on to core with emphasis, or is evicted
                assert kind == "ingest" and a in (Tier.TEMP, Tier.CORE, Tier.MID), (kind, move)
                continue
            if a is Tier.CORE or (b, a) == (Tier.TEMP, Tier.MID):  # promotions: by the user's turns
                assert kind == "ingest", (kind, move)
                continue
            if (b, a) == (Tier.MID, Tier.TEMP):  # mid full, or faded at a sweep
                assert not held(before[mid]), (kind, move)
                assert counts[Tier.MID] == caps.mid or (kind == "sweep" and has_faded(before[mid], rules, now)), \
                    (kind, move)
                continue
            if a is None:  # temp full, or stale at a sweep
                assert not held(before[mid]), (kind, move)
                assert counts[Tier.TEMP] == caps.temp or (kind == "sweep" and is_stale(before[mid], rules, now)), \
                    (kind, move)
                continue
            raise AssertionError(f"unexpected move {move} on {kind}")
        self.state = after

    def some(self, data: st.DataObject, tiers: tuple[Tier, ...] | None = None) -> str | None:
        # ordered by what does not depend on the random tenant (ids do), so a replay draws the same
        assert self.c is not None
        page = self.c.memories.page(self.tenant, "alice", first=100, include_history=True)
        text = {m.id: m.text for m in page.items}
        ids = sorted((m.id for m in self.state.values() if tiers is None or m.tier in tiers),
                     key=lambda i: (text.get(i, ""), self.state[i].created_at, i))
        # An index drawn from fixed bounds, not sampled_from(ids): the list's length can differ between two runs
        # of the same steps (a full tier evicts the least useful memory, ties broken by id, and the ids are
        # random: the texts of one ingest share an instant and a weight; a text said again is then a mention
        # of the one kept or a new memory), and hypothesis refuses a draw whose bounds change between runs
        # of the same steps (FlakyStrategyDefinition: seen once in CI, 2026-12-02).
        return ids[data.draw(st.integers(min_value=0, max_value=255)) % len(ids)] if ids else None

    # ----- rules -----------------------------------------------------------------------------

    @rule(texts=st.lists(st.sampled_from(TEXTS), min_size=1, max_size=6))
    def ingest(self, texts: list[str]) -> None:
        assert self.c is not None
        self.sessions += 1
        session = f"s{self.sessions}"
        self.c.ingest.ingest_conversation(self.tenant, [
            TurnInput(user_id="alice", session_id=session, speaker="user", text=t) for t in texts])
        self.step("ingest")

    @precondition(lambda self: bool(self.state))
    @rule(data=st.data(), signal=st.sampled_from(list(Signal)))
    def react(self, data: st.DataObject, signal: Signal) -> None:
        assert self.c is not None
        target = self.some(data)
        assert target is not None
        try:
            self.c.tiers.react(self.tenant, "alice", target, signal)
        except Conflict:  # history (any signal), or dismissing a locked memory or a temp one held for review
            state = self.state[target]
            assert state.superseded or (signal is Signal.DISMISSED and (state.locked or (
                state.tier is Tier.TEMP and held(state))))
        self.step("react", target)

    @precondition(lambda self: bool(self.state))
    @rule(data=st.data())
    def lock(self, data: st.DataObject) -> None:
        assert self.c is not None
        target = self.some(data)
        assert target is not None
        try:
            self.c.tiers.lock(self.tenant, "alice", target)
        except Conflict:  # history, or core full (a locked one is returned as it is)
            state = self.state[target]
            core = sum(1 for m in self.state.values() if m.tier is Tier.CORE and not m.superseded)
            assert state.superseded or (state.tier is not Tier.CORE and core == self.tier_rules.capacities.core)
        self.step("lock", target)

    @precondition(lambda self: any(m.locked for m in self.state.values()))
    @rule(data=st.data())
    def unlock(self, data: st.DataObject) -> None:
        assert self.c is not None
        target = self.some(data, (Tier.CORE,))
        assert target is not None
        with contextlib.suppress(Conflict):  # it would be evicted at once, or is history: refused, nothing changed
            self.c.tiers.unlock(self.tenant, "alice", target)
        self.step("unlock", target)

    @rule(days=st.integers(min_value=0, max_value=40))
    def time_passes(self, days: int) -> None:
        self.clock.advance(timedelta(days=days))
        self.step("time")

    @rule()
    def sweep(self) -> None:
        assert self.c is not None
        self.c.tiers.sweep(self.tenant, "alice")
        self.step("sweep")

    # ----- invariants ------------------------------------------------------------------------

    @invariant()
    def within_capacity_and_core_is_locked(self) -> None:
        if self.c is None:
            return
        caps = self.tier_rules.capacities
        for tier in Tier:
            assert sum(1 for m in self.state.values() if m.tier is tier and not m.superseded) <= caps.of(tier), tier
        assert all(m.locked == (m.tier is Tier.CORE) for m in self.state.values())


# derandomize: the same 12 step sequences on every run, so CI's time for this test is the one measured (a random
# draw of heavy sequences on a slow machine once ran past pytest-timeout's 300 s)
TierMachine.TestCase.settings = settings(
    max_examples=12, stateful_step_count=20, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.usefixtures("container")  # the server runs and the schema is applied
class TestTierProperties(TierMachine.TestCase):  # type: ignore[misc,valid-type]
    pass
