"""forgetSession (against the real Neo4j): one conversation of a user goes, its turns, its Session node, its
anti-repetition state and what the process holds of it, with a receipt whose re-query proves none of it is left;
KEEP leaves the memories derived from it, FORGET forgets those derived from it alone (one also said in another
session, and a locked core one, are kept and counted); confirm false and an unknown session write nothing; another
user's and another app's data is untouched; a stopped erasure finishes when run again; the same turns ingested again
are stored anew. The API, the CLI and `bmam remote` answer the same way."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.recall import RecallRequest
from bmam.usecases.sessions import SessionMemories, SessionUseCases
from graph.episodes import EpisodeRepository, session_node_id
from graph.erasure import ErasureRepository
from graph.errors import BadInput, NotFound, StoreUnavailable
from graph.model import Scope, Tier
from graph.session_state import session_recall_id
from ingest.turns import TurnInput
from tests.test_conflicts_paging import refusal, tenant_client

__all__ = ["tenant_client"]  # the fixture (a client with a key of the test's tenant), used by name

runner = CliRunner()
DAY0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
LIVES = "I live in Chengdu and I love hotpot"
SISTER = "My sister Lin is a nurse in Berlin"
ALLERGY = "I am allergic to peanuts"
CELLO = "I play the cello on weekends"
S1 = [("user", LIVES), ("assistant", "Chengdu is famous for its hotpot."), ("user", SISTER), ("user", ALLERGY),
      ("assistant", "Noted.")]
S2 = [("user", LIVES), ("user", CELLO)]


def conversation(user: str, session: str, said: list[tuple[str, str]], *, day: int = 0) -> list[TurnInput]:
    return [TurnInput(user_id=user, session_id=session, speaker=speaker, text=text, turn=i,
                      at=DAY0 + timedelta(days=day, minutes=i)) for i, (speaker, text) in enumerate(said)]


def fill(c: Container, tenant: str) -> dict[str, str]:
    """alice's s1 (three memories) and s2 (where she lives again, and the cello); bob's s1 and s2; alice's s1 in
    another app. The memory ids of alice's, by name."""
    c.ingest.ingest_conversation(tenant, conversation("alice", "s1", S1) + conversation("bob", "s1", S1))
    c.ingest.ingest_conversation(tenant, conversation("alice", "s2", S2, day=1) + conversation("bob", "s2", S2, day=1))
    c.ingest.ingest_conversation(tenant + "-x", conversation("alice", "s1", S1))
    s1 = c.sessions.turns(tenant, "alice", "s1").items
    s2 = c.sessions.turns(tenant, "alice", "s2").items
    ids = {"lives": s1[0].memory_ids, "sister": s1[2].memory_ids, "allergy": s1[3].memory_ids,
           "cello": s2[1].memory_ids}
    assert all(len(m) == 1 for m in ids.values()), ids
    assert s2[0].memory_ids == ids["lives"]  # said again in s2: derived from both sessions
    return {name: m[0] for name, m in ids.items()}


def dump(c: Container, tenant: str, user: str) -> tuple[list[str], list[str]]:
    return EpisodeRepository(c.store, c.vector_dimensions).dump(Scope(tenant, user))


def user_nodes(c: Container, tenant: str, user: str) -> int:
    return ErasureRepository(c.store).remaining(Scope(tenant, user))[0]


@pytest.fixture
def filled(container: Container, tenant: str) -> Iterator[dict[str, str]]:
    yield fill(container, tenant)
    container.erasure.forget_tenant(tenant + "-x", confirm=True)  # the other app's copy, not a test tenant's


def test_keep_erases_the_session_proves_it_and_leaves_its_memories(container: Container, tenant: str,
                                                                   filled: dict[str, str]) -> None:
    c, ids = container, filled
    others = (dump(c, tenant, "bob"), dump(c, tenant + "-x", "alice"))
    before = user_nodes(c, tenant, "alice")

    r = c.sessions.forget_session(tenant, "alice", "s1", confirm=True)
    assert (r.memories, r.turns_removed, r.nodes_removed) == (SessionMemories.KEEP, 5, 6)  # 5 turns, the Session
    assert (r.memories_forgotten, r.memories_kept, r.shared_kept, r.locked_kept) == (0, 3, 0, 0)
    assert r.verified and (r.remaining_turns, r.remaining_nodes) == (0, 0)
    assert user_nodes(c, tenant, "alice") == before - r.nodes_removed  # the proof holds: nothing else went
    for name in ("lives", "sister", "allergy", "cello"):
        memory = c.memories.get(tenant, "alice", ids[name])
        assert memory is not None  # KEEP: the session is their provenance only
        assert memory.provenance.session_id == ("s2" if name == "cello" else "s1")
    with pytest.raises(NotFound):
        c.sessions.turns(tenant, "alice", "s1")
    assert [s.session_id for s in c.users.sessions(tenant, "alice").items] == ["s2"]
    assert c.sessions.turns(tenant, "alice", "s2").items[0].memory_ids == (ids["lives"],)
    assert (dump(c, tenant, "bob"), dump(c, tenant + "-x", "alice")) == others  # bob's and the other app's alike
    with pytest.raises(NotFound):  # erased whole: nothing of it is left to erase
        c.sessions.forget_session(tenant, "alice", "s1", confirm=True)


def test_forget_forgets_the_memories_of_this_session_alone_and_keeps_shared_and_locked_ones(
        container: Container, tenant: str, filled: dict[str, str]) -> None:
    c, ids = container, filled
    c.tiers.lock(tenant, "alice", ids["allergy"])
    others = (dump(c, tenant, "bob"), dump(c, tenant + "-x", "alice"))

    r = c.sessions.forget_session(tenant, "alice", "s1", confirm=True, memories=SessionMemories.FORGET)
    assert r.forgotten_memory_ids == (ids["sister"],) and r.memories_forgotten == 1
    assert (r.memories_kept, r.shared_kept, r.locked_kept) == (2, 1, 1)
    assert r.verified and r.turns_removed == 5
    assert c.memories.get(tenant, "alice", ids["sister"]) is None
    nodes, edges = dump(c, tenant, "alice")
    assert not any(ids["sister"] in line for line in nodes + edges)  # its triples, edges and conflicts went with it
    allergy = c.memories.get(tenant, "alice", ids["allergy"])
    assert allergy is not None and allergy.locked and allergy.tier is Tier.CORE  # core: only its own confirm
    assert c.memories.get(tenant, "alice", ids["lives"]) is not None  # s2 said it too
    assert c.memories.get(tenant, "alice", ids["cello"]) is not None
    assert c.sessions.turns(tenant, "alice", "s2").items[0].memory_ids == (ids["lives"],)
    assert (dump(c, tenant, "bob"), dump(c, tenant + "-x", "alice")) == others
    c.memories.forget(tenant, "alice", ids["allergy"], confirm=True)  # the user's own confirm forgets it
    assert c.memories.get(tenant, "alice", ids["allergy"]) is None


def test_without_confirm_or_for_a_session_the_user_does_not_have_nothing_is_written(
        container: Container, tenant: str, filled: dict[str, str], tenant_client: BmamClient) -> None:
    c = container
    c.ingest.ingest_conversation(tenant, conversation("bob", "s9", [("assistant", "bob's alone")]))
    before = {(t, u): dump(c, t, u) for t, u in ((tenant, "alice"), (tenant, "bob"), (tenant + "-x", "alice"))}
    for memories in SessionMemories:
        with pytest.raises(BadInput) as err:
            c.sessions.forget_session(tenant, "alice", "s1", confirm=False, memories=memories)
        assert err.value.field == "confirm"
    assert refusal(lambda: tenant_client.forget_session("alice", "s1", confirm=False)) == ("BAD_USER_INPUT",
                                                                                           "confirm")
    for user, session in (("alice", "s9"), ("alice", "nope"), ("nobody", "s1")):  # bob's, none, no such user
        with pytest.raises(NotFound):
            c.sessions.forget_session(tenant, user, session, confirm=True, memories=SessionMemories.FORGET)
        assert refusal(lambda u=user, s=session: tenant_client.forget_session(  # type: ignore[misc]
            u, s, confirm=True))[0] == "NOT_FOUND"
    with pytest.raises(BadInput):
        c.sessions.forget_session(tenant, "alice", " ", confirm=True)
    assert {(t, u): dump(c, t, u) for t, u in before} == before


def test_a_stopped_erasure_finishes_when_run_again(container: Container, tenant: str,
                                                   filled: dict[str, str]) -> None:
    c, ids = container, filled
    # stopped in the memories: the store is lost after the first forget
    forgotten: list[str] = []

    def lost_after_one(tenant: str, user_id: str, memory_id: str) -> str:
        if forgotten:
            raise StoreUnavailable("lost")
        forgotten.append(c.memories.forget(tenant, user_id, memory_id))
        return memory_id

    cut = SessionUseCases(episodes=EpisodeRepository(c.store, c.vector_dimensions),
                          erasure=ErasureRepository(c.store), forget_memory=lost_after_one, clock=c.clock,
                          max_page_size=100)
    with pytest.raises(StoreUnavailable):
        cut.forget_session(tenant, "alice", "s1", confirm=True, memories=SessionMemories.FORGET)
    assert len(c.sessions.turns(tenant, "alice", "s1").items) == 5  # nothing but that memory went
    r = c.sessions.forget_session(tenant, "alice", "s1", confirm=True, memories=SessionMemories.FORGET)
    assert sorted((*forgotten, *r.forgotten_memory_ids)) == sorted((ids["sister"], ids["allergy"]))
    assert r.verified and r.turns_removed == 5

    # stopped in the turns (one batch of two deleted, as a timeout after it leaves it): the Session node is
    # deleted last, so the session is still found, and the run finishes it
    scope = Scope(tenant, "bob")
    c.store.write("erasure/batch_session_turns", {
        "tenant": tenant, "user_id": "bob", "session_id": "s1", "session_node": session_node_id(scope, "s1"),
        "recall_node": session_recall_id(scope, "s1"), "batch": 2})
    assert [t.turn for t in c.sessions.turns(tenant, "bob", "s1").items] == [2, 3, 4]
    r = c.sessions.forget_session(tenant, "bob", "s1", confirm=True)
    assert (r.turns_removed, r.nodes_removed, r.verified) == (3, 4, True)


def test_the_same_turns_ingested_again_are_stored_anew(container: Container, tenant: str) -> None:
    c = container
    turns = conversation("alice", "s1", S1)
    c.ingest.ingest_conversation(tenant, turns)
    first = c.sessions.turns(tenant, "alice", "s1").items
    c.sessions.forget_session(tenant, "alice", "s1", confirm=True, memories=SessionMemories.FORGET)

    again = c.ingest.ingest_conversation(tenant, turns)
    assert again.stored == 5 and again.duplicates == 0 and not any(t.errors for t in again.turns)
    second = c.sessions.turns(tenant, "alice", "s1").items
    # the ids derive from user, session and turn: the same episodes and memories, made anew
    assert [(t.episode_id, t.memory_ids) for t in second] == [(t.episode_id, t.memory_ids) for t in first]
    lives = first[0].memory_ids[0]
    found = c.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?"))
    assert lives in [m.memory.id for m in found.memories]

    # KEEP leaves the memories: the turns come back and derive from them again
    c.sessions.forget_session(tenant, "alice", "s1", confirm=True)
    third = c.ingest.ingest_conversation(tenant, turns)
    assert third.stored == 5 and not any(t.errors for t in third.turns)
    assert c.sessions.turns(tenant, "alice", "s1").items[0].memory_ids == (lives,)


def test_the_session_state_held_for_it_goes_and_only_its(container: Container, tenant: str) -> None:
    """The default (shared) session state: what recall surfaced in the session is a node of the store, erased
    with it; working memory reads the episodes, gone."""
    c = container
    c.ingest.ingest_conversation(tenant, conversation("alice", "s1", S1) + conversation("alice", "s2", S2, day=1))
    for session in ("s1", "s2"):
        assert c.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?",
                                                     session_id=session)).memories
    key = (tenant, "alice", "s1")
    assert c.recall.repetition._history(key)  # what the recall surfaced, in the store
    r = c.sessions.forget_session(tenant, "alice", "s1", confirm=True)
    assert r.nodes_removed == 7 and r.verified  # 5 turns, the Session node, the anti-repetition state
    assert c.recall.repetition._history(key) == [] and c.recall.repetition._history((tenant, "alice", "s2"))
    assert c.ingest.working_memory(tenant, "alice", "s1") == []
    assert [t.text for t in c.ingest.working_memory(tenant, "alice", "s2")] == [LIVES, CELLO]
    prompt = c.recall.context_prompt(tenant, "alice", "s1", "what did we talk about?").text
    assert "famous for its hotpot" not in prompt


def test_state_held_in_the_process_goes_with_the_session(container: Container, settings: Settings,
                                                         tenant: str) -> None:
    """session_state=local: working memory and anti-repetition are held in the process, and ingest's extractor
    cache keeps the user's turn texts: forgetSession drops the session's (the extractor's: the user's, which it keys
    by user), and leaves the other session's."""
    from bmam.usecases.ingest import CachingExtractor

    local = settings.model_copy(update={"deployment": settings.deployment.model_copy(
        update={"session_state": "local"})})
    c = Container(local)
    c.__dict__["embedder"] = container.embedder  # the session's model, not a second load
    try:
        c.ingest.ingest_conversation(tenant, conversation("alice", "s1", S1) + conversation("alice", "s2", S2, day=1)
                                     + conversation("bob", "s1", S2))
        for user, session in (("alice", "s1"), ("alice", "s2"), ("bob", "s1")):
            c.recall.recall(tenant, RecallRequest(user_id=user, query="Where do I live?", session_id=session))
            assert c.ingest.working_memory(tenant, user, session)
        held = c.working_memory._sessions
        extractor = c.ingest._extractor
        assert isinstance(extractor, CachingExtractor)
        assert {k for k in held if k[0] == tenant} == {(tenant, "alice", "s1"), (tenant, "alice", "s2"),
                                                        (tenant, "bob", "s1")}
        assert (tenant, "alice", "s1") in c.recall.repetition._sessions

        r = c.sessions.forget_session(tenant, "alice", "s1", confirm=True)
        assert r.verified
        assert {k for k in held if k[0] == tenant} == {(tenant, "alice", "s2"), (tenant, "bob", "s1")}
        assert {k for k in c.recall.repetition._sessions if k[0] == tenant} == {(tenant, "alice", "s2"),
                                                                                 (tenant, "bob", "s1")}
        assert not [k for k in extractor._cache if k[:2] == (tenant, "alice")]
        assert [k for k in extractor._cache if k[:2] == (tenant, "bob")]
        assert c.ingest.working_memory(tenant, "alice", "s1") == []  # rebuilt from the store: nothing
    finally:
        c.close()


def test_the_api_cli_and_remote_forget_a_session(container: Container, tenant: str, api_url: str,
                                                 make_api_key: Callable[[str], str],
                                                 tenant_client: BmamClient) -> None:
    c = container
    said = {"a": SISTER, "b": CELLO, "c": ALLERGY, "d": "My brother Wei works as a pilot in Dubai"}
    for session, text in said.items():  # one memory each, said in no other session
        c.ingest.ingest_conversation(tenant, conversation("alice", session, [("user", text), ("assistant", "ok")]))
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": make_api_key(tenant)}
    derived = {s: c.sessions.turns(tenant, "alice", s).items[0].memory_ids for s in said}
    assert all(len(m) == 1 for m in derived.values()), derived

    r = tenant_client.forget_session("alice", "a", confirm=True, memories="FORGET")
    assert (r["memories"], r["turnsRemoved"], r["memoriesForgotten"], r["verified"]) == ("FORGET", 2, 1, True)
    assert r["forgottenMemoryIds"] == list(derived["a"]) and (r["remainingTurns"], r["remainingNodes"]) == (0, 0)
    r = tenant_client.forget_session("alice", "b", confirm=True)
    assert (r["memories"], r["memoriesKept"], r["memoriesForgotten"]) == ("KEEP", 1, 0)

    unconfirmed = runner.invoke(cli_app, ["forget-session", "-u", "alice", "-s", "c", "--tenant", tenant])
    assert unconfirmed.exit_code == 2 and "--yes" in unconfirmed.output
    done = runner.invoke(cli_app, ["forget-session", "-u", "alice", "-s", "c", "--yes", "--with-memories", "--json",
                                   "--tenant", tenant])
    assert done.exit_code == 0, done.output
    receipt = json.loads(done.stdout)
    assert (receipt["session_id"], receipt["memories"], receipt["turns_removed"], receipt["verified"]) == (
        "c", "FORGET", 2, True)
    assert receipt["forgotten_memory_ids"] == list(derived["c"])
    missing = runner.invoke(cli_app, ["forget-session", "-u", "alice", "-s", "c", "--yes", "--tenant", tenant])
    assert missing.exit_code == 1 and "NOT_FOUND" in missing.output and "Traceback" not in missing.output

    remote = ["remote", "forget-session", "-u", "alice", "-s", "d"]
    assert runner.invoke(cli_app, remote, env=env).exit_code == 2
    printed = runner.invoke(cli_app, [*remote, "--yes"], env=env)
    assert printed.exit_code == 0, printed.output
    assert printed.stdout.strip() == ("forgot session 'd': 2 turns removed, 0 memories forgotten, 1 kept; verified: "
                                   "none of it is left")
    again = runner.invoke(cli_app, [*remote, "--yes", "--json"], env=env)
    assert again.exit_code == 1 and "NOT_FOUND" in again.output
    assert c.users.sessions(tenant, "alice").items == []
    assert all(c.memories.get(tenant, "alice", derived[s][0]) is not None for s in "bd")
    assert all(c.memories.get(tenant, "alice", derived[s][0]) is None for s in "ac")
