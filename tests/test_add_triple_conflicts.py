"""addTriple runs the memory's stored-memory hooks again (against the real Neo4j): a change of mind made with
remember + addTriple (a single-valued slot, or the opposite polarity) is found and settled at addTriple, as for an
ingested memory (LATEST: the older memory superseded from when the newer one was said, its triple closed, a
SUPERSEDED event); a repeated addTriple changes nothing; one naming another user's memory is NOT_FOUND and writes
nothing; when the hooks fail the triple stays, the memory is left pending, and resume_hooks settles it later."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.events import EventKind
from bmam.usecases.memories import RememberRequest
from graph.conflicts import ConflictKind, ConflictStatus, ConflictStrategy
from graph.errors import Conflict as ConflictError
from graph.errors import NotFound
from graph.model import Memory, Scope, Tier
from tests.ops_support import store_rows
from tests.test_conflicts import RecordingBus, living

__all__ = ["living"]  # the fixture (a container on a fake clock, recording events), used by name


def remember(c: Container, scope: Scope, text: str) -> Memory:
    return c.memories.remember(scope.tenant, RememberRequest(user_id=scope.user_id, text=text, type="FACTUAL"))


def get(c: Container, scope: Scope, memory_id: str) -> Memory:
    m = c.memories.get(scope.tenant, scope.user_id, memory_id)
    assert m is not None
    return m


def published(c: Container) -> list[object]:
    assert isinstance(c.events, RecordingBus)
    return list(c.events.published)


def superseded(c: Container) -> list[tuple[str, str]]:
    assert isinstance(c.events, RecordingBus)
    return [(e.memory_id, e.detail["superseded_by"]) for e in c.events.published if e.kind is EventKind.SUPERSEDED]


def beijing_then_shanghai(c: Container, clock: FakeClock, scope: Scope) -> tuple[Memory, Memory]:
    """The user said they live in Beijing (remember + addTriple), and a month later that they live in Shanghai:
    remembered, its triple not added yet."""
    old = remember(c, scope, "I live in Beijing")
    c.memories.add_triple(scope.tenant, scope.user_id, memory_id=old.id, subject="user", predicate="lives_in",
                          object_="Beijing")
    clock.advance(timedelta(days=30))
    return old, remember(c, scope, "I live in Shanghai")


def broken(*_: object, **__: object) -> None:
    raise RuntimeError("down")


def break_conflict_detection(c: Container, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("many_in_after", "many_in", "many", "on_memory_stored"):
        monkeypatch.setattr(c.conflicts, name, broken)


def snapshot(c: Container, tenant: str) -> dict[str, Any]:
    """Everything of the tenant in the store (the embeddings aside), but an association's updated_at: forming it
    again stamps the edge it keeps as it was (bmam/usecases/associations.py)."""
    nodes = store_rows(c, "MATCH (n) WHERE n.tenant = $t RETURN labels(n) AS labels, n {.*, embedding: null} AS props "
                          "ORDER BY coalesce(n.id, n.user_id)", t=tenant)
    rels = store_rows(c, "MATCH (a)-[r]->(b) WHERE a.tenant = $t AND b.tenant = $t "
                         "RETURN type(r) AS type, coalesce(a.id, a.user_id) AS a, coalesce(b.id, b.user_id) AS b, "
                         "r {.*, updated_at: null} AS props ORDER BY type, a, b", t=tenant)
    return {"nodes": nodes, "relationships": rels}


def pending(c: Container, tenant: str) -> list[str]:
    return [r["id"] for r in store_rows(c, "MATCH (m:Memory) WHERE m.tenant = $t AND m.hooks_pending_at IS NOT NULL "
                                           "RETURN m.id AS id", t=tenant)]


# ----- the use-case -------------------------------------------------------------------------------------------


def test_a_single_valued_change_of_mind_is_settled_at_add_triple(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    t, u = scope.tenant, scope.user_id
    climate = remember(c, scope, "Shanghai is humid in summer")
    c.memories.add_triple(t, u, memory_id=climate.id, subject="Shanghai", predicate="climate", object_="humid")
    clock.advance(timedelta(days=1))
    old, new = beijing_then_shanghai(c, clock, scope)
    assert c.conflicts.conflicts(t, u, status=None) == []  # remember alone finds nothing: no triples yet
    clock.advance(timedelta(minutes=5))  # the triple comes a little after the memory
    added = c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="lives_in", object_="Shanghai")

    [conflict] = c.conflicts.conflicts(t, u, status=None)
    assert (conflict.kind, conflict.status, conflict.strategy) == (
        ConflictKind.SINGLE_VALUED, ConflictStatus.RESOLVED, ConflictStrategy.LATEST)
    assert (conflict.winner_id, conflict.loser_id, conflict.resolved_at) == (new.id, old.id, clock.now())
    # valid time: Beijing held until Shanghai was said, not until the triple came
    loser, winner = get(c, scope, old.id), get(c, scope, new.id)
    assert loser.valid_to == new.valid_from != clock.now() and winner.valid_to is None
    assert winner.weight.active == pytest.approx(new.weight.active + c.weight_policy.winner_bonus)
    assert [x.valid_to for x in c.memories.triples(t, u, old.id)] == [new.valid_from]
    assert added.valid_to is None and [x.id for x in c.memories.triples(t, u, new.id)] == [added.id]
    assert superseded(c) == [(old.id, new.id)]
    # association forming ran too: the new memory shares the entity Shanghai with the climate memory
    assert {frozenset((a.memory_a, a.memory_b)) for a in c.memories.associations(t, u, new.id)} == {
        frozenset((new.id, climate.id))}
    assert pending(c, t) == []
    # checkConflicts finds nothing left: Beijing is history
    assert c.conflicts.check(t, u, new.id) == []

    # the same triple again (later): nothing changes, nothing is published
    before, events = snapshot(c, t), len(published(c))
    clock.advance(timedelta(hours=2))
    again = c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="lives_in", object_="Shanghai")
    assert (again.id, again.created_at, again.valid_to) == (added.id, added.created_at, None)
    assert snapshot(c, t) == before
    assert len(published(c)) == events


def test_a_polarity_change_is_settled_at_add_triple(living: tuple[Container, FakeClock],
                                                    scope: Scope) -> None:
    c, clock = living
    t, u = scope.tenant, scope.user_id
    old = remember(c, scope, "Cats are wonderful company")
    c.memories.add_triple(t, u, memory_id=old.id, subject="user", predicate="likes", object_="cats")
    clock.advance(timedelta(days=3))
    new = remember(c, scope, "I avoid cats these days")
    assert c.conflicts.conflicts(t, u, status=None) == []
    c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="likes", object_="cats", polarity=-1)
    [conflict] = c.conflicts.conflicts(t, u, status=None)
    assert (conflict.kind, conflict.status, conflict.winner_id, conflict.loser_id) == (
        ConflictKind.POLARITY, ConflictStatus.RESOLVED, new.id, old.id)
    assert get(c, scope, old.id).valid_to == new.valid_from
    assert superseded(c) == [(old.id, new.id)]


def test_a_triple_for_the_older_memory_supersedes_it_and_comes_back_closed(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    """The triples added in the other order: the older memory gets its triple last and loses at once (LATEST
    goes by when each was said); the answer is the triple as the hooks left it."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    old = remember(c, scope, "I work at Siemens")
    clock.advance(timedelta(days=10))
    new = remember(c, scope, "I work at Bosch")
    c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="works_at", object_="Bosch")
    clock.advance(timedelta(minutes=1))
    closed = c.memories.add_triple(t, u, memory_id=old.id, subject="user", predicate="works_at", object_="Siemens")
    assert closed.valid_to == new.valid_from == get(c, scope, old.id).valid_to
    assert get(c, scope, new.id).valid_to is None
    assert superseded(c) == [(old.id, new.id)]
    # a triple for a memory that is history: refused (CONFLICT), nothing written: no triple, no association
    # (sharing Munich with a live memory), no mark left
    munich = remember(c, scope, "Munich has great beer gardens")
    c.memories.add_triple(t, u, memory_id=munich.id, subject="Munich", predicate="has", object_="beer gardens")
    with pytest.raises(ConflictError, match="superseded"):
        c.memories.add_triple(t, u, memory_id=old.id, subject="Siemens", predicate="located_in", object_="Munich")
    assert len(c.memories.triples(t, u, old.id)) == 1
    assert c.memories.associations(t, u, old.id) == [] and pending(c, t) == []


def test_another_users_memory_is_not_found_and_nothing_is_written(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    t, u = scope.tenant, scope.user_id
    old, new = beijing_then_shanghai(c, clock, scope)  # alice's
    before = snapshot(c, t)
    for tenant, user in ((t, "bob"), (f"test-{uuid.uuid4().hex[:12]}", u)):  # another user; the same name elsewhere
        with pytest.raises(NotFound):
            c.memories.add_triple(tenant, user, memory_id=new.id, subject="user", predicate="lives_in",
                                  object_="Shanghai")
        assert snapshot(c, tenant) == ({"nodes": [], "relationships": []} if tenant != t else before)
    assert snapshot(c, t) == before  # no triple, no mark, no conflict, Beijing still live
    assert get(c, scope, old.id).valid_to is None and pending(c, t) == []


def test_when_the_hooks_fail_the_triple_stays_and_resume_settles_it(
        living: tuple[Container, FakeClock], scope: Scope, monkeypatch: pytest.MonkeyPatch) -> None:
    c, clock = living
    t, u = scope.tenant, scope.user_id
    old, new = beijing_then_shanghai(c, clock, scope)
    break_conflict_detection(c, monkeypatch)
    added = c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="lives_in", object_="Shanghai")
    assert [x.id for x in c.memories.triples(t, u, new.id)] == [added.id]  # acknowledged, not lost
    assert pending(c, t) == [new.id]
    assert c.conflicts.conflicts(t, u, status=None) == [] and get(c, scope, old.id).valid_to is None
    monkeypatch.undo()

    clock.advance(timedelta(seconds=1))
    assert c.ingest.resume_hooks(t, u, older_than=timedelta(0)) == 1
    [conflict] = c.conflicts.conflicts(t, u, status=None)
    assert (conflict.status, conflict.winner_id, conflict.loser_id) == (ConflictStatus.RESOLVED, new.id, old.id)
    assert get(c, scope, old.id).valid_to == new.valid_from
    assert superseded(c) == [(old.id, new.id)] and pending(c, t) == []


def test_the_hooks_run_with_the_stored_embedding(living: tuple[Container, FakeClock], scope: Scope,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """remember's hooks failed, so its contradiction by meaning (which needs the embedding) is still unsettled;
    addTriple runs them with the embedding read from the store, the text not embedded again."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    old = remember(c, scope, "I have been to Japan twice")
    clock.advance(timedelta(days=1))
    with monkeypatch.context() as patched:
        break_conflict_detection(c, patched)
        new = remember(c, scope, "I have never been to Japan")
    assert pending(c, t) == [new.id] and c.conflicts.conflicts(t, u, status=None) == []
    monkeypatch.setattr(c.embedder, "embed_passages", broken)
    monkeypatch.setattr(c.embedder, "embed_query", broken)
    c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="visited", object_="Japan", polarity=-1)
    [conflict] = c.conflicts.conflicts(t, u, status=None)
    assert (conflict.kind, conflict.winner_id, conflict.loser_id) == (ConflictKind.NEGATION, new.id, old.id)
    assert pending(c, t) == []


def test_a_conflict_held_for_review_stays_held_when_the_triple_is_added_again(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    """A locked (core) memory is never superseded by the system: addTriple records the conflict for review."""
    c, clock = living
    t, u = scope.tenant, scope.user_id
    core = c.memories.remember(t, RememberRequest(user_id=u, text="My name is Li Lei", type="FACTUAL", tier=Tier.CORE))
    assert core.locked
    c.memories.add_triple(t, u, memory_id=core.id, subject="user", predicate="name", object_="Li Lei")
    clock.advance(timedelta(days=1))
    new = remember(c, scope, "My name is Han Meimei")
    for _ in range(2):
        c.memories.add_triple(t, u, memory_id=new.id, subject="user", predicate="name", object_="Han Meimei")
        [held] = c.conflicts.conflicts(t, u)
        assert (held.status, held.new_memory_id, held.old_memory_id) == (ConflictStatus.OPEN, new.id, core.id)
    assert get(c, scope, core.id).valid_to is None and get(c, scope, new.id).valid_to is None
    assert superseded(c) == []


# ----- GraphQL ------------------------------------------------------------------------------------------------


def test_add_triple_over_graphql_settles_a_change_of_mind(client: BmamClient) -> None:
    user = f"at-{uuid.uuid4().hex[:8]}"
    old = client.remember(user, "I live in Chengdu")
    client.add_triple(user, old["id"], "user", "lives_in", "Chengdu")
    new = client.remember(user, "I live in Beijing")
    assert client.conflicts(user, status=None) == []
    added = client.add_triple(user, new["id"], "user", "lives_in", "Beijing")
    [conflict] = client.conflicts(user, status=None)
    assert (conflict["kind"], conflict["status"], conflict["winnerId"], conflict["loserId"]) == (
        "SINGLE_VALUED", "RESOLVED", new["id"], old["id"])
    loser = client.memory(user, old["id"])
    assert loser is not None and loser["validTo"] == client.memory(user, new["id"])["validFrom"]  # type: ignore[index]
    assert client.check_conflicts(user, new["id"]) == []  # nothing left to find

    again = client.add_triple(user, new["id"], "user", "lives_in", "Beijing")
    assert again == added
    assert client.conflicts(user, status=None) == [conflict]
    assert client.memory(user, old["id"]) == loser

    with pytest.raises(BmamClientError) as foreign:  # another user naming the memory: not found, nothing written
        client.add_triple(f"{user}-bob", new["id"], "user", "lives_in", "Shanghai")
    assert foreign.value.code == "NOT_FOUND"
    assert [x["id"] for x in client.triples(user, new["id"])] == [added["id"]]
    assert client.conflicts(user, status=None) == [conflict]


@pytest.mark.parametrize(("subject", "predicate"), [("I", "lives in"), ("我", "lives_in"), ("me", "Lives-In"),
                                                    ("user", "lives in")])
def test_the_user_said_as_i_and_a_predicate_with_spaces_are_the_users_and_the_vocabularys(
        living: tuple[Container, FakeClock], scope: Scope, subject: str, predicate: str) -> None:
    """addTriple(subject "I" / 我, predicate "lives in") made an entity "I" beside the user's and a predicate no rule
    knew: five live homes, no conflict. Both are the user's and lives_in now: the change of mind is found."""
    c, clock = living
    old, new = beijing_then_shanghai(c, clock, scope)
    added = c.memories.add_triple(scope.tenant, scope.user_id, memory_id=new.id, subject=subject,
                                  predicate=predicate, object_="Shanghai")
    assert (added.subject.name, added.subject.kind, added.predicate) == ("user", "user", "lives_in")
    friend = c.memories.add_triple(scope.tenant, scope.user_id, memory_id=new.id, subject="Tom", predicate="friend",
                                   object_="me")
    assert (friend.object.name, friend.object.kind) == ("user", "user")
    [conflict] = c.conflicts.conflicts(scope.tenant, scope.user_id, status=None)
    assert (conflict.winner_id, conflict.loser_id) == (new.id, old.id)


def test_a_predicate_of_the_apps_own_is_kept_as_written(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, _ = living
    m = remember(c, scope, "I'm allergic to peanuts")
    added = c.memories.add_triple(scope.tenant, scope.user_id, memory_id=m.id, subject="user",
                                  predicate="is allergic to", object_="peanuts")
    assert added.predicate == "is allergic to"
