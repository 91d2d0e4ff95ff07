"""Associations never lead into history, and a strength the user set stays theirs (real Neo4j). A superseded
memory loses its associations when its conflict is settled, to the winner when that is a correction (DESIGN.md
"Conflicts"; a change's winner has its own: cypher/conflict/settle_pair), and none forms
again afterwards, by the stored-memory hook (the remains share the loser's turn), by memories recalled together
with includeHistory, or by a user's link; the listings (`associations`, `Memory.associated`) show live memories
only, as relatedSearch does. Forming again never overrides a strength the user set with `associate`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.remains import remains_id
from graph.conflicts import ConflictStatus
from graph.errors import Conflict, NotFound
from graph.memories import WeightShares
from graph.model import Scope
from graph.recall import RecallRepository
from graph.store import Tx
from graph.triples import TripleRepository
from tests.ops_support import store_rows
from tests.test_remains_store import WIFE, ingest

USER = "liming"


def settled(container: Container, tenant: str) -> tuple[str, str, str]:
    """Ingest a change of job: (the superseded loser, its remains, the wife memory: live, another turn)."""
    ingest(container, tenant, USER)
    [conflict] = container.conflicts.conflicts(tenant, USER, status=ConflictStatus.RESOLVED)
    assert conflict.loser_id is not None
    wife = next(m for m in container.memories.page(tenant, USER, first=50).items if m.text == WIFE)
    return conflict.loser_id, remains_id(Scope(tenant, USER), conflict.loser_id), wife.id


def edges_of(container: Container, tenant: str, memory_id: str) -> list[str]:
    rows = store_rows(container, "MATCH (m:Memory {id: $m})-[:ASSOCIATED]-(o) WHERE m.tenant = $t "
                                 "RETURN o.id AS id ORDER BY id", m=memory_id, t=tenant)
    return [r["id"] for r in rows]


def listed(container: Container, tenant: str, memory_id: str) -> set[str]:
    """The other ends the two listings show (the associations query, the Memory.associated DataLoader)."""
    plain = {a.memory_b if a.memory_a == memory_id else a.memory_a
             for a in container.memories.associations(tenant, USER, memory_id)}
    nested = {m.id for m, _ in container.nested.associated(tenant, USER, [memory_id], limit=50).get(memory_id, [])}
    assert plain == nested
    return plain


def test_the_remains_are_not_associated_with_the_memory_they_remain_of(container: Container, tenant: str) -> None:
    """The remains derive from the loser's turn, and its episode mates are associated at 0.6: the loser is
    history, so it is no mate (it was, and showed in the remains' associations)."""
    loser, kept, _ = settled(container, tenant)
    assert edges_of(container, tenant, loser) == []
    assert loser not in listed(container, tenant, kept)


def test_hooks_run_again_form_no_association_with_history(container: Container, tenant: str) -> None:
    """addTriple or a resumed ingest runs a memory's hooks again: neither the superseded memory's own nor a live
    one's naming it as an episode mate links the two."""
    loser, _, wife = settled(container, tenant)
    scope = Scope(tenant, USER)
    assert container.association_forming.form(scope, loser, episode_mates=[wife]) == []
    assert container.association_forming.form(scope, wife, episode_mates=[loser]) == []
    assert edges_of(container, tenant, loser) == []


def test_memories_recalled_together_with_history_strengthen_live_pairs_only(container: Container,
                                                                           tenant: str) -> None:
    """recall(includeHistory) may return a superseded memory among its top 3: the pairs with it are left out."""
    loser, kept, wife = settled(container, tenant)
    scope = Scope(tenant, USER)
    repo = RecallRepository(container.store, container.vector_dimensions)

    def touch(tx: Tx) -> None:
        repo.touch(tx, scope, [loser, kept, wife], now=container.clock.now(), boost=0.1, shares=WeightShares(),
                   pairs=[(loser, kept), (loser, wife), (kept, wife)], delta=0.05)

    container.store.write_tx(touch)
    assert edges_of(container, tenant, loser) == []
    assert wife in listed(container, tenant, kept)  # the live pair is strengthened as before


def test_a_user_link_with_a_superseded_memory_is_a_conflict(container: Container, tenant: str) -> None:
    loser, kept, _ = settled(container, tenant)
    for a, b in ((kept, loser), (loser, kept)):
        with pytest.raises(Conflict) as err:
            container.memories.associate(tenant, USER, a, b, 0.9)
        assert loser in str(err.value)
    assert edges_of(container, tenant, loser) == []
    with pytest.raises(NotFound):  # a missing memory stays NOT_FOUND
        container.memories.associate(tenant, USER, kept, "m_missing", 0.9)


def test_listings_leave_out_an_older_store_s_edges_to_history(container: Container, tenant: str) -> None:
    """A store written before edges to history stopped forming keeps them: the listings do not show them."""
    loser, kept, wife = settled(container, tenant)
    store_rows(container, "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) WHERE a.tenant = $t AND b.tenant = $t "
                          "MERGE (a)-[r:ASSOCIATED]->(b) SET r.strength = 0.6, r.tenant = $t, r.user_id = $u",
               a=min(loser, kept), b=max(loser, kept), t=tenant, u=USER)
    assert edges_of(container, tenant, loser) == [kept]
    assert loser not in listed(container, tenant, kept)
    container.memories.associate(tenant, USER, kept, wife, 0.7)
    assert listed(container, tenant, kept) == {wife}


def test_a_strength_the_user_set_is_kept_when_the_hooks_run_again(container: Container, tenant: str) -> None:
    """associate is the user's word on a pair: addTriple, a resumed ingest or a conflict check runs a memory's
    hooks again, and their forming (an existing edge keeps the stronger strength) must not raise it back."""
    c = container
    scope = Scope(tenant, "alice")
    a = c.memories.remember(tenant, RememberRequest(user_id="alice", text="Biscuit is my dog", type="FACTUAL"))
    b = c.memories.remember(tenant, RememberRequest(user_id="alice", text="Biscuit loves tennis balls",
                                                    type="FACTUAL"))
    for m in (a, b):
        TripleRepository(c.store).add(scope, memory_id=m.id, subject="Biscuit", subject_kind="pet", predicate="rel",
                                      object_="dog" if m is a else "tennis ball", object_kind="thing", polarity=1,
                                      now=c.clock.now())
    [formed] = c.association_forming.form(scope, b.id, episode_mates=[a.id])
    assert formed.strength == pytest.approx(c.settings.recall.same_episode_strength)  # 0.6, formed 'stored'

    c.memories.associate(tenant, "alice", a.id, b.id, 0.1)  # the user says: hardly related
    c.association_forming.form(scope, b.id, episode_mates=[a.id])
    c.association_forming.form(scope, a.id, text=a.text)
    assert [x.strength for x in c.memories.associations(tenant, "alice", a.id)] == [pytest.approx(0.1)]
    [edge] = store_rows(c, "MATCH (a:Memory {id: $a})-[r:ASSOCIATED]-(b:Memory {id: $b}) WHERE a.tenant = $t "
                           "RETURN r.formed_by AS formed_by", a=a.id, b=b.id, t=tenant)
    assert edge["formed_by"] == "user"


def _berlin_and_visit(c: Container, tenant: str) -> dict[str, str]:
    """"I live in Berlin" and "Anna visited me in Berlin", linked by the shared entity (0.5, formed_by 'stored')."""
    mems = {}
    for key, text, predicate, place in (("berlin", "I live in Berlin", "lives_in", "Berlin"),
                                        ("visit", "Anna visited me in Berlin", "visited", "Berlin")):
        mems[key] = c.memories.remember(tenant, RememberRequest(user_id=USER, text=text, type="FACTUAL")).id
        c.memories.add_triple(tenant, USER, memory_id=mems[key], subject="user", predicate=predicate, object_=place)
    return mems


def test_a_correction_carries_the_losers_associations_as_they_formed(container: Container, tenant: str) -> None:
    """A correction is the old memory said right, in its place: the old memory's associations go to it (DESIGN.md
    "Conflicts") with how they formed: every ASSOCIATED edge names it (README "Graph shape"), and a carried one named
    nothing."""
    c = container
    mems = _berlin_and_visit(c, tenant)
    paris = c.corrections.correct(tenant, USER, mems["berlin"], "I live in Paris").memory.id
    assert edges_of(c, tenant, mems["berlin"]) == []  # history is linked to nothing
    assert _edge(c, tenant, paris, mems["visit"]) == [{"formed_by": "stored", "strength": pytest.approx(0.5)}]


def test_a_change_hands_the_old_values_associations_to_nobody(container: Container, tenant: str) -> None:
    """A move is a new state, not the old home said right: the visit to Berlin is no association of "I live in Paris"
    (the ex's job went to the new partner's memory: a long-horizon audit, session 52). The loser keeps none either."""
    c = container
    mems = _berlin_and_visit(c, tenant)
    paris = c.memories.remember(tenant, RememberRequest(user_id=USER, text="I live in Paris", type="FACTUAL")).id
    c.memories.add_triple(tenant, USER, memory_id=paris, subject="user", predicate="lives_in", object_="Paris")
    [conflict] = c.conflicts.conflicts(tenant, USER, status=ConflictStatus.RESOLVED)
    assert (conflict.winner_id, conflict.loser_id) == (paris, mems["berlin"])
    assert edges_of(c, tenant, mems["berlin"]) == []
    assert _edge(c, tenant, paris, mems["visit"]) == []


def _berlin_then_paris(c: Container, tenant: str, *, before_paris: Callable[[str, str, str], None]) -> dict[str, str]:
    """Berlin (then visit, linked to it) stored; Paris stored without its triple, before_paris(berlin, visit, paris)
    run, then Paris's triple added: the conflict settles with Paris the winner, Berlin's edges taken off it."""
    mems = _berlin_and_visit(c, tenant)
    mems["paris"] = c.memories.remember(tenant, RememberRequest(user_id=USER, text="I live in Paris",
                                                                type="FACTUAL")).id
    before_paris(mems["berlin"], mems["visit"], mems["paris"])
    c.memories.add_triple(tenant, USER, memory_id=mems["paris"], subject="user", predicate="lives_in", object_="Paris")
    assert edges_of(c, tenant, mems["berlin"]) == []  # superseded by Paris, its edges gone with it
    return mems


def _edge(c: Container, tenant: str, a: str, b: str) -> list[dict[str, object]]:
    return store_rows(c, "MATCH (a:Memory {id: $a})-[r:ASSOCIATED]-(b:Memory {id: $b}) WHERE a.tenant = $t "
                         "RETURN r.formed_by AS formed_by, r.strength AS strength", a=a, b=b, t=tenant)


def test_a_change_leaves_the_strength_the_user_set_on_the_winner_s_pair(container: Container, tenant: str) -> None:
    """The loser's edge to x (the user's 0.8) is not carried onto the winner's own edge to x: the user's word on the
    winner's pair (0.1) stands."""
    c = container

    def links(berlin: str, visit: str, paris: str) -> None:
        c.memories.associate(tenant, USER, berlin, visit, 0.8)
        c.memories.associate(tenant, USER, paris, visit, 0.1)  # the user says: hardly related

    mems = _berlin_then_paris(c, tenant, before_paris=links)
    assert _edge(c, tenant, mems["paris"], mems["visit"]) == [{"formed_by": "user", "strength": pytest.approx(0.1)}]


def test_a_change_leaves_the_winner_s_own_edge_as_it_formed(container: Container, tenant: str) -> None:
    """The loser's user-set 0.8 is the old home's: the winner's 0.2 formed by shared terms stays as it formed (it
    became the user's 0.8 while every settlement carried the loser's edges)."""
    c = container

    def links(berlin: str, visit: str, paris: str) -> None:
        c.memories.associate(tenant, USER, berlin, visit, 0.8)
        store_rows(c, "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) WHERE a.tenant = $t "
                      "MERGE (a)-[r:ASSOCIATED]->(b) SET r.strength = 0.2, r.formed_by = 'terms', r.tenant = $t, "
                      "r.user_id = $u", a=min(paris, visit), b=max(paris, visit), t=tenant, u=USER)

    mems = _berlin_then_paris(c, tenant, before_paris=links)
    assert _edge(c, tenant, mems["paris"], mems["visit"]) == [{"formed_by": "terms", "strength": pytest.approx(0.2)}]
