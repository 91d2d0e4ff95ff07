"""The first slice against the real Neo4j: every node and edge kind round-trips, scoped per user."""

from __future__ import annotations

from typing import Any

import pytest

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import BadInput, Conflict, LimitExceeded, NotFound
from graph.migrations import apply_schema, missing_migrations
from graph.model import ClassifierLevel, Memory, MemoryType, PresetKind, Tier


def remember(c: Container, tenant: str, user: str, text: str, type: str = "FACTUAL", **kw: Any) -> Memory:
    return c.memories.remember(tenant, RememberRequest(user_id=user, text=text, type=type, **kw))


def test_remember_round_trip(container: Container, tenant: str) -> None:
    m = remember(container, tenant, "alice", "  我住在成都  ", "FACTUAL", session_id="s1", device_id="phone")
    got = container.memories.get(tenant, "alice", m.id)
    assert got is not None
    assert got == m
    assert got.text == "我住在成都"
    assert got.type is MemoryType.FACTUAL and got.tier is Tier.TEMP and not got.locked
    assert got.provenance.session_id == "s1" and got.provenance.device_id == "phone"
    assert got.classified_by is ClassifierLevel.USER and got.recall_count == 0 and got.mention_count == 1
    # final = 0.6 * passive + 0.3 * active + 0.1 * preset with the initial parts
    w = container.settings.weights
    assert got.weight.final == pytest.approx(0.6 * w.initial_passive + 0.3 * w.initial_active + 0.1 * w.preset_default)
    assert got.preset_kind is PresetKind.DEFAULT


def test_safety_preset_and_core_tier_locked(container: Container, tenant: str) -> None:
    m = remember(container, tenant, "alice", "I am allergic to peanuts", tier=Tier.CORE, preset_kind=PresetKind.SAFETY)
    assert m.locked and m.tier is Tier.CORE and m.weight.preset == 1.0


def test_list_by_type_and_tier_with_keyset_pages(container: Container, tenant: str) -> None:
    made = [remember(container, tenant, "alice", f"fact number {i}") for i in range(7)]
    remember(container, tenant, "alice", "I felt great today", "EMOTIONAL", tier=Tier.MID)
    seen: list[str] = []
    after = None
    while True:
        page = container.memories.page(tenant, "alice", types=["FACTUAL"], first=3, after=after)
        seen += [m.id for m in page.items]
        if page.next_cursor is None:
            break
        after = page.next_cursor
    assert sorted(seen) == sorted(m.id for m in made) and len(seen) == len(set(seen))
    mid = container.memories.page(tenant, "alice", tiers=[Tier.MID])
    assert [m.text for m in mid.items] == ["I felt great today"]


def test_a_cursor_bmam_did_not_make_is_bad_input(container: Container, tenant: str) -> None:
    import base64
    import json

    remember(container, tenant, "alice", "fact number 1")

    def forged(created: str) -> str:
        return base64.urlsafe_b64encode(json.dumps([created, "x"]).encode()).decode().rstrip("=")

    for cursor in ("not-a-cursor", forged("yesterday"), forged("2099-01-01T00:00:00")):  # the last: no zone
        with pytest.raises(BadInput, match="invalid cursor"):
            container.memories.page(tenant, "alice", after=cursor)
    assert container.memories.page(tenant, "alice", after=forged("2099-01-01T00:00:00+00:00")).items


def test_forget(container: Container, tenant: str) -> None:
    m = remember(container, tenant, "alice", "I work at a bank")
    assert container.memories.forget(tenant, "alice", m.id) == m.id
    assert container.memories.get(tenant, "alice", m.id) is None
    with pytest.raises(NotFound):
        container.memories.forget(tenant, "alice", m.id)


def test_locked_memory_needs_confirm(container: Container, tenant: str) -> None:
    m = remember(container, tenant, "alice", "我的生日是7月20日", tier=Tier.CORE)
    with pytest.raises(Conflict):
        container.memories.forget(tenant, "alice", m.id)
    assert container.memories.get(tenant, "alice", m.id) is not None
    container.memories.forget(tenant, "alice", m.id, confirm=True)
    assert container.memories.get(tenant, "alice", m.id) is None


def test_triples_create_and_reuse_entities(container: Container, tenant: str) -> None:
    m1 = remember(container, tenant, "alice", "我喜欢吃辣")
    m2 = remember(container, tenant, "alice", "I love spicy hotpot")
    t1 = container.memories.add_triple(tenant, "alice", memory_id=m1.id, subject="user", subject_kind="person",
                                       predicate="likes", object_="辣", object_kind="food")
    t2 = container.memories.add_triple(tenant, "alice", memory_id=m2.id, subject="user", subject_kind="person",
                                       predicate="likes", object_="hotpot", object_kind="food")
    assert t1.subject.id == t2.subject.id  # the same entity reused
    assert t1.object.name == "辣" and t1.memory_id == m1.id and t1.polarity == 1
    again = container.memories.add_triple(tenant, "alice", memory_id=m1.id, subject="user",
                                          subject_kind="person", predicate="likes", object_="辣", object_kind="food")
    assert again.id == t1.id  # idempotent
    assert [t.id for t in container.memories.triples(tenant, "alice", m1.id)] == [t1.id]
    # Forgetting the memory removes the triples it asserted (and the memory: its triples are NOT_FOUND).
    from tests.ops_support import store_rows

    container.memories.forget(tenant, "alice", m1.id)
    with pytest.raises(NotFound):
        container.memories.triples(tenant, "alice", m1.id)
    assert store_rows(container, "MATCH ()-[t:TRIPLE {memory_id: $id}]->() RETURN t.id AS id", id=m1.id) == []


def test_forget_deletes_the_entities_only_that_memory_named(container: Container, tenant: str) -> None:
    """Entities the forgotten memory alone mentioned or named in its triples go with it; one still used by
    another memory of the user stays, and another user's entity of the same name is never touched."""
    from tests.ops_support import store_rows

    def entities(user: str) -> list[str]:
        rows = store_rows(container, "MATCH (e:Entity) WHERE e.tenant = $t AND e.user_id = $u RETURN e.name AS name",
                          t=tenant, u=user)
        return sorted(r["name"] for r in rows)

    def triple(user: str, memory_id: str, subject: str, object_: str) -> None:
        container.memories.add_triple(tenant, user, memory_id=memory_id, subject=subject, subject_kind="person",
                                      predicate="diagnosed_with", object_=object_, object_kind="condition")

    diagnosis = remember(container, tenant, "alice", "I was diagnosed with diabetes by Dr. Wu")
    triple("alice", diagnosis.id, "user", "diabetes")
    triple("alice", diagnosis.id, "Dr. Wu", "diabetes")
    other = remember(container, tenant, "alice", "I was diagnosed with asthma as a child")
    triple("alice", other.id, "user", "asthma")
    bobs = remember(container, tenant, "bob", "I was diagnosed with diabetes by Dr. Wu")
    triple("bob", bobs.id, "Dr. Wu", "diabetes")
    assert entities("alice") == ["Dr. Wu", "asthma", "diabetes", "user"]

    container.memories.forget(tenant, "alice", diagnosis.id)
    assert entities("alice") == ["asthma", "user"]  # "user" is still named by the other memory
    assert entities("bob") == ["Dr. Wu", "diabetes"]
    assert [t.object.name for t in container.memories.triples(tenant, "bob", bobs.id)] == ["diabetes"]


def test_associations(container: Container, tenant: str) -> None:
    a = remember(container, tenant, "alice", "my sister lives in Paris")
    b = remember(container, tenant, "alice", "我姐姐是医生")
    edge = container.memories.associate(tenant, "alice", b.id, a.id, 0.7)
    assert {edge.memory_a, edge.memory_b} == {a.id, b.id} and edge.strength == pytest.approx(0.7)
    container.memories.associate(tenant, "alice", a.id, b.id, 0.4)  # same pair, either order: one edge
    found = container.memories.associations(tenant, "alice", a.id)
    assert len(found) == 1 and found[0].strength == pytest.approx(0.4)
    with pytest.raises(BadInput):
        container.memories.associate(tenant, "alice", a.id, b.id, 1.5)
    with pytest.raises(BadInput):
        container.memories.associate(tenant, "alice", a.id, a.id, 0.5)


def test_vector_search_finds_the_memory(container: Container, tenant: str) -> None:
    remember(container, tenant, "alice", "我的妻子叫李娜")
    target = remember(container, tenant, "alice", "I don't eat pork")
    remember(container, tenant, "alice", "上次在成都吃的火锅很棒")
    hits = container.memories.search(tenant, "alice", "does she eat pork?", k=3)
    assert hits[0].memory.id == target.id
    assert len(hits) == 3 and [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_vector_index_path_filters_to_the_user(container: Container, tenant: str) -> None:
    mine = remember(container, tenant, "alice", "I play the violin every evening")
    remember(container, tenant, "bob", "I play the violin every evening")
    scope = container.memories.scope(tenant, "alice")
    emb = container.embedder.embed_query("violin")
    hits = container.memory_repository.vector_search(scope, [float(x) for x in emb], k=5, exact=False)
    assert [h.memory.id for h in hits] == [mine.id]


def test_user_b_never_touches_user_a(container: Container, tenant: str) -> None:
    a = remember(container, tenant, "alice", "alice's secret: I fear heights")
    other = remember(container, tenant, "bob", "bob's memory")
    assert container.memories.get(tenant, "bob", a.id) is None
    assert all(m.id != a.id for m in container.memories.page(tenant, "bob").items)
    assert all(h.memory.id != a.id for h in container.memories.search(tenant, "bob", "fear heights", k=10))
    with pytest.raises(NotFound):
        container.memories.forget(tenant, "bob", a.id, confirm=True)
    with pytest.raises(NotFound):
        container.memories.add_triple(tenant, "bob", memory_id=a.id, subject="x", predicate="p", object_="y")
    with pytest.raises(NotFound):
        container.memories.associate(tenant, "bob", other.id, a.id, 0.9)
    # and another tenant's "alice" is another person
    assert container.memories.get(tenant + "-other", "alice", a.id) is None
    assert container.memories.get(tenant, "alice", a.id) == a


@pytest.mark.parametrize(
    ("text", "type", "error"),
    [
        ("", "FACTUAL", BadInput),
        ("   \n\t ", "FACTUAL", BadInput),
        ("hello", "NOT_A_TYPE", BadInput),
        ("hello", "WORKING", BadInput),
        ("x" * (32 * 1024 + 1), "FACTUAL", LimitExceeded),
        ("nul\x00inside", "FACTUAL", BadInput),
        ("lone \ud800 surrogate", "FACTUAL", BadInput),
    ],
)
def test_bad_input_writes_nothing(container: Container, tenant: str, text: str, type: str, error: type) -> None:
    with pytest.raises(error):
        remember(container, tenant, "alice", text, type)
    assert container.memories.page(tenant, "alice").items == []


def test_missing_user_id_is_bad_input(container: Container, tenant: str) -> None:
    for user in ("", "  ", None):
        with pytest.raises(BadInput):
            remember(container, tenant, user, "text")  # type: ignore[arg-type]


def test_migrations_apply_twice(container: Container) -> None:
    dims = container.vector_dimensions
    first = apply_schema(container.store, vector_dimensions=dims, now=container.clock.now())
    second = apply_schema(container.store, vector_dimensions=dims, now=container.clock.now())
    assert first.applied == second.applied and first.statements_run == second.statements_run
    assert missing_migrations(container.store) == []


def test_migration_gives_a_store_written_before_scope_tokens_its_tokens(container: Container, tenant: str) -> None:
    """Memories written before the full-text index held scope tokens get their user's token from the data
    step (graph/migrations.py give_scope_tokens), and the index then finds them for that user only."""
    from graph.migrations import give_scope_tokens
    from graph.model import Scope
    from graph.scope_token import scope_token, scoped_query
    from tests.ops_support import Inspector

    config = container.store.config
    inspector = Inspector(config.uri, config.user, config.password)
    try:
        for user in ("alice", "bob"):
            for text in (f"{user} keeps bees on the roof", f"{user} sells the honey at the market"):
                remember(container, tenant, user, text)
        tokens = "MATCH (m:Memory) WHERE m.tenant = $t RETURN m.user_id AS user, m.scope_token AS token"
        assert {(r["user"], r["token"]) for r in inspector.rows(tokens, t=tenant)} == {
            (u, scope_token(tenant, u)) for u in ("alice", "bob")}
        inspector.forget_scope_tokens(tenant)
        assert {r["token"] for r in inspector.rows(tokens, t=tenant)} == {None}
        assert give_scope_tokens(container.store) >= 4
        assert {(r["user"], r["token"]) for r in inspector.rows(tokens, t=tenant)} == {
            (u, scope_token(tenant, u)) for u in ("alice", "bob")}
        hits = inspector.rows("CALL db.index.fulltext.queryNodes('memory_text_scoped', $q) YIELD node "
                              "RETURN node.text AS text", q=scoped_query(Scope(tenant, "bob"), "honey"))
        assert [h["text"] for h in hits] == ["bob sells the honey at the market"]
    finally:
        inspector.close()


def test_data_relationships_carry_their_user(container: Container, tenant: str) -> None:
    """ASSOCIATED made by the associate mutation is stamped with tenant and user like every edge holding data
    (the association forming hook's and recall's edges are), so it is found and erased with the user."""
    from tests.ops_support import store_rows

    a = remember(container, tenant, "alice", "I keep bees on the roof")
    b = remember(container, tenant, "alice", "I sell the honey at the market")
    container.memories.associate(tenant, "alice", a.id, b.id, 0.7)
    rows = store_rows(container, "MATCH (:Memory {id: $a})-[r:ASSOCIATED]-(:Memory {id: $b}) "
                                 "RETURN r.tenant AS tenant, r.user_id AS user, r.formed_by AS formed_by",
                      a=a.id, b=b.id)
    assert rows == [{"tenant": tenant, "user": "alice", "formed_by": "user"}]
