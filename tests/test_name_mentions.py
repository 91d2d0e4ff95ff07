"""A memory that names an entity the user's graph knows, without a triple, mentions it (association forming, a
stored-memory hook; real Neo4j): the shared entity links it to the memories whose triples name it, for a new user
too (rare-word links wait for 20 memories), whichever was said first. relatedSearch through the use case and over
GraphQL, the bound on the older memories an entity brought in is given to, names that are everyday words."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from bmam.client import BmamClient
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from ingest.turns import TurnInput
from tests.ops_support import store_rows

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
EN = {"wedding": "Tom is getting married in June.", "brother": "My brother Tom lives in Munich.",
      "flight": "I'm flying to Munich for Tom's wedding."}
ZH = {"visit": "李娜下个月要来看我。", "sister": "我姐姐叫李娜，她在杭州当老师。"}


def said(c: Container, tenant: str, user: str, texts: list[str]) -> dict[str, str]:
    """Each text a user turn of its own ingest call, a minute apart (the clock follows): text -> memory id."""
    assert isinstance(c.clock, FakeClock)
    for i, text in enumerate(texts):
        c.clock.advance(timedelta(minutes=1))
        report = c.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id=f"s{i}", speaker="user", text=text,
                                                        at=c.clock.now()))
        assert report.stored and report.memories, text
    return {m.text: m.id for m in c.memories.page(tenant, user, first=100).items}


def related(c: Container, tenant: str, user: str, memory_id: str) -> dict[str, float]:
    return {r.memory.text: r.score for r in c.recall.related(tenant, user, memory_id, depth=1)}


def mentioning(c: Container, tenant: str, user: str, name: str) -> set[str]:
    rows = store_rows(c, "MATCH (m:Memory)-[:MENTIONS]->(e:Entity {name: $name}) "
                         "WHERE m.tenant = $t AND m.user_id = $u AND e.tenant = $t AND e.user_id = $u "
                         "RETURN m.text AS text", t=tenant, u=user, name=name)
    return {str(r["text"]) for r in rows}


def fresh(settings: Settings, **recall: object) -> Container:
    c = Container(settings.model_copy(update={"recall": settings.recall.model_copy(update=recall)}),
                  clock=FakeClock(T0))
    c.migrate()
    return c


def test_a_person_named_without_a_triple_is_related_to_what_the_user_said_of_them(settings: Settings,
                                                                                  tenant: str) -> None:
    """The audit's case, a new user (3 memories: no rare-word link): the wedding names Tom before the graph knows
    him (the brother's triple brings him in: the older wedding mentions him from then on), the flight names him
    after (and Munich, which its own triple says)."""
    c = fresh(settings)
    try:
        ids = said(c, tenant, "alice", list(EN.values()))
        assert mentioning(c, tenant, "alice", "Tom") == set(EN.values())
        assert set(related(c, tenant, "alice", ids[EN["wedding"]])) == {EN["brother"], EN["flight"]}
        assert set(related(c, tenant, "alice", ids[EN["flight"]])) == {EN["brother"], EN["wedding"]}
        assert set(related(c, tenant, "alice", ids[EN["brother"]])) == {EN["wedding"], EN["flight"]}
        # the entity hop of two mentions, as for triples: what recall's graph expansion crosses (>= 0.4)
        edges = {frozenset((a.memory_a, a.memory_b)): a.strength
                 for a in c.memories.associations(tenant, "alice", ids[EN["wedding"]])}
        assert edges[frozenset((ids[EN["wedding"]], ids[EN["brother"]]))] == 0.5
        c.erasure.forget_user(tenant, "alice", confirm=True)
    finally:
        c.close()


def test_a_han_name_links_both_ways_whichever_was_said_first(settings: Settings, tenant: str) -> None:
    c = fresh(settings)
    try:
        for user, order in (("zh-first-visit", ["visit", "sister"]), ("zh-first-sister", ["sister", "visit"])):
            ids = said(c, tenant, user, [ZH[k] for k in order])
            assert set(related(c, tenant, user, ids[ZH["visit"]])) == {ZH["sister"]}, order
            assert set(related(c, tenant, user, ids[ZH["sister"]])) == {ZH["visit"]}, order
            assert mentioning(c, tenant, user, "李娜") == set(ZH.values())
            c.erasure.forget_user(tenant, user, confirm=True)
    finally:
        c.close()


def test_related_search_over_graphql_finds_the_memory_that_only_names_tom(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:10]}"
    for i, text in enumerate(EN.values()):
        client.ingest_turn(user, f"s{i}", "user", text)
    ids = {e["node"]["text"]: e["node"]["id"] for e in client.memories(user)["edges"]}
    found = client.related_search(user, ids[EN["wedding"]], depth=1)
    reached = {r["memory"]["text"]: r for r in found}
    assert set(reached) == {EN["brother"], EN["flight"]}
    assert {(s["via"], s["entity"]) for r in found for s in r["path"]} <= {("ENTITY", "Tom"), ("ASSOCIATED", None)}
    client.forget_user(user, confirm=True)


# Memories naming Tom before a triple brings him in (the backfill mentions the newest of them).
OLDER_TOM = ["Tom fixed my bike on Sunday.", "Tom and I went bouldering.", "Tom sent me a funny video."]


def test_an_entity_brought_in_is_mentioned_by_at_most_mention_backfill_older_memories(settings: Settings,
                                                                                        tenant: str) -> None:
    c = fresh(settings, mention_backfill=2)
    try:
        said(c, tenant, "alice", [*OLDER_TOM, EN["brother"]])
        # the newest two of the three, and the brother's memory by its triple
        assert mentioning(c, tenant, "alice", "Tom") == {*OLDER_TOM[1:], EN["brother"]}
        # a memory said later names him whatever the bound: the graph knows him now
        said(c, tenant, "alice", [EN["wedding"]])
        assert mentioning(c, tenant, "alice", "Tom") == {*OLDER_TOM[1:], EN["brother"], EN["wedding"]}
        c.erasure.forget_user(tenant, "alice", confirm=True)
    finally:
        c.close()


def test_forming_again_mentions_nothing_more(settings: Settings, tenant: str) -> None:
    """A hook run again (a resumed ingest, addTriple) leaves the graph as it was."""
    c = fresh(settings, mention_backfill=2)
    try:
        ids = said(c, tenant, "alice", [*OLDER_TOM, EN["brother"]])
        before = mentioning(c, tenant, "alice", "Tom")
        for text in [EN["brother"], *OLDER_TOM[1:]]:  # (the oldest one's hooks would find Tom in its text now)
            c.association_forming.form(c.memories.scope(tenant, "alice"), ids[text], text=text)
        assert mentioning(c, tenant, "alice", "Tom") == before
        c.erasure.forget_user(tenant, "alice", confirm=True)
    finally:
        c.close()


def test_a_name_that_is_an_everyday_word_is_mentioned_only_as_a_name(settings: Settings, tenant: str) -> None:
    c = fresh(settings)
    try:
        words = ["I will call the plumber tomorrow.", "Will do, I'll book the dentist for Friday.",
                 "I hope my knee heals before the marathon.", "Hope the rain stops before my run on Saturday."]
        ids = said(c, tenant, "alice", [*words, "My son Will is seven.", "My daughter Hope started school.",
                                        "Will got an A in maths today!", "Hope is learning to swim."])
        assert mentioning(c, tenant, "alice", "Will") == {"My son Will is seven.", "Will got an A in maths today!"}
        assert mentioning(c, tenant, "alice", "Hope") == {"My daughter Hope started school.",
                                                          "Hope is learning to swim."}
        assert set(related(c, tenant, "alice", ids["My son Will is seven."])) == {"Will got an A in maths today!"}
        c.erasure.forget_user(tenant, "alice", confirm=True)
    finally:
        c.close()


def test_switched_off_no_memory_mentions_what_it_only_names(settings: Settings, tenant: str) -> None:
    c = fresh(settings, mention_names_limit=0, mention_backfill=0)
    try:
        said(c, tenant, "alice", list(EN.values()))
        assert mentioning(c, tenant, "alice", "Tom") == {EN["brother"]}
        c.erasure.forget_user(tenant, "alice", confirm=True)
    finally:
        c.close()
