"""Ingest against the real Neo4j: episodes, sessions and the NEXT chain, idempotent re-ingest (the whole
user graph compared), devices, repetition, engagement, emphasis, capacities, hooks, events, and the
GraphQL face with per-turn errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.events import EventKind, MemoryEvent
from bmam.settings import Settings
from bmam.usecases.hooks import StoredMemoryContext
from bmam.usecases.ingest import NameIndex, repeats
from bmam.usecases.memories import RememberRequest
from graph.conflicts import ConflictRepository
from graph.episodes import EpisodeRepository
from graph.errors import BadInput, LimitExceeded
from graph.ids import new_memory_id
from graph.model import ClassifierLevel, MemoryType, NewMemory, PresetKind, Scope, Tier
from graph.text_key import normalized_text
from graph.vector_cache import VectorCache
from ingest.turns import TurnInput, parse_speaker, positions
from tests.ops_support import store_rows

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def make_container(settings: Settings, clock: FakeClock, **tiers: Any) -> Container:
    """A container of its own: a fake clock and (optionally) small tier capacities."""
    return Container(settings.model_copy(update={"tiers": settings.tiers.model_copy(update=tiers)}), clock=clock)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def c(settings: Settings, clock: FakeClock, container: Container) -> Iterator[Container]:
    made = make_container(settings, clock)
    yield made
    made.close()


def turn(text: str, *, user: str = "alice", session: str = "s1", speaker: str = "user", minutes: int | None = None,
         **kw: Any) -> TurnInput:
    at = T0 + timedelta(minutes=minutes) if minutes is not None else None
    return TurnInput(user_id=user, session_id=session, speaker=speaker, text=text, at=at, **kw)


def dump(c: Container, scope: Scope) -> tuple[list[str], list[str]]:
    return EpisodeRepository(c.store, c.vector_dimensions).dump(scope)


def next_chain(c: Container, scope: Scope) -> list[tuple[int, int]]:
    """(turn, turn) pairs joined by NEXT, from the canonical dump."""
    import json

    nodes, edges = dump(c, scope)
    turn_of = {}
    for line in nodes:
        n = json.loads(line)
        if "Episode" in n["labels"]:
            turn_of[n["props"]["id"]] = n["props"]["turn"]
    return sorted((turn_of[e["a"][1]], turn_of[e["b"][1]]) for e in map(json.loads, edges) if e["type"] == "NEXT")


# ----- pure helpers -----------------------------------------------------------------------------


def test_positions_count_every_line_of_a_session() -> None:
    keys = [("a", "s1"), ("a", "s2"), None, ("a", "s1"), ("b", "s1"), ("a", "s1")]
    assert positions(keys, [None, None, None, None, None, 7]) == [0, 0, None, 1, 0, 7]
    # ids are compared as validate.identifier keeps them (trimmed): "a " in "s1 " is a's session s1
    assert positions([("a", "s1"), ("a", "s1 "), ("a ", "s1")], [None, None, None]) == [0, 1, 2]


def test_speakers_and_normalised_text() -> None:
    assert parse_speaker(" Human ") == "user" and parse_speaker("AI") == "assistant"
    assert parse_speaker("robot") is None
    assert normalized_text("I love  Spicy food!") == normalized_text("i love spicy food")
    assert normalized_text("我住在成都。") == normalized_text("我住在成都")


def test_name_index_and_repeats() -> None:
    index = NameIndex({"m1": ["user", "火锅"], "m2": ["tea"], "m3": ["Berlin"]})
    assert index.find("推荐一个火锅店?") == ["m1"]
    assert index.find("I had a steak") == []
    assert index.find("tea or coffee?") == ["m2"]
    assert index.find("Any news from berlin?") == ["m3"]
    assert index.find("user manual") == []
    assert repeats(set(), [])
    assert repeats({("user", "likes", "spicy food", 1)}, [("user", "likes", "Spicy food", 1)])
    assert not repeats({("user", "birthday", "7月21日", 1)}, [("user", "birthday", "7月20日", 1)])
    assert not repeats({("user", "eats", "pork", -1)}, [("user", "eats", "pork", 1)])


# ----- episodes, sessions, NEXT -------------------------------------------------------------------


def test_every_turn_is_an_episode_chained_in_its_session(c: Container, tenant: str) -> None:
    scope = Scope(tenant, "alice")
    report = c.ingest.ingest_conversation(tenant, [
        turn("你好", minutes=0),
        turn("你好！有什么可以帮你？", speaker="assistant", minutes=1),
        turn("我住在成都，最喜欢吃火锅", minutes=2, device_id="phone"),
        turn("I work at Google as an engineer", session="s2", minutes=3),
        turn("好的，谢谢", minutes=4),
    ])
    assert [r.turn for r in report.turns] == [0, 1, 2, 0, 3]
    assert all(r.stored and not r.duplicate and not r.errors for r in report.turns)
    assert [r.remembered for r in report.turns] == [False, False, True, True, False]
    assert report.turns[1].reason == "assistant_turn" and not report.turns[1].memories
    episodes = EpisodeRepository(c.store, c.vector_dimensions).recent(scope, "s1", 10)
    assert [(e.turn, e.speaker) for e in episodes] == [(0, "user"), (1, "assistant"), (2, "user"), (3, "user")]
    assert episodes[2].device_id == "phone" and episodes[2].at == T0 + timedelta(minutes=2)
    assert next_chain(c, scope) == [(0, 1), (1, 2), (2, 3)]
    m = report.turns[2].memories[0]
    assert m.tier is Tier.TEMP and m.provenance.episode_id == report.turns[2].episode_id
    assert m.provenance.device_id == "phone" and m.provenance.turn == 2 and m.created_at == T0 + timedelta(minutes=2)
    assert {(t.predicate, t.object.name) for t in report.turns[2].triples} >= {("lives_in", "成都")}


def test_a_turn_added_between_two_relinks_the_chain(c: Container, tenant: str) -> None:
    scope = Scope(tenant, "alice")
    c.ingest.ingest_conversation(tenant, [turn("hello", turn=0, minutes=0), turn("bye", turn=2, minutes=2)])
    assert next_chain(c, scope) == [(0, 2)]
    c.ingest.ingest_conversation(tenant, [turn("ok", turn=1, minutes=1)])
    assert next_chain(c, scope) == [(0, 1), (1, 2)]


def test_ingesting_the_same_conversation_twice_leaves_the_graph_identical(c: Container, tenant: str,
                                                                         clock: FakeClock) -> None:
    scope = Scope(tenant, "alice")
    conversation = [
        turn("我叫小明", minutes=0),
        turn("你好小明！", speaker="assistant", minutes=1),
        turn("我住在成都，最喜欢吃火锅", minutes=2),
        turn("推荐一个火锅店?", minutes=3),
        turn("I am allergic to peanuts, remember this", minutes=4),
        turn("我住在成都，最喜欢吃火锅", minutes=5),
        turn("上次在成都吃的火锅很棒", session="s2", minutes=6, device_id="laptop"),
    ]
    first = c.ingest.ingest_conversation(tenant, conversation)
    assert first.stored == len(conversation)
    before = dump(c, scope)
    clock.advance(timedelta(hours=5))
    again = c.ingest.ingest_conversation(tenant, conversation)
    assert again.duplicates == len(conversation) and again.stored == 0
    assert dump(c, scope) == before
    assert len(before[0]) > 10 and len(before[1]) > 10  # the dump really holds the graph


def test_a_turn_index_stored_with_another_text_is_a_conflict(c: Container, tenant: str) -> None:
    c.ingest.ingest_conversation(tenant, [turn("I like tea", turn=0)])
    result = c.ingest.ingest_conversation(tenant, [turn("I like coffee", turn=0), turn("I like cake", turn=1)])
    assert [e.code for e in result.turns[0].errors] == ["CONFLICT"] and not result.turns[0].stored
    assert result.turns[1].stored and not result.turns[1].errors


def test_ingest_turn_appends_and_recognises_a_retry(c: Container, tenant: str) -> None:
    a = c.ingest.ingest_turn(tenant, turn("I like tea"))
    retry = c.ingest.ingest_turn(tenant, turn("I like tea"))
    b = c.ingest.ingest_turn(tenant, turn("And I play the piano every day"))
    assert (a.turn, retry.turn, b.turn) == (0, 0, 1)
    assert retry.duplicate and retry.episode_id == a.episode_id and not retry.memories
    with pytest.raises(BadInput):
        c.ingest.ingest_turn(tenant, turn("hi", speaker="robot"))
    with pytest.raises(LimitExceeded):
        c.ingest.ingest_turn(tenant, turn("x" * (32 * 1024 + 1)))


def test_bad_turns_are_reported_one_by_one_and_the_good_ones_kept(c: Container, tenant: str) -> None:
    scope = Scope(tenant, "alice")
    report = c.ingest.ingest_conversation(tenant, [
        turn("I like tea"),
        turn("   "),
        turn("hello", speaker="narrator"),
        turn("x" * (32 * 1024 + 1)),
        TurnInput(user_id="", session_id="s1", speaker="user", text="hi"),
        turn("My sister lives in Berlin"),
    ])
    assert [bool(r.errors) for r in report.turns] == [False, True, True, True, True, False]
    assert {e.code for r in report.turns for e in r.errors} == {"BAD_USER_INPUT"}
    assert report.turns[3].errors[0].field == "text" and "32768" in report.turns[3].errors[0].message
    # positions count the bad turns of the session too (the one without user is of no session), so fixing
    # one later keeps every index
    assert [r.turn for r in report.turns if r.stored] == [0, 4]
    assert len(c.memories.page(tenant, "alice").items) == 2
    assert [e.text for e in EpisodeRepository(c.store, c.vector_dimensions).recent(scope, "s1", 9)] == [
        "I like tea", "My sister lives in Berlin"]


# ----- identity, repetition, engagement, emphasis -----------------------------------------------


def test_a_user_sees_one_set_of_memories_from_two_devices(c: Container, clock: FakeClock, tenant: str) -> None:
    c.ingest.ingest_conversation(tenant, [
        turn("I love spicy food", session="phone-1", device_id="phone", minutes=0),
        turn("My sister lives in Berlin", session="phone-1", device_id="phone", minutes=1),
    ])
    clock.advance(timedelta(minutes=60))  # an hour later, on the laptop (a turn's time is never ahead of the clock)
    report = c.ingest.ingest_conversation(tenant, [
        turn("I love spicy food", session="laptop-1", device_id="laptop", minutes=60),
    ])
    assert report.turns[0].memories == [] and len(report.turns[0].mentioned) == 1
    items = c.memories.page(tenant, "alice").items
    assert len(items) == 2
    spicy = next(m for m in items if "spicy" in m.text)
    assert spicy.mention_count == 2 and spicy.provenance.device_id == "phone"
    assert spicy.last_mentioned_at == T0 + timedelta(minutes=60)
    assert spicy.tier is Tier.MID  # repeated: the user keeps coming back to it


def test_repetition_promotes_to_mid_then_core_and_locks(c: Container, tenant: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[MemoryEvent] = []
    monkeypatch.setattr(c.events, "publish", events.append)
    texts = ["I love spicy food", "I love spicy food!", "i really love spicy food"]
    reports = [c.ingest.ingest_conversation(tenant, [turn(t, turn=i, minutes=i)]) for i, t in enumerate(texts)]
    m = reports[2].turns[0].mentioned[0]
    assert m.tier is Tier.CORE and m.locked and m.mention_count == 3
    assert [ch.reason.value for r in reports for ch in r.turns[0].changes] == ["repeated", "mentioned_often"]
    assert [(e.kind, e.detail.get("to")) for e in events] == [
        (EventKind.CREATED, None), (EventKind.PROMOTED, "mid"), (EventKind.PROMOTED, "core")]
    assert len(c.memories.page(tenant, "alice").items) == 1


def test_a_memory_repetition_locks_in_core_is_weighed_as_of_then_and_decays_no_more(c: Container, clock: FakeClock,
                                                                                      tenant: str) -> None:
    """Ingest's promotion into core brings the weight to the promoting turn's time (its decay clock stops there:
    a locked memory does not decay, README "Weights"), so the weeks before the lock are charged and none after."""
    week = 7 * 24 * 60
    for i, text in enumerate(["I love spicy food", "I love spicy food!", "i really love spicy food"]):
        clock.advance(timedelta(minutes=2 * week if i else 0))
        report = c.ingest.ingest_conversation(tenant, [turn(text, turn=i, minutes=2 * week * i)])
    [m] = report.turns[0].mentioned
    assert m.tier is Tier.CORE and m.locked
    promoted = T0 + timedelta(minutes=4 * week)
    query = "MATCH (m:Memory {id: $id}) RETURN toString(m.decayed_at) AS decayed_at, m.weight AS weight"
    [row] = store_rows(c, query, id=m.id)
    assert row["decayed_at"] == promoted.isoformat().replace("+00:00", "Z")
    clock.advance(timedelta(weeks=8))
    assert c.feedback.decay(tenant, "alice") == 0
    assert store_rows(c, query, id=m.id) == [row]


def test_a_contradiction_is_a_new_memory_not_a_repeat(c: Container, tenant: str) -> None:
    report = c.ingest.ingest_conversation(tenant, [turn("My birthday is July 20"), turn("My birthday is July 21")])
    assert all(len(r.memories) == 1 for r in report.turns)
    # both kept (conflict detection, a stored-memory hook, may mark the older one superseded)
    assert len(c.memories.page(tenant, "alice", include_history=True).items) == 2


def test_a_turn_saying_what_remember_stored_repeats_it(c: Container, tenant: str) -> None:
    """README's walkthrough stores 我住在成都，最喜欢吃火锅 with `remember`, then ingests the same words: one memory,
    mentioned again (the remembered one has no triples of its own, so "every triple of the turn asserted by the
    memory" could not hold; two copies filled two of recall's k; an app developer's audit, session 50)."""
    text = "我住在成都，最喜欢吃火锅"
    kept = c.memories.remember(tenant, RememberRequest(user_id="alice", text=text, type="FACTUAL"))
    report = c.ingest.ingest_conversation(tenant, [turn(text)])
    assert [m.id for m in report.turns[0].mentioned] == [kept.id] and report.turns[0].memories == []
    assert [m.id for m in c.memories.page(tenant, "alice").items] == [kept.id]
    got = c.memories.get(tenant, "alice", kept.id)
    assert got is not None and got.mention_count == kept.mention_count + 1


@pytest.mark.parametrize("one_request", [False, True])
def test_a_fact_said_again_in_other_words_is_a_mention_of_the_memory_asserting_it(c: Container, tenant: str,
                                                                                   one_request: bool) -> None:
    """The allergy said three times, as a long-horizon audit said it (session 52): cosines 0.69-0.74, under the
    repeat line, made three memories asserting (user, allergic_to, 花生), three copies in every food answer, and
    repetition never promoted the first. Each restatement is a mention of the first, the emphasised one promotes
    it to core; in one request or in three. What the turns said stays in their episodes, tied to it (DERIVED_FROM)."""
    texts = ["我对花生过敏，很严重，吃了会休克。", "对了，我对花生过敏，你推荐菜的时候要注意。",
             "我对花生过敏，这个一定要记住。"]
    turns = [turn(text, turn=i, minutes=i) for i, text in enumerate(texts)]
    reports = [c.ingest.ingest_conversation(tenant, turns)] if one_request \
        else [c.ingest.ingest_conversation(tenant, [t]) for t in turns]
    [kept] = c.memories.page(tenant, "alice").items
    assert kept.text == texts[0] and kept.mention_count == 3 and kept.tier is Tier.CORE and kept.locked
    said = [r for report in reports for r in report.turns]
    assert [[m.id for m in r.mentioned] for r in said] == [[], [kept.id], [kept.id]]
    derived = store_rows(c, "MATCH (m:Memory {id: $id})-[:DERIVED_FROM]->(e:Episode) RETURN e.text AS text",
                         id=kept.id)
    assert sorted(r["text"] for r in derived) == sorted(texts)


@pytest.mark.parametrize(("first", "again"), [
    # more than the fact: a memory of its own
    ("I love sushi.", "I love sushi, my sister took me to the new place on 5th street"),
    # a plan said twice is two visits
    ("I'm going to Tokyo next week.", "I'm going to Tokyo."),
])
def test_a_fact_said_again_with_something_besides_is_a_memory_of_its_own(c: Container, tenant: str, first: str,
                                                                          again: str) -> None:
    c.ingest.ingest_conversation(tenant, [turn(first, turn=0)])
    report = c.ingest.ingest_conversation(tenant, [turn(again, turn=1)])
    assert report.turns[0].mentioned == [] and len(report.turns[0].memories) == 1


def test_a_safety_critical_restatement_is_no_mention_of_a_memory_that_is_not(c: Container, tenant: str) -> None:
    """The allergy kept by `remember` as an everyday fact (preset default): the turn the filter calls safety-critical
    is a memory of its own, with the safety preset, not a mention of one that has none."""
    kept = c.memories.remember(tenant, RememberRequest(user_id="alice", text="Peanuts and me do not mix",
                                                       type="FACTUAL"))
    c.memories.add_triple(tenant, "alice", memory_id=kept.id, subject="user", predicate="allergic_to", object_="花生",
                          subject_kind="user", object_kind="allergen")  # the entities the extractor names
    assert kept.preset_kind is not PresetKind.SAFETY
    report = c.ingest.ingest_conversation(tenant, [turn("我对花生过敏。")])
    assert report.turns[0].mentioned == [] and [m.preset_kind for m in report.turns[0].memories] == [PresetKind.SAFETY]


def test_a_later_turn_on_the_topic_promotes_a_temp_memory(c: Container, tenant: str) -> None:
    first = c.ingest.ingest_conversation(tenant, [turn("我最喜欢吃火锅", turn=0)])
    mid = first.turns[0].memories[0].id
    later = c.ingest.ingest_conversation(tenant, [turn("今天天气怎么样", turn=1), turn("推荐一个火锅店?", turn=2)])
    assert later.turns[0].changes == [] and not later.turns[1].remembered
    assert [(ch.memory_id, ch.to_tier, ch.reason.value) for ch in later.turns[1].changes] == [
        (mid, Tier.MID, "topic_picked_up")]
    got = c.memories.get(tenant, "alice", mid)
    assert got is not None and got.tier is Tier.MID
    assert got.weight.active == pytest.approx(c.settings.weights.initial_active + c.settings.tiers.implicit_feedback)


@pytest.mark.parametrize("refusal", ["别记住我喜欢吃火锅", "Don't remember that I love hotpot"])
def test_a_turn_asking_not_to_remember_picks_no_topic_up(c: Container, tenant: str, refusal: str) -> None:
    """"Don't remember that ..." names the topic of a temp memory without engaging with it: no promotion (it
    moved the memory it named to mid, +0.2, the reverse of what the user asked)."""
    first = c.ingest.ingest_conversation(tenant, [turn("我最喜欢吃火锅", turn=0)])
    [memory] = first.turns[0].memories
    later = c.ingest.ingest_conversation(tenant, [turn(refusal, turn=1)])
    assert not later.turns[0].remembered and later.turns[0].changes == []
    got = c.memories.get(tenant, "alice", memory.id)
    assert got is not None and got.tier is Tier.TEMP and got.weight.active == memory.weight.active


def test_emphasis_goes_to_core_and_a_full_core_refuses(settings: Settings, clock: FakeClock, tenant: str) -> None:
    c = make_container(settings, clock, core_capacity=1)
    try:
        first = c.ingest.ingest_turn(tenant, turn("记住：我对花生过敏"))
        m = first.memories[0]
        assert m.tier is Tier.CORE and m.locked and m.preset_kind is PresetKind.SAFETY
        second = c.ingest.ingest_turn(tenant, turn("Remember this: my daughter's name is Lily"))
        assert second.stored and second.memories[0].tier is Tier.TEMP
        assert [e.code for e in second.errors] == ["CONFLICT"] and "core is full" in second.errors[0].message
    finally:
        c.close()


def test_chitchat_questions_and_assistant_turns_create_no_memory(c: Container, tenant: str) -> None:
    report = c.ingest.ingest_conversation(tenant, [
        turn("哈哈"), turn("ok thanks"), turn("what's the weather tomorrow?"),
        turn("I love spicy food", speaker="assistant"), turn("好的")])
    assert all(r.stored and not r.remembered and not r.memories for r in report.turns)
    assert c.memories.page(tenant, "alice").items == []


def test_memories_record_type_level_and_confidence_and_hooks_see_them(c: Container, tenant: str) -> None:
    seen: list[StoredMemoryContext] = []

    def see(context: StoredMemoryContext) -> None:
        seen.append(context)

    def fail(context: StoredMemoryContext) -> None:
        raise ZeroDivisionError("division by zero")

    c.stored_memory_hooks.append(see)
    c.stored_memory_hooks.append(fail)  # a failing hook does not undo the turn
    report = c.ingest.ingest_turn(tenant, turn("我的妻子叫李娜"))
    m = report.memories[0]
    assert m.type in (MemoryType.FACTUAL, MemoryType.SEMANTIC)
    assert m.classified_by in (ClassifierLevel.RULE, ClassifierLevel.MODEL, ClassifierLevel.FALLBACK)
    assert 0.0 < m.confidence <= 1.0
    assert [ctx.memory.id for ctx in seen] == [m.id]
    assert seen[0].episode_id == report.episode_id and len(seen[0].embedding) == c.vector_dimensions
    assert [t.id for t in seen[0].triples] == [t.id for t in report.triples] and report.triples


def test_a_full_temp_evicts_its_least_useful(settings: Settings, clock: FakeClock, tenant: str) -> None:
    c = make_container(settings, clock, temp_capacity=2)
    try:
        facts = ["My sister lives in Berlin", "I play the piano every day", "我的生日是7月20日"]
        report = c.ingest.ingest_conversation(tenant, [turn(f, minutes=i) for i, f in enumerate(facts)])
        first = report.turns[0].memories
        assert first == []  # evicted in the same batch: not returned
        evicted = [ch for ch in report.changes if ch.to_tier is None]
        assert len(evicted) == 1 and evicted[0].reason.value == "temp_full"
        left = {m.text for m in c.memories.page(tenant, "alice").items}
        assert left == set(facts[1:])  # equal weights: the longest unmentioned went
    finally:
        c.close()


def test_working_memory_holds_the_last_turns(c: Container, tenant: str) -> None:
    scope = Scope(tenant, "alice")
    c.ingest.ingest_conversation(tenant, [turn(f"turn {i}", minutes=i) for i in range(7)])
    assert [t.text for t in c.working_memory.recent(scope, "s1")] == [f"turn {i}" for i in range(2, 7)]
    assert [t.turn for t in c.ingest.working_memory(tenant, "alice", "s1", 2)] == [5, 6]


# ----- superseded memories are history: nothing picks their topic up -------------------------------------


def superseded_temp_memory(c: Container, clock: FakeClock, tenant: str) -> tuple[str, str]:
    """A temp memory superseded by a later one (its conflict settled LATEST) and a live temp memory: (old, live)."""
    [old] = c.ingest.ingest_turn(tenant, turn("I live in Berlin", minutes=0)).memories
    [live] = c.ingest.ingest_turn(tenant, turn("I love sushi", minutes=1)).memories
    clock.advance(timedelta(days=2))
    text = "I moved, I live in Paris now"
    new = c.memory_repository.remember(Scope(tenant, "alice"), NewMemory(
        id=new_memory_id(), text=text, type=MemoryType.FACTUAL,
        embedding=[float(x) for x in c.embedder.embed_passages([text])[0]]), now=clock.now(), passive=0.3,
        active=0.5).memory
    c.memories.add_triple(tenant, "alice", memory_id=new.id, subject="user", predicate="lives_in", object_="Paris")
    [settled] = c.conflicts.conflicts(tenant, "alice", status=None)  # settled by addTriple's hooks
    assert (settled.winner_id, settled.loser_id) == (new.id, old.id)
    got = c.memories.get(tenant, "alice", old.id)
    assert got is not None and got.tier is Tier.TEMP and got.valid_to is not None
    return old.id, live.id


@pytest.mark.parametrize("cached", [True, False], ids=["vector cache", "neo4j scan"])
def test_a_superseded_temp_memory_is_no_topic_to_pick_up(c: Container, clock: FakeClock, tenant: str,
                                                         cached: bool) -> None:
    scope = Scope(tenant, "alice")
    old, live = superseded_temp_memory(c, clock, tenant)
    embedding = {m: ConflictRepository(c.store).embedding(scope, m) for m in (old, live)}
    repo = EpisodeRepository(c.store, c.vector_dimensions,
                             VectorCache(c.vector_dimensions, max_bytes=64 * 2**20) if cached else None)
    ran: list[str] = []
    c.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        found = c.store.read_tx(lambda tx: repo.matches(
            tx, scope, [(0, "I live in Berlin", embedding[old]), (1, "I love sushi", embedding[live])],
            duplicate=c.settings.ingest.duplicate_similarity, engagement=c.settings.ingest.engagement_similarity,
            exact_max=20_000))
    finally:
        c.store.timer.listeners.pop()
    assert ("episode/cached_rows" in ran, "episode/temp_topics" in ran) == (cached, not cached)
    assert [(i, m) for i, m, _ in found.topics if m in (old, live)] == [(1, live)]
    assert old not in {s.id for s in found.similar}


@pytest.mark.parametrize("cached", [True, False], ids=["vector cache", "neo4j scan"])
def test_a_temporary_memory_is_no_topic_to_pick_up(c: Container, clock: FakeClock, tenant: str, cached: bool) -> None:
    """"It's sunny today" after "It's raining today" is no interest in the rain: weather picked up went to mid with
    active 0.7, was lifted by every rebalance and outlived the user's job."""
    scope = Scope(tenant, "alice")
    [rain] = c.ingest.ingest_turn(tenant, turn("It's raining today, ugh", minutes=0)).memories
    [sushi] = c.ingest.ingest_turn(tenant, turn("I love sushi", minutes=1)).memories
    assert rain.preset_kind is PresetKind.TEMPORARY and rain.tier is Tier.TEMP
    embedding = {m: ConflictRepository(c.store).embedding(scope, m) for m in (rain.id, sushi.id)}
    repo = EpisodeRepository(c.store, c.vector_dimensions,
                             VectorCache(c.vector_dimensions, max_bytes=64 * 2**20) if cached else None)
    found = c.store.read_tx(lambda tx: repo.matches(
        tx, scope, [(0, "It's raining today, ugh", embedding[rain.id]), (1, "I love sushi", embedding[sushi.id])],
        duplicate=0.999, engagement=c.settings.ingest.engagement_similarity, exact_max=20_000))
    assert [(i, m) for i, m, _ in found.topics if m in (rain.id, sushi.id)] == [(1, sushi.id)]


def test_the_entity_names_of_a_superseded_temp_memory_pick_nothing_up(c: Container, clock: FakeClock,
                                                                      tenant: str) -> None:
    scope = Scope(tenant, "alice")
    old, live = superseded_temp_memory(c, clock, tenant)
    repo = EpisodeRepository(c.store, c.vector_dimensions)
    start = c.store.write_tx(lambda tx: repo.batch_start(tx, scope, [], lock_at=None, temp=True))
    assert start.temp_entities.get(live) == ["sushi"] and old not in start.temp_entities


@pytest.mark.parametrize("cache_mb", [512, 0], ids=["vector cache", "neo4j scan"])
def test_a_later_turn_on_its_topic_leaves_a_superseded_memory_alone(settings: Settings, clock: FakeClock,
                                                                    tenant: str, cache_mb: int) -> None:
    c = Container(settings.model_copy(update={"recall": settings.recall.model_copy(
        update={"vector_cache_mb": cache_mb})}), clock=clock)
    try:
        old, _ = superseded_temp_memory(c, clock, tenant)
        before = c.memories.get(tenant, "alice", old)
        clock.advance(timedelta(hours=1))
        report = c.ingest.ingest_turn(tenant, TurnInput(user_id="alice", session_id="s2", speaker="user",
                                                        text="Berlin has great techno clubs, I miss Berlin",
                                                        at=clock.now()))
        assert old not in [ch.memory_id for ch in report.changes]
        after = c.memories.get(tenant, "alice", old)
        assert before is not None and after is not None
        assert (after.tier, after.valid_to, after.weight.active) == (Tier.TEMP, before.valid_to, before.weight.active)
    finally:
        c.close()


# ----- over GraphQL --------------------------------------------------------------------------------


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def test_graphql_ingest_conversation_keeps_valid_turns(client: BmamClient, user: str) -> None:
    turns = [
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "我住在成都，最喜欢吃火锅", "deviceId": "phone"},
        {"userId": user, "sessionId": "s1", "speaker": "assistant", "text": "成都的火锅很有名！"},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": ""},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "x" * (32 * 1024 + 1)},
        {"userId": user, "sessionId": "s1", "speaker": "nobody", "text": "hello"},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I work at Google"},
    ]
    result = client.ingest_conversation(turns)
    assert (result["stored"], result["failed"]) == (3, 3)
    codes = [[e["code"] for e in t["errors"]] for t in result["turns"]]
    assert codes == [[], [], ["BAD_USER_INPUT"], ["BAD_USER_INPUT"], ["BAD_USER_INPUT"], []]
    first = result["turns"][0]
    assert first["memories"][0]["tier"] == "TEMP" and first["memories"][0]["source"]["deviceId"] == "phone"
    assert first["memories"][0]["classifiedBy"] in ("RULE", "MODEL", "FALLBACK")
    assert any(t["predicate"] == "lives_in" for t in first["triples"])
    assert result["turns"][5]["turn"] == 5
    again = client.ingest_conversation(turns)
    assert (again["stored"], again["duplicates"]) == (0, 3)
    wm = client.working_memory(user, "s1")
    assert [t["turn"] for t in wm["turns"]] == [0, 1, 5] and 0.0 <= wm["headroom"] <= 1.0


def test_graphql_ingest_turn_react_lock_unlock_and_sweep(client: BmamClient, user: str) -> None:
    r = client.ingest_turn(user, "s1", "user", "I play the piano every day", deviceId="laptop")
    mid = r["memories"][0]["id"]
    with pytest.raises(BmamClientError) as err:
        client.ingest_turn(user, "s1", "user", "")
    assert err.value.code == "BAD_USER_INPUT"
    engaged = client.react(user, mid, "ENGAGED")
    assert engaged["memory"]["tier"] == "MID" and engaged["tierChanges"][0]["reason"] == "engaged"
    locked = client.lock(user, mid)
    assert locked["tier"] == "CORE" and locked["locked"] is True
    with pytest.raises(BmamClientError) as err:
        client.react(user, mid, "DISMISSED")
    assert err.value.code == "CONFLICT"
    unlocked = client.unlock(user, mid)
    assert unlocked["tier"] == "MID" and unlocked["locked"] is False
    assert client.tier_usage(user)["mid"] == 1
    assert client.sweep_tiers(user) == []  # nothing is old yet
    other = client.ingest_turn(user, "s1", "user", "My sister lives in Berlin")["memories"][0]["id"]
    dismissed = client.react(user, other, "DISMISSED")
    assert dismissed["deleted"] is True and dismissed["memory"] is None
    with pytest.raises(BmamClientError) as err:
        client.react(user, "m_nope", "ENGAGED")
    assert err.value.code == "NOT_FOUND"


def test_superseded_history_takes_no_room_in_core(settings: Settings, clock: FakeClock, tenant: str) -> None:
    """A core memory the user let a newer one supersede is history: an emphasised turn finds core's room free,
    as lock() does (ingest counts tiers as tier/counts: history left out). The user's choice takes the loser's
    place in core: one of two taken, were history counted both."""
    c = make_container(settings, clock, core_capacity=2)
    try:
        [old] = c.ingest.ingest_turn(tenant, turn("记住：我住在成都", minutes=0)).memories
        assert old.tier is Tier.CORE
        [new] = c.ingest.ingest_turn(tenant, turn("我住在北京", minutes=1)).memories
        [held] = c.conflicts.conflicts(tenant, "alice")  # a locked memory: held for the user
        c.conflicts.resolve(tenant, "alice", held.id, new.id)
        assert c.tiers.usage(tenant, "alice").counts[Tier.CORE] == 1
        emphasised = c.ingest.ingest_turn(tenant, turn("Remember this: my daughter's name is Lily", minutes=2))
        assert emphasised.errors == [] and emphasised.memories[0].tier is Tier.CORE
    finally:
        c.close()


def live_texts(client: BmamClient, user: str) -> set[str]:
    return {e["node"]["text"] for e in client.memories(user, first=50)["edges"]}


def test_a_turn_that_takes_back_the_one_before_forgets_its_memories(client: BmamClient) -> None:
    """"Forget what I just said" (or 当我没说) right after a statement: the memories that statement made are
    forgotten (their triples with them), the request itself is no memory, and what was said before stays. Sent
    again, it takes nothing more back; "Scratch that, I live in Paris" says something new."""
    user = f"take-back-{uuid.uuid4().hex[:8]}"
    first = client.ingest_turn(user, "s1", "user", "I love hiking in the Alps")
    said = client.ingest_turn(user, "s1", "user", "My ex-boyfriend Mark lives in Boston.")
    client.ingest_turn(user, "s1", "assistant", "Got it.")
    back = client.ingest_turn(user, "s1", "user", "Please forget what I just said.")
    assert not back["remembered"] and back["memories"] == []
    assert back["forgotten"] == [m["id"] for m in said["memories"]] != []
    assert live_texts(client, user) == {"I love hiking in the Alps"}
    for m in said["memories"]:  # gone with their triples
        with pytest.raises(BmamClientError) as gone:
            client.triples(user, m["id"])
        assert gone.value.code == "NOT_FOUND"
    again = client.ingest_turn(user, "s1", "user", "Please forget what I just said.", turn=back["turn"])
    assert again["duplicate"] and again["forgotten"] == []
    # in Chinese, inside one conversation: the turn before it only
    zh = client.ingest_conversation([
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": text}
        for text in ("我对花生过敏", "我前男友叫小刚，住在杭州", "当我没说")])
    allergy, ex, took = zh["turns"]
    assert took["forgotten"] == [m["id"] for m in ex["memories"]] != []
    assert live_texts(client, user) == {"I love hiking in the Alps", "我对花生过敏"}
    assert first["memories"] and allergy["memories"]


@pytest.mark.parametrize("strategy", ["STRONGER", "REVIEW"])
def test_a_turn_contradicting_a_temp_memory_does_not_engage_with_it(settings: Settings, clock: FakeClock,
                                                                    tenant: str, strategy: str) -> None:
    """"I live in Hamburg now" picked up the topic of "I live in Berlin" (temp -> mid, active +0.2) before the
    conflict was settled: under STRONGER the old fact won every tie, under REVIEW it led recall from mid."""
    c = Container(settings.model_copy(update={"living": settings.living.model_copy(
        update={"conflict_strategy": strategy})}), clock=clock)
    try:
        [berlin] = c.ingest.ingest_turn(tenant, turn("I live in Berlin.", minutes=0)).memories
        hamburg_turn = c.ingest.ingest_turn(tenant, turn("I live in Hamburg now.", minutes=1))
        assert hamburg_turn.changes == []
        old = c.memories.get(tenant, "alice", berlin.id)
        assert old is not None and old.tier is Tier.TEMP
        [conflict] = c.conflicts.conflicts(tenant, "alice", status=None)
        if strategy == "STRONGER":  # a tie: the newer
            assert conflict.winner_id == hamburg_turn.memories[0].id and old.valid_to is not None
        else:  # held, both as they were said
            assert conflict.winner_id is None and old.weight.active == pytest.approx(berlin.weight.active)
    finally:
        c.close()


def test_a_new_favourite_does_not_lift_the_old_one(settings: Settings, clock: FakeClock, tenant: str) -> None:
    """Under STRONGER "Actually my favorite singer is Taylor Swift now" picked up 我最喜欢的歌手是周杰伦 (+0.2),
    then lost to it: recall answered 周杰伦."""
    c = Container(settings.model_copy(update={"living": settings.living.model_copy(
        update={"conflict_strategy": "STRONGER"})}), clock=clock)
    try:
        [old] = c.ingest.ingest_turn(tenant, turn("我最喜欢的歌手是周杰伦", minutes=0)).memories
        new = c.ingest.ingest_turn(tenant, turn("Actually my favorite singer is Taylor Swift now.", minutes=1))
        assert new.changes == []
        [conflict] = c.conflicts.conflicts(tenant, "alice", status=None)
        assert (conflict.winner_id, conflict.loser_id) == (new.memories[0].id, old.id)
    finally:
        c.close()


def test_two_memories_of_one_topic_share_its_entity_and_are_associated(c: Container, tenant: str) -> None:
    """火锅还是我的最爱 read likes 火锅还 (the adverb taken along): the user's two hot-pot memories shared no entity,
    and no ASSOCIATED edge formed (audit of session 51)."""
    c.ingest.ingest_conversation(tenant, [turn("火锅还是我的最爱，周末又去吃了火锅"),
                                          turn("我特别喜欢吃火锅，一周能吃三次", session="s2")])
    mentions = store_rows(c, "MATCH (m:Memory)-[:MENTIONS]->(e:Entity) WHERE m.tenant = $t AND e.name <> 'user' "
                             "RETURN m.text AS text, e.name AS name ORDER BY text", t=tenant)
    assert [r["name"] for r in mentions] == ["火锅", "火锅"]
    edges = store_rows(c, "MATCH (a:Memory)-[:ASSOCIATED]-(b:Memory) WHERE a.tenant = $t RETURN a.text AS text",
                       t=tenant)
    assert len(edges) == 2  # the one edge, seen from either end
