"""Which of two memories is the newer when they were said at the same time: a conversation sent at once
without times (an ingestConversation, a JSONL file) stamps every turn with one time. The later turn wins
across sessions too: the memories are stored in the order they were said, and their hooks run after all
of them were stored, so the memory being checked may be the older of the two. And the pair's roles when the memory
checked is the older one by its times: an import, or a turn said earlier and ingested later."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.container import Container
from graph.conflicts import ConflictStatus
from ingest.turns import TurnInput


def test_a_change_of_mind_in_a_later_session_of_one_upload_wins(container: Container, tenant: str) -> None:
    turns = [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="I live in Boston."),
        TurnInput(user_id="zoe", session_id="s1", speaker="assistant", text="Boston is lovely."),
        TurnInput(user_id="zoe", session_id="s2", speaker="user", text="Big news: we moved to Seattle last month."),
    ]
    report = container.ingest.ingest_conversation(tenant, turns)
    boston, seattle = (r.memories[0] for r in report.turns if r.memories)
    assert boston.created_at == seattle.created_at  # one time for the whole upload
    settled = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert [(c.winner_id, c.loser_id) for c in settled] == [(seattle.id, boston.id)]
    live = {m.text for m in container.memories.page(tenant, "zoe").items}
    assert live == {"Big news: we moved to Seattle last month."}


def test_a_conflict_inside_one_upload_is_recorded_the_way_it_was_said(container: Container, tenant: str) -> None:
    """The hooks of an upload run after all its memories were stored, so the earlier turn's detection could
    find the later one: the pair is recorded by the later turn's detection (new = the later memory, the
    reason from old to new), as if the turns had come one by one; LATEST's winner is the later either way."""
    said = ["My favourite colour is blue.", "My favourite colour is green now.", "I live in Boston.",
            "I moved to Seattle."]
    report = container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=text) for text in said])
    blue, green, boston, seattle = (r.memories[0] for r in report.turns)
    settled = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert sorted((c.new_memory_id, c.old_memory_id, c.winner_id) for c in settled) == sorted(
        [(green.id, blue.id, green.id), (seattle.id, boston.id, seattle.id)])
    for c in settled:
        old_text, new_text = ("blue", "green") if c.new_memory_id == green.id else ("Boston", "Seattle")
        assert c.reason.index(old_text) < c.reason.index(new_text), c.reason


def test_a_cancelled_plan_is_no_longer_current(container: Container, tenant: str) -> None:
    """"We cancelled the Japan trip" weeks after "... planning a trip to Japan next month": the plan is superseded
    (history), so recall no longer offers it as current."""
    from datetime import UTC, datetime, timedelta

    said = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    texts = ["My boyfriend Jake and I are planning a trip to Japan next month.", "I love ramen.",
             "We cancelled the Japan trip, obviously."]
    report = container.ingest.ingest_indexed(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=text, turn=i, at=said + timedelta(days=14 * i))
        for i, text in enumerate(texts)])
    plan, _, cancelled = (r.memories[0] for r in report.turns)
    [settled] = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert (settled.winner_id, settled.loser_id, settled.kind.value) == (cancelled.id, plan.id, "NEGATION")
    assert settled.reason.startswith("cancelled")
    live = {m.text for m in container.memories.page(tenant, "zoe").items}
    # who Jake is stays (restated from the plan, which said it)
    assert live == {"I love ramen.", "We cancelled the Japan trip, obviously.", "Jake is my partner"}


def test_a_rescheduled_appointment_is_no_longer_current(container: Container, tenant: str) -> None:
    """"My dentist appointment moved to Dec 15" two days after "... on Dec 12 at 3pm": the old time is history, and
    recall answers with the new one alone (both came back, the old one first)."""
    from datetime import UTC, datetime, timedelta

    from bmam.usecases.recall import RecallRequest

    said = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    texts = ["I have a dentist appointment on Dec 12 at 3pm", "I love ramen.",
             "My dentist appointment moved to Dec 15 at 10am"]
    report = container.ingest.ingest_indexed(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=text, turn=i, at=said + timedelta(days=i))
        for i, text in enumerate(texts)])
    old, _, moved = (r.memories[0] for r in report.turns)
    [settled] = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert (settled.winner_id, settled.loser_id) == (moved.id, old.id)
    assert settled.reason.startswith("rescheduled")
    answer = container.recall.recall(tenant, RecallRequest(user_id="zoe", query="When is my dentist appointment?"))
    assert [m.memory.id for m in answer.memories if "dentist" in m.memory.text] == [moved.id]


def test_a_procedure_restated_with_a_step_changed_replaces_the_old_one(container: Container, tenant: str) -> None:
    """"... first run make release, ..." after "... first run make build, ...": at cosine 0.96 it was a repeat (a
    mention of the old text), and "Remember this!" then locked the old steps into core. It is a memory of its own,
    and the revision supersedes the old steps. A dose said again with another number is no repeat either (it was
    lost as a mention of the old dose), and the new dose replaces the old: one dose of a medicine at a time
    (takes_dose, ingest/extract_routines.py)."""
    from bmam.usecases.recall import RecallRequest

    texts = ["To deploy the blog: first run make build, then rsync public/ to the server, then purge the CDN",
             "To deploy the blog: first run make release, then rsync public/ to the server, then purge the CDN",
             "I take levothyroxine 50 mcg every morning", "I take levothyroxine 75 mcg every morning",
             "I take levothyroxine 75 mcg every morning!"]
    report = container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=text) for text in texts])
    build, release, dose50, dose75, again = report.turns
    assert release.memories and not release.mentioned and dose75.memories and not dose75.mentioned
    assert not again.memories and [m.id for m in again.mentioned] == [dose75.memories[0].id]  # a plain repeat
    settled = {(c.winner_id, c.loser_id): c.reason
               for c in container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)}
    assert settled.keys() == {(release.memories[0].id, build.memories[0].id),
                              (dose75.memories[0].id, dose50.memories[0].id)}
    assert settled[(release.memories[0].id, build.memories[0].id)].startswith("restated with a change")
    assert settled[(dose75.memories[0].id, dose50.memories[0].id)] == \
        "user takes_dose: 'levothyroxine 50 mcg' -> 'levothyroxine 75 mcg'"
    answer = container.recall.recall(tenant, RecallRequest(user_id="zoe", query="How do I deploy the blog?"))
    assert [m.memory.id for m in answer.memories if "deploy" in m.memory.text] == [release.memories[0].id]


def _live_in(container: Container, tenant: str, user: str, text: str, at: datetime, session: str) -> str:
    report = container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id=user, session_id=session, speaker="user", text=text, at=at)])
    [memory] = report.turns[0].memories
    return memory.id


def test_an_import_into_a_user_with_a_newer_memory_records_the_pair_the_way_it_was_said(
        container: Container, tenant: str) -> None:
    """Carol said "I live in Munich" on 11-25; a file that says "I live in Hamburg" (11-20) is imported into her.
    Munich wins (LATEST), and the conflict reads so: new = Munich (the later), old = Hamburg, the reason from
    Hamburg to Munich. The imported memory's detection found Munich and recorded itself as the new one."""
    _live_in(container, tenant, "alice", "I live in Hamburg.", datetime(2026, 11, 20, 10, tzinfo=UTC), "a1")
    munich = _live_in(container, tenant, "carol", "I live in Munich.", datetime(2026, 11, 25, 10, tzinfo=UTC), "c1")
    data = b"".join(container.export.export_rdf(tenant, "alice", "nt"))
    container.export.import_rdf(tenant, "carol", data, "nt")
    [settled] = container.conflicts.conflicts(tenant, "carol", status=None)
    assert settled.old_memory is not None and settled.old_memory.text == "I live in Hamburg."
    assert (settled.new_memory_id, settled.winner_id, settled.loser_id) == (munich, munich, settled.old_memory_id)
    assert settled.reason == "user lives_in: 'Hamburg' -> 'Munich'"
    live = {m.text for m in container.memories.page(tenant, "carol").items}
    assert live == {"I live in Munich."}
    # the CLI lists it so (bmam/commands/living.py, the GraphQL field's roles)
    listed = CliRunner().invoke(cli_app, ["conflicts", "-u", "carol", "--tenant", tenant, "--all"])
    assert listed.exit_code == 0, listed.output
    [shown] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (shown["new"]["text"], shown["old"]["text"]) == ("I live in Munich.", "I live in Hamburg.")


def test_a_turn_said_earlier_and_ingested_later_is_recorded_as_the_old_side(container: Container, tenant: str) -> None:
    """The same through ingest: a turn with an earlier `at` (a conversation replayed later, or a concurrent upload
    whose hooks ran after the other's) meets a newer memory outside its own upload."""
    munich = _live_in(container, tenant, "zoe", "I live in Munich.", datetime(2026, 11, 25, 10, tzinfo=UTC), "s2")
    hamburg = _live_in(container, tenant, "zoe", "I live in Hamburg.", datetime(2026, 11, 20, 10, tzinfo=UTC), "s1")
    [settled] = container.conflicts.conflicts(tenant, "zoe", status=None)
    assert (settled.new_memory_id, settled.old_memory_id) == (munich, hamburg)
    assert (settled.winner_id, settled.loser_id) == (munich, hamburg)
    assert settled.reason == "user lives_in: 'Hamburg' -> 'Munich'"
