"""The user's correction of a memory (bmam/usecases/corrections.py) against the real Neo4j: over GraphQL (the
project's client), the CLI, and the use case where the tier capacities matter. A correction supersedes the memory
(CORRECTION conflict, resolved by the user), takes its place (type, tier, lock, weight), carries triples of its own
text, and leaves nothing of the old memory behind; a refused one writes nothing."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError
from bmam.container import Container
from bmam.events import EventKind
from bmam.settings import Settings
from bmam.usecases.memories import RememberRequest
from graph.errors import Conflict as ConflictError
from graph.model import Tier
from ingest.turns import TurnInput


@pytest.fixture
def user() -> str:
    return f"corr-{uuid.uuid4().hex[:10]}"


def _ingested(client: BmamClient, user: str, text: str, **at: Any) -> dict[str, Any]:
    """The one memory a user turn became."""
    turn = client.ingest_turn(user, "s1", "user", text, **at)
    [memory] = turn["memories"]
    found = client.memory(user, memory["id"])
    assert found is not None
    return found


def _live_ids(client: BmamClient, user: str) -> set[str]:
    return {e["node"]["id"] for e in client.memories(user, first=100)["edges"]}


def test_a_correction_supersedes_the_memory_and_takes_its_place(client: BmamClient, user: str) -> None:
    said = datetime.now(UTC) - timedelta(days=3)
    old = _ingested(client, user, "I work at ByteDance as a data scientist.", at=said.isoformat())
    client.feedback(user, old["id"], "LIKE")  # a weight of its own, which the correction keeps
    old = client.memory(user, old["id"]) or {}
    done = client.correct_memory(user, old["id"], "I work at Alibaba as a data scientist.")
    new, corrected, conflict = done["memory"], done["corrected"], done["conflict"]
    assert new["text"] == "I work at Alibaba as a data scientist." and new["id"] != old["id"]
    assert (new["type"], new["tier"], new["locked"]) == (old["type"], old["tier"], old["locked"])
    assert new["weight"]["active"] == pytest.approx(old["weight"]["active"])
    assert new["weight"]["preset"] == pytest.approx(old["weight"]["preset"])
    assert new["validTo"] is None and corrected["id"] == old["id"] and corrected["validTo"] is not None
    # it fixes what was recorded: it holds since the old one did, which is left no validity at all
    assert new["validFrom"] == old["validFrom"] == corrected["validTo"]
    as_of = client.recall(user, "Where do I work?", asOf=(said + timedelta(days=1)).isoformat())
    assert [m["memory"]["id"] for m in as_of["memories"]][:1] == [new["id"]]
    assert (conflict["kind"], conflict["status"], conflict["resolvedBy"]) == ("CORRECTION", "RESOLVED", "user")
    assert (conflict["winnerId"], conflict["loserId"]) == (new["id"], old["id"])
    assert "ByteDance" in conflict["reason"] and "Alibaba" in conflict["reason"]
    # its own triples, the old one's ended with it
    assert ("works_at", "Alibaba") in {(t["predicate"], t["object"]["name"]) for t in client.triples(user, new["id"])}
    assert _live_ids(client, user) == {new["id"]}
    answer = client.recall(user, "Where do I work?")
    assert [m["memory"]["id"] for m in answer["memories"]][:1] == [new["id"]]
    assert old["id"] not in {m["memory"]["id"] for m in answer["memories"]}
    [entry] = [h for h in client.history(user, memory_id=old["id"]) if h["memory"]["id"] == old["id"]]
    assert entry["supersededBy"] == [new["id"]]
    # the old one is history now: correcting it again is refused, the correction can be corrected
    with pytest.raises(BmamClientError) as refused:
        client.correct_memory(user, old["id"], "I work at Tencent.")
    assert refused.value.code == "CONFLICT" and "no longer live" in refused.value.message
    again = client.correct_memory(user, new["id"], "I work at Alibaba as a machine learning engineer.")
    assert again["corrected"]["id"] == new["id"] and _live_ids(client, user) == {again["memory"]["id"]}


def test_a_correction_may_change_the_type(client: BmamClient, user: str) -> None:
    old = client.remember(user, "Last weekend I went hiking at the Great Wall with Tom.", "FACTUAL")
    done = client.correct_memory(user, old["id"], "Last weekend I went hiking at the Great Wall with Tom.",
                                 memory_type="EPISODIC")
    assert done["memory"]["type"] == "EPISODIC" and done["memory"]["text"] == old["text"]


def test_texts_with_quotes_read_back_verbatim(client: BmamClient, user: str) -> None:
    """The answer quotes both texts as said (a repr of them escaped quotes and backslashes: the API abuse test's
    check that an echoed string is never a mangled form of what was sent)."""
    old = client.remember(user, "My password hint is 'tea'", "FACTUAL")
    text = 'My password hint is "coffee" \\ not \'tea\''
    done = client.correct_memory(user, old["id"], text)
    assert done["memory"]["text"] == text
    assert done["conflict"]["reason"] == f"corrected by the user: {old['text']} -> {text}"


def test_refused_corrections_write_nothing(client: BmamClient, user: str) -> None:
    old = client.remember(user, "I'm allergic to shellfish.", "FACTUAL")
    other = client.remember(f"{user}-other", "I'm allergic to pollen.", "FACTUAL")
    cases = [
        (old["id"], "I'm allergic to shellfish.", "BAD_USER_INPUT"),  # says what it says
        (old["id"], "   ", "BAD_USER_INPUT"),
        ("m_0123456789abcdef0123456789abcdef", "I'm allergic to peanuts.", "NOT_FOUND"),
        (other["id"], "I'm allergic to peanuts.", "NOT_FOUND"),  # another user's memory: never theirs to change
    ]
    for memory_id, text, code in cases:
        with pytest.raises(BmamClientError) as refused:
            client.correct_memory(user, memory_id, text)
        assert refused.value.code == code, (memory_id, text, refused.value)
    assert _live_ids(client, user) == {old["id"]}
    assert client.memory(f"{user}-other", other["id"]) == other  # untouched
    assert client.conflicts(user, status=None) == []


def test_nothing_of_a_corrected_memory_remains(container: Container, tenant: str) -> None:
    """A rule's settlement keeps what the winner did not contest ("my name is Mei" when only the home changed);
    a correction does not: the user rewrote the whole memory. Neither now nor when the remains sweep passes."""
    container.ingest.ingest_conversation(tenant, [TurnInput(
        user_id="mei", session_id="s1", speaker="user", text="My name is Mei and I live in Chengdu.",
        at=container.clock.now())])
    [old] = container.memories.page(tenant, "mei").items
    done = container.corrections.correct(tenant, "mei", old.id, "I live in Beijing.")
    assert [m.id for m in container.memories.page(tenant, "mei").items] == [done.memory.id]
    assert container.remains.sweep(tenant=tenant, user_id="mei").looked == 0
    assert [m.id for m in container.memories.page(tenant, "mei").items] == [done.memory.id]


def test_a_locked_core_memory_is_corrected_in_its_place_when_core_is_full(settings: Settings, tenant: str) -> None:
    """Core holds one memory here: another is refused, the correction of the one it holds takes its place, locked;
    a subscriber hears the correction CREATED and the old memory SUPERSEDED by it."""
    own = Container(settings.model_copy(update={"tiers": settings.tiers.model_copy(update={"core_capacity": 1})}))
    try:
        core = own.memories.remember(tenant, RememberRequest(user_id="ann", text="My blood type is O negative.",
                                                             type="FACTUAL", tier=Tier.CORE))
        assert core.locked
        with pytest.raises(ConflictError):  # core is full: nothing else goes there
            own.memories.remember(tenant, RememberRequest(user_id="ann", text="I am diabetic.", type="FACTUAL",
                                                          tier=Tier.CORE))
        own.events.keep_outbox()  # what the process publishes, as the relay takes it
        done = own.corrections.correct(tenant, "ann", core.id, "My blood type is A positive.")
        assert (done.memory.tier, done.memory.locked) == (Tier.CORE, True)
        assert own.tiers.usage(tenant, "ann").counts[Tier.CORE] == 1
        heard = [(e.kind, e.memory_id, e.detail.get("superseded_by")) for e in own.events.take_outbox()]
        assert heard[:2] == [(EventKind.CREATED, done.memory.id, None),
                             (EventKind.SUPERSEDED, core.id, done.memory.id)]
    finally:
        own.erasure.forget_user(tenant, "ann", confirm=True)
        own.close()


runner = CliRunner()


def test_the_cli_corrects_and_refuses(container: Container, tenant: str) -> None:
    old = container.memories.remember(tenant, RememberRequest(user_id="bo", text="I live in Chengdu.",
                                                              type="FACTUAL"))
    result = runner.invoke(app, ["correct", "-u", "bo", "--tenant", tenant, old.id, "I live in Beijing."])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["text"] == "I live in Beijing." and printed["corrects"] == old.id
    assert printed["conflict_id"].startswith("c_")
    refused = runner.invoke(app, ["correct", "-u", "bo", "--tenant", tenant, old.id, "I live in Xi'an."])
    assert refused.exit_code == 1 and refused.stdout == "" and "Traceback" not in refused.output
    assert refused.stderr.startswith("error [CONFLICT]: memory ")


def test_two_corrections_of_one_memory_at_once_one_wins_the_other_writes_nothing(
        container: Container, tenant: str) -> None:
    """Both read the memory live; the second to settle finds it superseded (its settlement moot), is refused
    (CONFLICT) and rolled back whole: one correction stands, no second memory half-written beside it."""
    from concurrent.futures import ThreadPoolExecutor

    old = container.memories.remember(tenant, RememberRequest(user_id="cy", text="My car is a red Honda.",
                                                              type="FACTUAL"))
    texts = ["My car is a blue Honda.", "My car is a red Toyota."]

    def correct(text: str) -> str:
        try:
            return container.corrections.correct(tenant, "cy", old.id, text).memory.id
        except ConflictError as exc:
            return f"refused: {exc.message}"

    for _ in range(3):  # the race is not forced: a few rounds make both orders likely
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = list(pool.map(correct, texts))
        won = [o for o in outcomes if not o.startswith("refused")]
        assert len(won) == 1, outcomes
        live = container.memories.page(tenant, "cy").items
        assert [m.id for m in live] == won
        assert all(m.text in texts for m in live)
        container.memories.forget(tenant, "cy", won[0])
        old = container.memories.remember(tenant, RememberRequest(user_id="cy", text="My car is a red Honda.",
                                                                  type="FACTUAL"))
    container.erasure.forget_user(tenant, "cy", confirm=True)


def test_a_correction_said_in_conversation_supersedes_the_fact(container: Container, tenant: str) -> None:
    """"Correction: Tom's not in Berlin, he moved to Munich." says where Tom lives (the pronoun is Tom): it
    supersedes "Tom moved to Berlin" as a change of value."""
    said = datetime(2026, 11, 15, 9, 0, tzinfo=UTC)
    report = container.ingest.ingest_indexed(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=text, turn=i, at=said + timedelta(days=16 * i))
        for i, text in enumerate(["Tom moved to Berlin last week.",
                                  "Correction: Tom's not in Berlin, he moved to Munich."])])
    berlin, munich = (r.memories[0] for r in report.turns)
    [settled] = container.conflicts.conflicts(tenant, "zoe", status=None)
    assert (settled.winner_id, settled.loser_id) == (munich.id, berlin.id)


def test_a_correction_agrees_with_what_is_said_after_it(container: Container, tenant: str) -> None:
    """The user corrects "Tom moved to Berlin" to "Tom moved to Munich."; then says "Correction: Tom's not in
    Berlin, he moved to Munich.": the two agree (both say where Tom lives: Munich; what is said no to is Berlin), so
    no conflict supersedes the user's correction."""
    said = datetime(2026, 11, 15, 9, 0, tzinfo=UTC)
    turn = TurnInput(user_id="zoe", session_id="s1", speaker="user", text="Tom moved to Berlin last week.", turn=0,
                     at=said)
    [berlin] = container.ingest.ingest_indexed(tenant, [turn]).turns[0].memories
    correction = container.corrections.correct(tenant, "zoe", berlin.id, "Tom moved to Munich.")
    container.ingest.ingest_indexed(tenant, [TurnInput(
        user_id="zoe", session_id="s1", speaker="user", text="Correction: Tom's not in Berlin, he moved to Munich.",
        turn=1, at=said + timedelta(days=16))])
    live = {m.text for m in container.memories.page(tenant, "zoe").items}
    assert live == {"Tom moved to Munich.", "Correction: Tom's not in Berlin, he moved to Munich."}, live
    assert [c.kind.value for c in container.conflicts.conflicts(tenant, "zoe", status=None)] == ["CORRECTION"]
    assert correction.memory.valid_to is None


def test_a_correction_is_newer_than_what_was_said_after_the_memory_it_corrects(container: Container,
                                                                              tenant: str) -> None:
    """The correction holds since the memory it corrects did (its validFrom), yet it is the user's word as of now:
    "I live in Berlin.", said after the corrected memory, overruled the correction's "I live in Hamburg now"
    (LATEST by validFrom), and recall answered Berlin."""
    said = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
    report = container.ingest.ingest_indexed(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=text, turn=i, at=said + timedelta(days=31 * i))
        for i, text in enumerate(["I work at Siemens.", "I live in Berlin."])])
    siemens, berlin = (r.memories[0] for r in report.turns)
    correction = container.corrections.correct(tenant, "zoe", siemens.id, "I work at BMW and I live in Hamburg now.")
    live = {m.id for m in container.memories.page(tenant, "zoe").items}
    assert correction.memory.id in live and berlin.id not in live
    settled = {c.kind.value: c for c in container.conflicts.conflicts(tenant, "zoe", status=None)}
    assert (settled["SINGLE_VALUED"].winner_id, settled["SINGLE_VALUED"].loser_id) == (correction.memory.id, berlin.id)
    assert container.memories.get(tenant, "zoe", correction.memory.id).valid_to is None  # type: ignore[union-attr]
