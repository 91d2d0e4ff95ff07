"""Conflicts: the detection rules alone, then detection and resolution against the store (the seed's case
in Chinese and English through the ingest pipeline, the strategies, the review queue, history), and the
GraphQL face through the gql client."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.events import EventBus, EventKind, MemoryEvent
from bmam.usecases.hooks import StoredMemoryContext
from bmam.usecases.recall import RecallRequest
from graph import conflicts as conflicts_module
from graph.conflicts import ConflictKind, ConflictRepository, ConflictStatus, ConflictStrategy
from graph.errors import BadInput, NotFound
from graph.errors import Conflict as ConflictError
from graph.ids import new_memory_id
from graph.model import Memory, MemoryType, NewMemory, Scope, Tier
from graph.triples import TripleRepository
from ingest.conflict_rules import (
    Fact,
    Similar,
    changed_detail,
    content_terms,
    detect,
    is_negated,
    objects_overlap,
    polarity_conflict,
    said_no_to,
    single_valued_conflict,
)
from ingest.turns import TurnInput
from ingest.weights import Parts, clamp01, decayed, elapsed_ms, final_weight

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TOL = 1e-9

# ----- the rules, pure ----------------------------------------------------------------------------------



def found_by_meaning(new: str, old: str, cosine: float, *, cancel_threshold: float | None = None,
                     revision_threshold: float | None = None) -> list[ConflictKind]:
    """The kinds of conflict the rules reading meaning find between two texts at a cosine (no facts)."""
    return [f.kind for f in detect(new_memory_id="n", new_text=new, new_facts=[], old_facts=[],
                                   similar=[Similar("o", old, cosine)], similarity_threshold=0.75,
                                   cancel_threshold=cancel_threshold, revision_threshold=revision_threshold)]

def test_negation_in_chinese_and_english() -> None:
    for text in ("我不吃辣", "我没去过北京", "别给我推荐香菜", "I don't eat spicy food", "I never drink coffee",
                 "I do not like cats", "I can’t stand jazz", "I no longer live in Berlin"):
        assert is_negated(text), text
    for text in ("我现在很喜欢吃辣的川菜", "我特别喜欢猫", "这家店不错", "别人都喜欢", "我不得不加班", "非常好吃",
                 "I really love spicy Sichuan food now", "I know a good place", "Nothingham"):
        assert not is_negated(text), text


def test_objects_overlap_by_containment() -> None:
    assert objects_overlap("辣", "辣的川菜")
    assert objects_overlap("spicy food", "spicy Sichuan food")
    assert objects_overlap("Cats", "cat")
    assert not objects_overlap("猫", "狗")
    assert not objects_overlap("Berlin", "Bern")
    assert not objects_overlap("tea", "steak")


def test_single_valued_predicate_with_another_value() -> None:
    old = Fact("m1", "user", "lives_in", "成都")
    assert single_valued_conflict(Fact("m2", "user", "lives_in", "北京"), old)
    assert not single_valued_conflict(Fact("m2", "user", "lives_in", "成都"), old)  # the same value
    assert not single_valued_conflict(Fact("m2", "user", "lives_in", "北京", -1), old)  # "no longer lives in"
    assert not single_valued_conflict(Fact("m2", "Tom", "lives_in", "北京"), old)  # someone else
    assert not single_valued_conflict(Fact("m2", "user", "likes", "北京"), Fact("m1", "user", "likes", "成都"))


def test_opposite_polarity_on_the_same_or_an_overlapping_object() -> None:
    assert polarity_conflict(Fact("m2", "user", "likes", "辣的川菜", 1), Fact("m1", "user", "eats", "辣", -1))
    assert polarity_conflict(Fact("m2", "user", "likes", "cats", -1), Fact("m1", "user", "likes", "cat", 1))
    assert not polarity_conflict(Fact("m2", "user", "likes", "cats", 1), Fact("m1", "user", "likes", "cats", 1))
    assert not polarity_conflict(Fact("m2", "user", "likes", "dogs", -1), Fact("m1", "user", "likes", "cats", 1))
    assert not polarity_conflict(Fact("m2", "user", "lives_in", "成都", -1), Fact("m1", "user", "likes", "成都", 1))


def test_negation_rule_needs_similarity_one_negated_side_and_shared_content() -> None:
    def found(new: str, old: str, cosine: float) -> list[ConflictKind]:
        return [f.kind for f in detect(new_memory_id="n", new_text=new, new_facts=[], old_facts=[],
                                       similar=[Similar("o", old, cosine)], similarity_threshold=0.75)]

    assert found("我不喜欢猫", "我喜欢猫", 0.87) == [ConflictKind.NEGATION]
    assert found("I don't like cats", "I like cats", 0.85) == [ConflictKind.NEGATION]
    assert found("我不喜欢猫", "我喜欢猫", 0.70) == []  # below the line
    assert found("我喜欢狗", "我喜欢猫", 0.90) == []  # nobody negated
    assert found("我不喜欢猫", "我住在成都", 0.95) == []  # nothing shared, however close the vectors
    assert content_terms("我不喜欢猫") & content_terms("我喜欢猫")


def test_negation_is_about_what_the_negated_clause_says_no_to() -> None:
    """The shared content must be in a negated clause: "I don't eat meat, but I love fish" says no to meat, and
    "I love fish" agrees with it; a memory that affirms a fact the other affirms agrees whatever else it denies."""
    def found(new: str, old: str, new_facts: Sequence[Fact] = (), old_facts: Sequence[Fact] = ()) -> list[ConflictKind]:
        return [f.kind for f in detect(new_memory_id="n", new_text=new, new_facts=list(new_facts),
                                       old_facts=list(old_facts), similar=[Similar("o", old, 0.85)],
                                       similarity_threshold=0.75)]

    assert found("I love fish", "I don't eat meat, but I love fish") == []
    assert found("我喜欢吃甜的", "我不吃辣，但是喜欢甜的") == []
    assert found("我喜欢吃辣", "我不吃辣，但是喜欢甜的") == [ConflictKind.NEGATION]
    assert found("I don't eat meat, but I love fish", "I eat meat every day") == [ConflictKind.NEGATION]
    assert found("I eat breakfast with my kids on weekends", "I never eat breakfast on weekdays") == []
    assert found("我每天早上喝咖啡", "我晚上不喝咖啡") == []  # a no for some times
    assert found("这周我不喝咖啡", "我每天都喝咖啡") == []  # or for a while
    assert found("今天我不吃肉", "我很喜欢吃肉") == []
    # a plan for a time, and its no for the same time, do contradict (both are said of a time)
    assert found("I'm not going to Paris tomorrow anymore", "I'm going to Paris tomorrow") == [ConflictKind.NEGATION]
    assert found("明天我不去北京出差了", "明天我要去北京出差") == [ConflictKind.NEGATION]
    munich = "Correction: Tom is not in Berlin, he moved to Munich."
    assert said_no_to(munich) == content_terms("Tom is not in Berlin") == {"tom", "berlin"}
    assert found("Tom moved to Munich.", munich) == [ConflictKind.NEGATION]  # shared: Tom, said no to
    assert found("Tom moved to Munich.", munich, [Fact("n", "Tom", "lives_in", "Munich")],
                 [Fact("o", "Tom", "lives_in", "Munich")]) == []  # both affirm where Tom lives


def test_a_cancellation_ends_the_plan_it_names() -> None:
    """A plan and its cancellation share words but no negation the negation rule reads, at a cosine of 0.4-0.6."""
    def found(new: str, old: str, cosine: float) -> list[ConflictKind]:
        return found_by_meaning(new, old, cosine, cancel_threshold=0.35)

    plan = "My boyfriend Jake and I are planning a trip to Japan next month."
    assert found("We cancelled the Japan trip, obviously.", plan, 0.44) == [ConflictKind.NEGATION]
    assert found("我们取消了去日本的旅行", "我和男朋友打算下个月去日本玩", 0.41) == [ConflictKind.NEGATION]
    assert found("We cancelled the Paris trip", plan, 0.50) == []  # "trip" alone names no plan
    assert found("I cancelled my gym membership", plan, 0.15) == []
    assert found("We cancelled the Japan trip", "We went to Japan last year and loved it", 0.55) == []  # no plan


def test_detect_reports_one_finding_per_old_memory_first_rule_first() -> None:
    new = [Fact("n", "user", "lives_in", "北京"), Fact("n", "user", "likes", "猫", -1)]
    old = [Fact("a", "user", "lives_in", "成都"), Fact("b", "user", "likes", "猫"), Fact("b", "user", "likes", "猫")]
    findings = detect(new_memory_id="n", new_text="我住在北京，不喜欢猫", new_facts=new, old_facts=old,
                      similar=[Similar("b", "我喜欢猫", 0.8), Similar("n", "self", 1.0)], similarity_threshold=0.75)
    assert [(f.old_memory_id, f.kind) for f in findings] == [("a", ConflictKind.SINGLE_VALUED),
                                                             ("b", ConflictKind.POLARITY)]


# ----- against the store -------------------------------------------------------------------------------------


class RecordingBus(EventBus):
    def __init__(self) -> None:
        super().__init__()
        self.published: list[MemoryEvent] = []

    def publish(self, event: MemoryEvent) -> None:
        self.published.append(event)
        super().publish(event)


@pytest.fixture
def living(container: Container) -> Iterator[tuple[Container, FakeClock]]:
    """A container on a fake clock sharing the session's store and embedding model, recording events."""
    clock = FakeClock(START)
    c = Container(container.settings, clock=clock)
    c.__dict__["store"] = container.store
    c.__dict__["embedder"] = container.embedder
    c.__dict__["maintenance_store"] = container.maintenance_store
    c.__dict__["events"] = RecordingBus()
    yield c, clock


def store(c: Container, scope: Scope, text: str, *, triples: list[tuple[str, str, str, int]] = (),  # type: ignore[assignment]
          passive: float = 0.3, active: float = 0.5, tier: Tier = Tier.TEMP, hook: bool = True,
          strategy: ConflictStrategy | None = None) -> Memory:
    """Store a memory with its triples and run the conflict hook, as the ingest pipeline does (the triples are
    written as ingest writes them, without the hooks addTriple runs: the test picks the strategy, or none)."""
    embedding = [float(x) for x in c.embedder.embed_passages([text])[0]]
    new = NewMemory(id=new_memory_id(), text=text, type=MemoryType.FACTUAL, embedding=embedding, tier=tier)
    memory = c.memory_repository.remember(scope, new, now=c.clock.now(), passive=passive, active=active).memory
    added = [TripleRepository(c.store).add(scope, memory_id=memory.id, subject=s, subject_kind="thing", predicate=p,
                                           object_=o, object_kind="thing", polarity=pol, now=c.clock.now())
             for s, p, o, pol in triples]
    if hook:
        if strategy is None:
            c.conflicts.on_memory_stored(StoredMemoryContext(scope=scope, memory=memory, triples=added,
                                                             embedding=embedding))
        else:
            c.conflicts.detect(scope, memory, added, embedding, strategy)
    return memory


def get(c: Container, scope: Scope, memory_id: str) -> Memory:
    m = c.memory_repository.get(scope, memory_id)
    assert m is not None
    return m


def test_latest_wins_with_exact_weights_supersedes_and_validity(living: tuple[Container, FakeClock],
                                                               scope: Scope) -> None:
    c, clock = living
    policy = c.weight_policy
    old = store(c, scope, "我住在成都", triples=[("user", "lives_in", "成都", 1)], passive=0.6, active=0.5)
    other = store(c, scope, "我喜欢爬山", passive=0.2)
    c.memories.associate(scope.tenant, scope.user_id, old.id, other.id, 0.7)
    clock.advance(timedelta(days=10))
    new = store(c, scope, "我住在北京", triples=[("user", "lives_in", "北京", 1)], passive=0.1, active=0.5)

    [conflict] = c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)
    assert conflict.kind is ConflictKind.SINGLE_VALUED and conflict.status is ConflictStatus.RESOLVED
    assert conflict.strategy is ConflictStrategy.LATEST
    assert (conflict.winner_id, conflict.loser_id) == (new.id, old.id)
    assert conflict.resolved_at == clock.now()

    w, lo = get(c, scope, new.id), get(c, scope, old.id)
    expect_w = Parts(0.1, clamp01(0.5 + 0.2), 0.5)
    expect_l = decayed(Parts(0.6, 0.5, 0.5), MemoryType.FACTUAL, elapsed_ms(old.created_at, clock.now()), policy)
    expect_l = Parts(expect_l.passive, clamp01(expect_l.active - 0.3), expect_l.preset)
    for got, exp in ((w, expect_w), (lo, expect_l)):
        assert got.weight.passive == pytest.approx(exp.passive, abs=TOL)
        assert got.weight.active == pytest.approx(exp.active, abs=TOL)
        assert got.weight.final == pytest.approx(final_weight(exp, policy), abs=TOL)
    assert lo.valid_to == clock.now() and w.valid_to is None
    # each asserted one triple: the loser's is closed now, the winner's stays open (an empty list would pass all())
    assert [t.valid_to for t in c.memories.triples(scope.tenant, scope.user_id, old.id)] == [clock.now()]
    assert [t.valid_to for t in c.memories.triples(scope.tenant, scope.user_id, new.id)] == [None]
    # The association went with the loser: the old home's, not the new one's (a correction carries it)
    assert c.memories.associations(scope.tenant, scope.user_id, new.id) == []
    assert c.memories.associations(scope.tenant, scope.user_id, old.id) == []
    rows = c.store.read("conflict/history", {"tenant": scope.tenant, "user_id": scope.user_id, "entity": None,
                                             "memory_id": old.id, "after_at": None, "after_id": None, "limit": 10})
    assert {r["memory"]["id"]: r["superseded_by"] for r in rows} == {old.id: [new.id], new.id: []}
    # The SUPERSEDED event.
    events = [e for e in c.events.published if e.kind is EventKind.SUPERSEDED]  # type: ignore[attr-defined]
    assert [(e.memory_id, e.detail["superseded_by"]) for e in events] == [(old.id, new.id)]
    # Live listings skip the superseded memory; history asks for it.
    assert [m.id for m in c.memories.page(scope.tenant, scope.user_id).items if m.id in (old.id, new.id)] == [new.id]
    history = c.memories.page(scope.tenant, scope.user_id, include_history=True).items
    assert {old.id, new.id} <= {m.id for m in history}
    # Detecting again changes nothing.
    assert c.conflicts.check(scope.tenant, scope.user_id, new.id) == []
    assert len(c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)) == 1


def test_stronger_wins_keeps_the_heavier_old_memory(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    old = store(c, scope, "I work at Siemens", triples=[("user", "works_at", "Siemens", 1)], passive=0.9, active=0.9)
    clock.advance(timedelta(days=1))
    new = store(c, scope, "I work at Bosch", triples=[("user", "works_at", "Bosch", 1)], passive=0.0,
                active=0.5, strategy=ConflictStrategy.STRONGER)
    [conflict] = c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)
    assert conflict.strategy is ConflictStrategy.STRONGER
    assert (conflict.winner_id, conflict.loser_id) == (old.id, new.id)
    assert get(c, scope, new.id).valid_to == clock.now() and get(c, scope, old.id).valid_to is None
    assert get(c, scope, old.id).weight.active == pytest.approx(1.0)  # 0.9 + 0.2, clamped


def test_review_holds_the_conflict_until_the_user_resolves_it(living: tuple[Container, FakeClock],
                                                              scope: Scope) -> None:
    c, clock = living
    old = store(c, scope, "My birthday is March 3rd", triples=[("user", "birthday", "March 3rd", 1)])
    clock.advance(timedelta(days=2))
    new = store(c, scope, "My birthday is July 20th", triples=[("user", "birthday", "July 20th", 1)],
                strategy=ConflictStrategy.REVIEW)
    [queued] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    assert queued.status is ConflictStatus.OPEN and queued.strategy is ConflictStrategy.REVIEW
    assert queued.new_memory is not None and queued.new_memory.id == new.id
    assert get(c, scope, old.id).valid_to is None and get(c, scope, new.id).valid_to is None  # both live

    with pytest.raises(BadInput):
        c.conflicts.resolve(scope.tenant, scope.user_id, queued.id, "m_somebody_else")
    with pytest.raises(NotFound):
        c.conflicts.resolve(scope.tenant, scope.user_id, "c_unknown", old.id)
    with pytest.raises(NotFound):  # another user's queue
        c.conflicts.resolve(scope.tenant, "bob", queued.id, old.id)
    assert c.conflicts.conflicts(scope.tenant, scope.user_id)[0].status is ConflictStatus.OPEN  # nothing changed

    clock.advance(timedelta(hours=1))
    settled = c.conflicts.resolve(scope.tenant, scope.user_id, queued.id, old.id)
    assert settled.status is ConflictStatus.RESOLVED and settled.winner_id == old.id and settled.resolved_by == "user"
    # valid time: the older memory won, so the newer one never held (its validity ends where it began)
    assert get(c, scope, new.id).valid_to == new.valid_from
    assert c.conflicts.conflicts(scope.tenant, scope.user_id) == []
    with pytest.raises(ConflictError):
        c.conflicts.resolve(scope.tenant, scope.user_id, queued.id, new.id)


def test_forgetting_a_memory_removes_the_conflicts_that_name_it(living: tuple[Container, FakeClock],
                                                               scope: Scope) -> None:
    """An open conflict naming a forgotten memory could never be resolved, and every conflict's reason quotes
    the forgotten text: forget takes them away, open or resolved, of that user only."""
    from tests.ops_support import store_rows

    c, clock = living
    bob = Scope(tenant=scope.tenant, user_id="bob")

    def birthdays(who: Scope) -> tuple[Memory, Memory]:
        old = store(c, who, "My birthday is March 3rd", triples=[("user", "birthday", "March 3rd", 1)])
        clock.advance(timedelta(hours=1))
        new = store(c, who, "My birthday is July 20th", triples=[("user", "birthday", "July 20th", 1)],
                    strategy=ConflictStrategy.REVIEW)
        return old, new

    march, july = birthdays(scope)
    bob_march, _ = birthdays(bob)
    chengdu = store(c, scope, "我住在成都", triples=[("user", "lives_in", "成都", 1)])
    clock.advance(timedelta(days=1))
    beijing = store(c, scope, "我住在北京", triples=[("user", "lives_in", "北京", 1)])  # LATEST: Chengdu loses
    [held] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    [settled] = [k for k in c.conflicts.conflicts(scope.tenant, scope.user_id, status=None) if k.id != held.id]
    assert (settled.winner_id, settled.loser_id) == (beijing.id, chengdu.id)
    [bob_held] = c.conflicts.conflicts(bob.tenant, bob.user_id)

    # The open one: gone with the memory, and the other side is no longer held by it.
    c.memories.forget(scope.tenant, scope.user_id, july.id)
    assert c.conflicts.conflicts(scope.tenant, scope.user_id) == []
    assert [k.id for k in c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)] == [settled.id]
    assert c.conflicts.get(scope.tenant, scope.user_id, held.id) is None
    assert get(c, scope, march.id).valid_to is None
    # The resolved one whose loser is forgotten: its history is about a forgotten thing.
    c.memories.forget(scope.tenant, scope.user_id, chengdu.id)
    assert c.conflicts.conflicts(scope.tenant, scope.user_id, status=None) == []
    left = store_rows(c, "MATCH (k:Conflict) WHERE k.tenant = $t AND k.user_id = $u RETURN k.reason AS reason",
                      t=scope.tenant, u=scope.user_id)
    assert left == []
    assert get(c, scope, beijing.id).valid_to is None  # the winner stays as it is

    # Bob's conflict, recorded the same way, is untouched and still resolvable.
    assert [k.id for k in c.conflicts.conflicts(bob.tenant, bob.user_id)] == [bob_held.id]
    assert c.conflicts.resolve(bob.tenant, bob.user_id, bob_held.id, bob_march.id).status is ConflictStatus.RESOLVED


def test_a_locked_memory_is_never_superseded_automatically(living: tuple[Container, FakeClock],
                                                           scope: Scope) -> None:
    c, clock = living
    core = store(c, scope, "My name is Li Lei", triples=[("user", "name", "Li Lei", 1)], tier=Tier.CORE)
    assert core.locked
    clock.advance(timedelta(days=1))
    new = store(c, scope, "My name is Han Meimei", triples=[("user", "name", "Han Meimei", 1)])
    [held] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    assert held.status is ConflictStatus.OPEN
    assert get(c, scope, core.id) == core  # untouched
    assert get(c, scope, new.id).valid_to is None


def test_a_locked_memory_that_wins_settles_its_conflict_and_keeps_its_weight(living: tuple[Container, FakeClock],
                                                                             scope: Scope) -> None:
    """"Remember: I moved to Paris" goes straight to core, locked: newer, it wins over the unlocked "I live in
    Berlin" as any newer memory would (held open, Berlin stayed live and recalled beside it). Superseding Berlin
    changes nothing of the locked winner: the system spares its weight (no +0.2)."""
    c, clock = living
    old = store(c, scope, "I live in Berlin", triples=[("user", "lives_in", "Berlin", 1)], hook=False)
    clock.advance(timedelta(days=1))
    new = store(c, scope, "Remember: I moved to Paris", triples=[("user", "lives_in", "Paris", 1)], tier=Tier.CORE)
    assert new.locked
    [settled] = c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)
    assert (settled.status, settled.winner_id, settled.loser_id) == (ConflictStatus.RESOLVED, new.id, old.id)
    assert get(c, scope, old.id).valid_to is not None
    assert get(c, scope, new.id) == new  # locked: untouched, its weight as it was stored

    # The other way round (the locked memory would lose) it stays held for the user, as before.
    clock.advance(timedelta(days=1))
    newest = store(c, scope, "I live in Rome", triples=[("user", "lives_in", "Rome", 1)])
    [held] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    assert held.status is ConflictStatus.OPEN and {held.new_memory_id, held.old_memory_id} == {newest.id, new.id}
    assert get(c, scope, new.id) == new and get(c, scope, newest.id).valid_to is None


def test_negation_conflict_from_embeddings(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    old = store(c, scope, "我喜欢猫")
    store(c, scope, "我住在成都")  # negated-vs-affirmed but about something else: no conflict
    clock.advance(timedelta(days=1))
    new = store(c, scope, "我不喜欢猫")
    [conflict] = c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)
    assert conflict.kind is ConflictKind.NEGATION
    assert (conflict.winner_id, conflict.loser_id) == (new.id, old.id)


@pytest.mark.parametrize(("old_text", "new_text", "query", "about_it"), [
    ("我不吃辣", "我现在很喜欢吃辣的川菜", "推荐一个火锅店", "我吃辣吗？"),
    ("I don't eat spicy food", "I really love spicy Sichuan food now", "Can you recommend a spicy hot pot restaurant?",
     "Do I eat spicy food?"),
])
def test_seed_case_through_the_ingest_pipeline(living: tuple[Container, FakeClock], tenant: str, old_text: str,
                                               new_text: str, query: str, about_it: str) -> None:
    c, clock = living
    user = "alice"
    first = c.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id="s1", speaker="user", text=old_text,
                                                   at=clock.now()))
    [old] = first.memories
    clock.advance(timedelta(days=20))
    second = c.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id="s2", speaker="user", text=new_text,
                                                    at=clock.now()))
    [new] = second.memories
    [conflict] = c.conflicts.conflicts(tenant, user, status=None)
    assert conflict.status is ConflictStatus.RESOLVED and conflict.strategy is ConflictStrategy.LATEST
    assert (conflict.winner_id, conflict.loser_id) == (new.id, old.id)

    # History shows both with their validity.
    history = c.conflicts.history(tenant, user, memory_id=old.id)
    assert [(h.memory.id, h.memory.valid_from, h.memory.valid_to) for h in history] == [
        (old.id, old.valid_from, clock.now()), (new.id, new.valid_from, None)]
    assert history[0].superseded_by == [new.id] and history[1].supersedes == [old.id]
    assert {h.memory.id for h in c.conflicts.history(tenant, user)} == {old.id, new.id}

    # Recall brings the new preference and not the old; with history asked for, both.
    recalled = c.recall.recall(tenant, RecallRequest(user_id=user, query=query))
    assert old.id not in [m.memory.id for m in recalled.memories]
    assert [m.memory.id for m in recalled.memories] == [new.id], (
        f"acceptance (issue 5): recall for {query!r} must bring the new preference; recall's gate said "
        f"{recalled.reason!r}")
    # (a question about the preference itself: for the restaurant the old no is below recall's relative cut)
    with_history = c.recall.recall(tenant, RecallRequest(user_id=user, query=about_it, include_history=True))
    assert {m.memory.id for m in with_history.memories} == {old.id, new.id}
    assert [h.memory.id for h in c.memories.search(tenant, user, query, k=5)] == [new.id]


@pytest.mark.parametrize(("old_text", "new_text"), [
    ("我不吃辣", "我现在很喜欢吃辣的川菜"), ("I don't eat spicy food", "I really love spicy Sichuan food now")])
def test_latest_in_one_conversation_sent_without_times_is_the_later_turn(
        living: tuple[Container, FakeClock], tenant: str, old_text: str, new_text: str) -> None:
    """The turns of a conversation sent without times all carry the time it arrived: the later turn wins."""
    c, _ = living
    report = c.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="alice", session_id="s1", speaker="user", text=text) for text in (old_text, new_text)])
    [old], [new] = (t.memories for t in report.turns)
    assert old.created_at == new.created_at  # one time for both
    [conflict] = c.conflicts.conflicts(tenant, "alice", status=None)
    assert (conflict.winner_id, conflict.loser_id) == (new.id, old.id)
    assert get(c, Scope(tenant, "alice"), old.id).valid_to is not None
    assert get(c, Scope(tenant, "alice"), new.id).valid_to is None


# ----- conflicts made moot by a later supersession ------------------------------------------------------------


def snapshot(c: Container, scope: Scope, *ids: str) -> dict[str, object]:
    """What settling may never rewrite of superseded memories: validity, active weight, their triples' validity
    and the SUPERSEDES edges around them."""
    out: dict[str, object] = {}
    for mid in ids:
        m = get(c, scope, mid)
        [entry] = [h for h in c.conflicts.history(scope.tenant, scope.user_id, memory_id=mid) if h.memory.id == mid]
        out[mid] = (m.valid_to, m.weight.active, sorted(entry.supersedes), sorted(entry.superseded_by),
                    sorted((t.id, t.valid_to) for t in c.memories.triples(scope.tenant, scope.user_id, mid)))
    return out


def test_a_review_conflict_is_closed_when_its_memories_are_superseded_and_never_resolved_later(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living

    def live_in(city: str, strategy: ConflictStrategy | None = None) -> Memory:  # an hour after the last one
        clock.advance(timedelta(hours=1))
        return store(c, scope, f"I live in {city}", triples=[("user", "lives_in", city, 1)], strategy=strategy)

    berlin, paris = live_in("Berlin"), live_in("Paris", ConflictStrategy.REVIEW)
    [held] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    rome = live_in("Rome")  # LATEST
    superseded_at = clock.now()
    assert get(c, scope, berlin.id).valid_to == get(c, scope, paris.id).valid_to == superseded_at

    # the review queue no longer offers a choice between two memories that are both history
    assert c.conflicts.conflicts(scope.tenant, scope.user_id) == []
    closed = c.conflicts.get(scope.tenant, scope.user_id, held.id)
    assert closed is not None and closed.status is ConflictStatus.RESOLVED
    assert (closed.winner_id, closed.loser_id, closed.resolved_by, closed.resolved_at) == (
        None, None, "superseded", superseded_at)

    before = snapshot(c, scope, berlin.id, paris.id, rome.id)
    assert before[paris.id][3] == [rome.id]  # type: ignore[index]
    clock.advance(timedelta(days=3))
    with pytest.raises(ConflictError) as refused:
        c.conflicts.resolve(scope.tenant, scope.user_id, held.id, berlin.id)
    message = str(refused.value)
    assert held.id in message and rome.id in message and paris.id in message and berlin.id in message
    assert superseded_at.isoformat() in message
    assert snapshot(c, scope, berlin.id, paris.id, rome.id) == before  # history as it was
    assert [e for e in c.events.published if e.kind is EventKind.SUPERSEDED and  # type: ignore[attr-defined]
            e.detail["conflict_id"] == held.id] == []


def test_resolving_an_open_conflict_whose_memory_was_superseded_closes_it_and_rewrites_nothing(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    """An OPEN conflict left over from before moot conflicts were closed (or recorded in a race with the
    supersession): resolving it answers CONFLICT, takes it off the queue and leaves both memories alone."""
    c, clock = living
    keeper = store(c, scope, "I work from home on Fridays", hook=False)
    bosch = store(c, scope, "I work at Bosch", triples=[("user", "works_at", "Bosch", 1)], hook=False)
    clock.advance(timedelta(hours=1))
    superseded_at = clock.now()
    sap = store(c, scope, "I work at SAP", triples=[("user", "works_at", "SAP", 1)])  # LATEST: Bosch is history
    assert get(c, scope, bosch.id).valid_to == superseded_at and get(c, scope, keeper.id).valid_to is None
    recorded = c.conflicts._conflicts.record(scope, new_id=keeper.id, old_id=bosch.id, kind=ConflictKind.NEGATION,
                                             strategy=ConflictStrategy.REVIEW, reason="left over", now=clock.now())
    assert recorded is not None and recorded[0].status is ConflictStatus.OPEN
    before = snapshot(c, scope, keeper.id, bosch.id, sap.id)
    clock.advance(timedelta(days=1))
    for winner in (keeper.id, bosch.id):
        with pytest.raises(ConflictError) as refused:
            c.conflicts.resolve(scope.tenant, scope.user_id, recorded[0].id, winner)
        assert bosch.id in str(refused.value) and sap.id in str(refused.value)
        assert superseded_at.isoformat() in str(refused.value)
        assert snapshot(c, scope, keeper.id, bosch.id, sap.id) == before
    closed = c.conflicts.get(scope.tenant, scope.user_id, recorded[0].id)
    assert closed is not None and closed.status is ConflictStatus.RESOLVED and closed.winner_id is None
    assert closed.resolved_by == "superseded" and closed.resolved_at == clock.now()
    assert c.conflicts.conflicts(scope.tenant, scope.user_id) == []


@pytest.mark.parametrize("way", ["one by one", "batched", "batched, static choice"])
def test_settling_closes_as_moot_what_involves_a_superseded_memory(living: tuple[Container, FakeClock],
                                                                   scope: Scope, way: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The system's own settlement, each way graph/conflicts.py has: a finding whose old memory was superseded
    meanwhile is closed without touching it, and the new memory losing closes its conflict held for review."""
    c, clock = living
    policy = c.weight_policy
    repo = ConflictRepository(c.store)
    decay = policy.cypher_params()
    core = store(c, scope, "记住：我住在上海", tier=Tier.CORE, hook=False)
    new = store(c, scope, "I live in Berlin", hook=False)
    gone = store(c, scope, "I live in Paris", triples=[("user", "lives_in", "Paris", 1)], hook=False)
    clock.advance(timedelta(hours=1))
    rome = store(c, scope, "I live in Rome", triples=[("user", "lives_in", "Rome", 1)], hook=False)
    recorded = repo.record(scope, new_id=rome.id, old_id=gone.id, kind=ConflictKind.SINGLE_VALUED,
                           strategy=ConflictStrategy.LATEST, reason="earlier", now=clock.now())
    assert recorded is not None
    assert repo.resolve(scope, recorded[0], choose=lambda n, o: rome.id, resolved_by="LATEST", now=clock.now(),
                        params=decay, winner_bonus=policy.winner_bonus, loser_penalty=policy.loser_penalty) is not None
    clock.advance(timedelta(hours=1))
    newer = store(c, scope, "I live in Madrid", hook=False)
    before = snapshot(c, scope, gone.id, rome.id)

    def choose(n: Memory, o: Memory) -> str | None:
        if n.locked or o.locked:
            return None
        return n.id if (n.valid_from, n.created_at) >= (o.valid_from, o.created_at) else o.id

    if way == "one by one":
        monkeypatch.setattr(conflicts_module._Settle, "batched", conflicts_module._Settle.one_by_one)
    findings = [(core.id, ConflictKind.SINGLE_VALUED, "held"), (gone.id, ConflictKind.SINGLE_VALUED, "moot"),
                (newer.id, ConflictKind.SINGLE_VALUED, "lost")]
    done = repo.record_and_settle(scope, new.id, findings, strategy=ConflictStrategy.LATEST, choose=choose,
                                  resolved_by="LATEST", now=clock.now(), static_choice=way.endswith("static choice"),
                                  params=decay, winner_bonus=policy.winner_bonus, loser_penalty=policy.loser_penalty)
    expected = [(core.id, ConflictStatus.RESOLVED, None, None, "superseded", clock.now()),
                (gone.id, ConflictStatus.RESOLVED, None, None, "superseded", clock.now()),
                (newer.id, ConflictStatus.RESOLVED, newer.id, new.id, "LATEST", clock.now())]
    assert [(x.old_memory_id, x.status, x.winner_id, x.loser_id, x.resolved_by, x.resolved_at)
            for x, _ in done] == expected
    stored = {x.old_memory_id: x for x in c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)
              if x.new_memory_id == new.id}
    assert [(x.old_memory_id, x.status, x.winner_id, x.loser_id, x.resolved_by, x.resolved_at)
            for x in (stored[core.id], stored[gone.id], stored[newer.id])] == expected
    assert snapshot(c, scope, gone.id, rome.id) == before  # superseded once, by Rome, when it was
    assert get(c, scope, core.id) == core
    assert c.conflicts.conflicts(scope.tenant, scope.user_id) == []


# ----- GraphQL -------------------------------------------------------------------------------------------------


def test_conflicts_over_graphql(client: BmamClient) -> None:
    user = f"cf-{uuid.uuid4().hex[:8]}"
    # addTriple runs the memory's conflict detection: a change of mind is settled there (LATEST), and a check
    # afterwards finds nothing new
    chengdu = client.remember(user, "I live in Chengdu")
    client.add_triple(user, chengdu["id"], "user", "lives_in", "Chengdu")
    beijing = client.remember(user, "I live in Beijing")
    client.add_triple(user, beijing["id"], "user", "lives_in", "Beijing")
    [moved] = client.conflicts(user, status=None)
    assert (moved["status"], moved["kind"], moved["strategy"], moved["winnerId"], moved["loserId"]) == (
        "RESOLVED", "SINGLE_VALUED", "LATEST", beijing["id"], chengdu["id"])
    assert client.check_conflicts(user, beijing["id"], strategy="REVIEW") == []
    assert client.conflicts(user) == []
    history = client.history(user, entity="Chengdu")
    assert [(h["memory"]["id"], h["current"]) for h in history] == [(chengdu["id"], False), (beijing["id"], True)]

    # one with a locked (core) memory is held for review at addTriple; checking again lists the same one
    old = client.remember(user, "I work at Siemens", tier="CORE")
    client.add_triple(user, old["id"], "user", "works_at", "Siemens")
    new = client.remember(user, "I work at Bosch")
    client.add_triple(user, new["id"], "user", "works_at", "Bosch")
    [held] = client.conflicts(user)
    assert held["status"] == "OPEN" and held["kind"] == "SINGLE_VALUED"
    assert [c["id"] for c in client.check_conflicts(user, new["id"], strategy="REVIEW")] == [held["id"]]
    assert [c["id"] for c in client.conflicts(user)] == [held["id"]]
    with pytest.raises(BmamClientError) as outside:
        client.resolve_conflict(user, held["id"], "m_not_in_it")
    assert outside.value.code == "BAD_USER_INPUT"
    with pytest.raises(BmamClientError) as unknown:
        client.resolve_conflict(user, "c_nope", new["id"])
    assert unknown.value.code == "NOT_FOUND"
    settled = client.resolve_conflict(user, held["id"], new["id"])
    assert settled["status"] == "RESOLVED" and settled["winnerId"] == new["id"] and settled["loserId"] == old["id"]
    assert settled["oldMemory"]["validTo"] is not None
    history = client.history(user, entity="Siemens")
    assert [(h["memory"]["id"], h["current"]) for h in history] == [(old["id"], False), (new["id"], True)]
    assert client.conflicts(user) == [] and len(client.conflicts(user, status=None)) == 2


def test_resolving_a_moot_conflict_over_graphql_is_a_conflict(client: BmamClient, container: Container,
                                                              api_tenant: str) -> None:
    user = f"cf-{uuid.uuid4().hex[:8]}"
    ids: list[str] = []

    def live_in(city: str) -> str:  # stored in order, without addTriple's hooks: LATEST lets the last one win
        m = store(container, Scope(api_tenant, user), f"I live in {city}", triples=[("user", "lives_in", city, 1)],
                  hook=False)
        ids.append(m.id)
        return m.id

    live_in("Chengdu")
    [held] = client.check_conflicts(user, live_in("Beijing"), strategy="REVIEW")
    assert [c["id"] for c in client.conflicts(user)] == [held["id"]]
    assert [c["status"] for c in client.check_conflicts(user, live_in("Shanghai"), strategy="LATEST")] == [
        "RESOLVED", "RESOLVED"]
    assert client.conflicts(user) == []  # moot: both of its memories are history now
    with pytest.raises(BmamClientError) as moot:
        client.resolve_conflict(user, held["id"], ids[0])
    assert moot.value.code == "CONFLICT" and ids[2] in str(moot.value)
    history = client.history(user, entity="Chengdu")
    assert [(h["memory"]["id"], h["supersededBy"]) for h in history if h["memory"]["id"] in ids[:2]] == [
        (ids[0], [ids[2]]), (ids[1], [ids[2]])]


def test_a_reschedule_ends_the_time_said_before() -> None:
    """A plan or an appointment moved to another time (both were recalled, the old time first)."""
    def found(new: str, old: str, cosine: float) -> list[ConflictKind]:
        return found_by_meaning(new, old, cosine, cancel_threshold=0.35)

    dentist = "I have a dentist appointment on Dec 12 at 3pm"
    assert found("My dentist appointment moved to Dec 15 at 10am", dentist, 0.88) == [ConflictKind.NEGATION]
    assert found("Dinner with Sarah got moved to Saturday", "Dinner with Sarah on Friday at 7", 0.76) == [
        ConflictKind.NEGATION]
    assert found("理发改到22号了", "我20号下午去理发", 0.67) == []  # one thing in common: too little to say one event
    assert found("看牙医改到周五了", "我下周三下午三点看牙医", 0.74) == [ConflictKind.NEGATION]
    # another person's meeting, another thing, a home move, no time said before, below the line
    assert found("My meeting with Anna moved to Friday", "I have a meeting with Tom on Thursday", 0.55) == []
    assert found("My dentist appointment moved to Dec 15", "I have yoga on Monday at 6pm", 0.60) == []
    assert found("We moved to Seattle last week", "I live in Portland", 0.48) == []
    assert found("My dentist appointment moved to Dec 15", "I like my dentist a lot", 0.70) == []
    assert found("和小李的会改到周四了", "我周五要和老王开会", 0.44) == []
    assert found("My dentist appointment moved to Dec 15", dentist, 0.30) == []
    # a date that is a fact, one time only, another person's, another event sharing one word, 改成 with no time
    assert found("Maya's birthday party got moved to Saturday", "Maya's birthday is on May 5th", 0.75) == []
    assert found("gym got moved to Tuesday this week", "I go to the gym every Monday at 7pm", 0.70) == []
    assert found("这周心理咨询改到周五了", "我每周四下午四点做心理咨询", 0.76) == []
    assert found("the kids' dentist appt got pushed to next week", "My dentist appointment is tomorrow at 10am",
                 0.59) == []
    assert found("女儿的钢琴课调到周六了", "儿子的钢琴课在周三晚上", 0.80) == []
    assert found("Lunch with mom moved to Sunday", "Dinner with mom on Saturday at 7pm", 0.69) == []
    assert found("电话号码改成13800001111了", "我明天给妈妈打电话", 0.38) == []
    assert found("Book club moved to next Thursday", "Book club meets on the first Monday of the month", 0.71) == []


def test_a_restatement_with_a_detail_changed_is_a_revision() -> None:
    def found(new: str, old: str, cosine: float) -> list[ConflictKind]:
        return found_by_meaning(new, old, cosine, revision_threshold=0.92)

    build = "To deploy the blog: first run make build, then rsync public/ to the server, then purge the CDN"
    assert found(build.replace("build", "release"), build, 0.96) == [ConflictKind.NEGATION]
    assert found("做番茄炒蛋：先炒蛋盛出，再炒番茄，最后加盐", "做番茄炒蛋：先炒蛋盛出，再炒番茄，最后加糖", 0.96) == [
        ConflictKind.NEGATION]
    # a number alone: two things ("memory 3" / "memory 4", steps walked on two days), both kept
    assert found("I take levothyroxine 75 mcg every morning", "I take levothyroxine 50 mcg every morning", 0.93) == []
    assert found("memory 4 of alice", "memory 3 of alice", 0.97) == []
    # a rewording or an addition, and two things said alike below a near-duplicate's cosine
    assert found("I am living in Berlin", "I live in Berlin", 0.95) == []
    assert found("I live in Berlin, Germany", "I live in Berlin", 0.95) == []
    assert found("My brother lives in Denver", "My sister lives in Denver", 0.88) == []
    # rewordings at a near-duplicate's cosine (each superseded its original: a restated fact went back to temp)
    assert found("My wife's name is Anna", "My wife is called Anna", 0.93) == []
    assert found("Blue is my favourite colour", "My favorite color is blue", 0.92) == []
    assert found("I'm studying Spanish on Duolingo", "I'm learning Spanish on Duolingo", 0.97) == []
    assert found("我是一名程序员", "我是程序员", 0.98) == [] and found("我对花生严重过敏", "我对花生过敏", 0.92) == []
    assert found("我每天早上跑步", "我每天早晨跑步", 0.96) == []
    assert found("I'm reading Dune right now, it is slow at first", "I'm reading Dune at the moment, it is slow at "
                 "first", 0.94) == []
    assert changed_detail("I really love my dog Max", "I love my dog Max") == ([], [])
    # one place changed outside a procedure: a second fact or a synonym as often as a change (both kept)
    assert changed_detail("I enjoy hiking in the mountains with my dog every weekend",
                          "I love hiking in the mountains with my dog every weekend") == ([], [])
    assert changed_detail("I love spicy hotpot at home with extra chili oil", "I love spicy hotpot in Chengdu with "
                          "extra chili oil") == ([], [])


def test_a_replacement_ends_the_routine_it_names() -> None:
    """"she'll do soccer on Saturday mornings instead of piano" left "Maya takes piano lessons on Saturdays" current
    (ranked first for "What does Maya do on Saturdays?")."""
    def found(new: str, old: str, cosine: float) -> list[ConflictKind]:
        return found_by_meaning(new, old, cosine, cancel_threshold=0.35)

    piano = "Maya takes piano lessons on Saturdays at 10."
    assert found("Yeah we decided she'll do soccer on Saturday mornings instead of piano.", piano, 0.42) == [
        ConflictKind.NEGATION]
    assert found("I'll take the bus to work instead of biking from now on", "I commute by bike most days", 0.5) == [
        ConflictKind.NEGATION]
    assert found("我们决定周六上午去踢足球，而不是钢琴", "朵朵每周六上午学钢琴", 0.5) == [ConflictKind.NEGATION]
    # once only, no routine or plan said before, another thing, below the line
    assert found("I had tea instead of coffee this morning", "I drink coffee every morning", 0.6) == []
    assert found("I'll have tea instead of coffee", "I love coffee", 0.5) == []
    assert found("She'll do soccer instead of chess", piano, 0.4) == []
    assert found("She'll do soccer instead of piano", piano, 0.3) == []
    # what happened once, someone else's, a preference (each superseded the routine)
    assert found("I had tea instead of coffee yesterday", "I drink coffee every morning", 0.67) == []
    assert found("We got takeout instead of cooking, too tired", "I usually cook dinner every night", 0.5) == []
    assert found("My coworker uses vim instead of VS Code", "I use VS Code every day", 0.68) == []
    assert found("my wife takes the train instead of the bus", "I take the bus to work every day", 0.6) == []
    assert found("Maya's friend Lily does violin instead of piano", piano, 0.5) == []
    assert found("下雨了所以打车而不是坐地铁", "我平时坐地铁上班", 0.5) == []
    assert found("I prefer python rather than java", "At work I always write java", 0.5) == []
    # one occasion, a thought
    assert found("I'm going to skip the gym and go hiking instead of lifting on Saturday", "I lift weights at the gym "
                 "every Saturday", 0.73) == []
    assert found("Maybe I'll start running instead of cycling, what do you think?", "I go cycling every weekend",
                 0.56) == []


def test_a_task_reported_done_ends_its_reminder() -> None:
    """"The case study for the interview is done btw" left "Remind me to prepare a portfolio case study by Thursday"
    live: it came back in every prompt about Friday."""
    def found(new: str, old: str, cosine: float) -> list[ConflictKind]:
        return found_by_meaning(new, old, cosine, cancel_threshold=0.35)

    reminder = "Remind me to prepare a portfolio case study by Thursday."
    assert found("The case study for the interview is done btw.", reminder, 0.6) == [ConflictKind.NEGATION]
    assert found("年终总结写完了", "提醒我周五前写完年终总结", 0.6) == [ConflictKind.NEGATION]
    assert found("The kitchen renovation is finally done!", "We're planning to renovate the kitchen next month",
                 0.5) == [ConflictKind.NEGATION]
    # something else done; no task said before; nothing said done
    assert found("My sister's wedding dress is done", "I'm going to my sister's wedding next month", 0.5) == []
    assert found("The case study is done", "I love case studies", 0.6) == []
    assert found("I finished it", "Remind me to finish the report by Friday", 0.5) == []
    # what is left to do, a question, one word in common, someone else's
    assert found("The report is done, but I still need to send it to Anna", "Remind me to send the report to Anna "
                 "on Friday", 0.73) == []
    assert found("报告完成了，明天再交", "提醒我明天交报告", 0.72) == []
    assert found("the report is done?", "Remind me to finish the report", 0.48) == []
    assert found("The project is done", "planning to start a new project next month", 0.48) == []
    assert found("The wedding is done", "going to Tom's wedding in June", 0.41) == []
