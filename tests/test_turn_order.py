"""How conversation turns are numbered, timed and attributed: unnumbered turns after a numbered one continue
from it and a collision that remains is refused with why (pure, use-case, `bmam ingest`, `bmam remote ingest`);
a turn's time may not be ahead of the clock by more than the allowed skew (it would make a memory that never
goes stale); a time without zone is UTC; tool / function / developer speakers are episodes only, end to end
(use-case and GraphQL against the real Neo4j, the CLI, working memory, the context prompt, the RDF checks)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from graph.episodes import EpisodeRepository
from graph.errors import BadInput
from graph.model import Scope
from graph.rdf_checks import NODE_PROPS, Refused, ValueRules
from graph.rdf_terms import NodeKind
from ingest.turns import Speaker, clashes, given_twice, parse_speaker, placed_turns, positions, read_jsonl
from ingest.turns import TurnInput as Turn

runner = CliRunner()
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
S1 = ("alice", "s1")


def turn(text: str, *, speaker: str = "user", session: str = "s1", **kw: Any) -> Turn:
    return Turn(user_id="alice", session_id=session, speaker=speaker, text=text, **kw)


@contextmanager
def clocked(settings: Settings, **ingest: Any) -> Iterator[Container]:
    """A container of its own whose clock stands at NOW, with these ingest settings."""
    made = Container(settings.model_copy(update={"ingest": settings.ingest.model_copy(update=ingest)}),
                     clock=FakeClock(NOW))
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def c(settings: Settings, container: Container) -> Iterator[Container]:  # container: Neo4j up, schema applied
    with clocked(settings) as made:
        yield made


def episodes(c: Container, tenant: str, session: str = "s1", user: str = "alice") -> list[tuple[int, str, str]]:
    return [(e.turn, e.speaker, e.text)
            for e in EpisodeRepository(c.store, c.vector_dimensions).recent(Scope(tenant, user), session, 50)]


# ----- 1. numbering: pure ------------------------------------------------------------------------


def test_unnumbered_turns_continue_from_the_numbered_turn_before_them() -> None:
    assert positions([S1] * 3, [5, None, None]) == [5, 6, 7]  # was [5, 1, 2]
    assert positions([S1] * 3, [None, 0, None]) == [0, 0, 1]  # 0 twice: refused below; 1 is no gap any more
    assert positions([S1] * 4, [None, None, 9, None]) == [0, 1, 9, 10]
    assert positions([S1] * 3, [3, 1, None]) == [3, 1, 2]  # continues from the turn just before it
    # per (user, session), ids compared trimmed; an item of no session keeps what it gave
    keys = [S1, ("alice", "s2"), ("alice ", "s1"), None, ("bob", "s1"), ("alice", " s2")]
    assert positions(keys, [7, None, None, 4, None, None]) == [7, 0, 8, 4, 0, 1]
    assert positions([S1, S1], [None, None]) == [0, 1]  # without any index: positions, as before


def test_the_collision_message_says_why_and_what_to_do() -> None:
    both = given_twice(0, "s1", first="request index 0", first_numbered=True, numbered=True)
    assert both == "turn 0 of session 's1' is given twice in this request (first at request index 0)"
    after_unnumbered = given_twice(0, "s1", first="request index 0", first_numbered=False, numbered=True)
    assert after_unnumbered.startswith("turn 0 of session 's1' is given twice: the unnumbered turn at request "
                                       "index 0 takes 0 (")
    assert after_unnumbered.endswith("; give every turn of a session an index, or none")
    this_unnumbered = given_twice(4, "s1", first="line 1", first_numbered=True, numbered=False)
    assert "this unnumbered turn takes 4" in this_unnumbered and "the turn at line 1 gives it" in this_unnumbered


def test_a_bad_line_that_gives_its_turn_keeps_the_next_lines_in_place(tmp_path: Path) -> None:
    """Re-running a fixed file keeps every index: the lines after a bad `"turn": 5` line count on from 5
    whether it is fixed or not."""
    def lines(first: dict[str, Any]) -> list[int | None]:
        file = tmp_path / "f.jsonl"
        rows = [first, {"user_id": "a", "session_id": "s1", "speaker": "user", "text": "next"},
                {"user_id": "a", "session_id": "s1", "speaker": "robot", "text": "bad speaker, read later"}]
        file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
        return [t.turn for _, t in placed_turns(read_jsonl(file))]

    bad = {"user_id": "a", "session_id": "s1", "speaker": "user", "turn": 5}  # no text
    fixed = {**bad, "text": "now with a text"}
    assert lines(bad) == [6, 7]
    assert lines(fixed) == [5, 6, 7]


def test_clashes_of_a_file_name_the_lines(tmp_path: Path) -> None:
    file = tmp_path / "f.jsonl"
    rows = [{"user_id": "a", "session_id": "s1", "speaker": "user", "text": "one"},
            {"user_id": "a", "session_id": "s1", "speaker": "user", "text": "two", "turn": 0},
            {"user_id": "a", "session_id": "s1", "speaker": "user", "text": "three"},
            {"user_id": "a", "session_id": "s2", "speaker": "user", "text": "other session", "turn": 0}]
    file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    found = clashes(placed_turns(read_jsonl(file)))
    assert list(found) == [2]
    assert found[2].startswith("turn 0 of session 's1' is given twice: the unnumbered turn at line 1 takes 0")


# ----- 1. numbering: through the use-case and the CLIs ------------------------------------------------


def test_a_conversation_mixing_numbered_and_unnumbered_turns(c: Container, tenant: str) -> None:
    report = c.ingest.ingest_conversation(tenant, [turn("hello", turn=5), turn("I like tea"), turn("bye")])
    assert [(r.turn, r.stored, r.errors) for r in report.turns] == [(5, True, []), (6, True, []), (7, True, [])]
    assert [t for t, _, _ in episodes(c, tenant)] == [5, 6, 7]

    other = f"{tenant}-b"
    report = c.ingest.ingest_conversation(other, [turn("first"), turn("explicit zero", turn=0), turn("third")])
    refused = report.turns[1]
    assert not refused.stored and [e.code for e in refused.errors] == ["BAD_USER_INPUT"]
    assert refused.errors[0].field == "turn"
    assert refused.errors[0].message.startswith(
        "turn 0 of session 's1' is given twice: the unnumbered turn at request index 0 takes 0 (")
    assert "give every turn of a session an index, or none" in refused.errors[0].message
    assert [(t, text) for t, _, text in episodes(c, other)] == [(0, "first"), (1, "third")]  # no gap at 1


def test_an_unnumbered_turn_placed_past_the_last_index_says_why(c: Container, tenant: str) -> None:
    last = 2**31 - 2  # graph.model.MAX_TURN
    report = c.ingest.ingest_conversation(tenant, [turn("hello", turn=last), turn("and then")])
    assert report.turns[0].stored and not report.turns[1].stored
    [error] = report.turns[1].errors
    assert (error.code, error.field) == ("BAD_USER_INPUT", "turn")
    assert error.message == (f"turn {last + 1} is over {last}: this unnumbered turn takes the index after the turn "
                             f"before it in its session ({last}); continue in a new session")


def test_cli_ingest_places_and_reports_mixed_turns(container: Container, tenant: str, tmp_path: Path) -> None:
    file = tmp_path / "mixed.jsonl"
    rows = [{"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "hello", "turn": 3},
            {"user_id": "alice", "session_id": "s1", "speaker": "assistant", "text": "hi!"},
            {"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "again", "turn": 4}]
    file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 2, result.output
    [problem] = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert problem.startswith("line 3: [BAD_USER_INPUT] turn 4 of session 's1' is given twice: the unnumbered "
                              "turn at line 2 takes 4 (")
    assert [(t, text) for t, _, text in episodes(container, tenant)] == [(3, "hello"), (4, "hi!")]


def test_remote_ingest_refuses_a_clash_across_requests(container: Container, api_url: str, api_key: str,
                                                        api_tenant: str, tmp_path: Path) -> None:
    """Lines 1 and 2 go in two requests (--batch 1): the server would store line 1 at 0 and refuse line 2 as a
    CONFLICT with the stored text; the command says why before sending."""
    user = f"u-{uuid.uuid4().hex[:8]}"
    rows = [{"userId": user, "sessionId": "s1", "speaker": "user", "text": "I like tea"},
            {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I like coffee", "turn": 0},
            {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I like cake"}]
    file = tmp_path / "remote.jsonl"
    file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["remote", "ingest", str(file), "--batch", "1"],
                           env={"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key})
    assert result.exit_code == 2, result.output
    [problem] = result.stderr.splitlines()
    assert problem.startswith("line 2: turn 0 of session 's1' is given twice: the unnumbered turn at line 1 takes 0")
    assert "2 turns sent in 2 requests" in result.stdout
    assert [(t, text) for t, _, text in episodes(container, api_tenant, user=user)] == [
        (0, "I like tea"), (1, "I like cake")]


# ----- 2. times ahead of the clock -------------------------------------------------------------------


def test_a_turn_ahead_of_the_clock_is_refused_and_the_others_kept(c: Container, tenant: str) -> None:
    skew = timedelta(seconds=c.settings.ingest.clock_skew_s)
    assert skew == timedelta(minutes=10)  # the default
    report = c.ingest.ingest_conversation(tenant, [
        turn("I like green tea", at=NOW + skew),  # a client clock 10 minutes ahead: fine
        turn("My sister lives in Berlin", at=NOW + skew + timedelta(seconds=1)),
        turn("I play the piano", at=datetime(2026, 3, 1, 9, 5)),  # no zone: UTC, 5 minutes ahead
    ])
    assert [r.stored for r in report.turns] == [True, False, True]
    [error] = report.turns[1].errors
    assert (error.code, error.field) == ("BAD_USER_INPUT", "at")
    assert error.message == ("at 2026-03-01T09:10:01+00:00 is in the future: the latest accepted is "
                             "2026-03-01T09:10:00+00:00 (the server's clock plus 600 s of allowed clock skew)")
    [tea] = report.turns[0].memories
    assert tea.created_at == NOW + skew
    assert report.turns[2].memories[0].created_at == datetime(2026, 3, 1, 9, 5, tzinfo=UTC)
    # a time in milliseconds read as seconds lands thousands of years ahead: refused, not an immortal memory
    with pytest.raises(BadInput) as err:
        c.ingest.ingest_turn(tenant, turn("I live in Chengdu", at=datetime(9999, 1, 1, tzinfo=UTC)))
    assert err.value.field == "at" and "is in the future" in err.value.message
    assert {m.text for m in c.memories.page(tenant, "alice").items} == {"I like green tea", "I play the piano"}


def test_the_allowed_skew_is_a_setting(settings: Settings, container: Container, tenant: str) -> None:
    with clocked(settings, clock_skew_s=0) as strict:
        with pytest.raises(BadInput) as err:
            strict.ingest.ingest_turn(tenant, turn("I like tea", at=NOW + timedelta(seconds=1)))
        assert "plus 0 s of allowed clock skew" in err.value.message
        assert strict.ingest.ingest_turn(tenant, turn("I like tea", at=NOW)).stored
    with pytest.raises(ValueError):
        settings.ingest.model_validate({"clock_skew_s": -1})
    with pytest.raises(ValueError):
        settings.ingest.model_validate({"clock_skew_s": 86_401})


def test_cli_ingest_reports_a_line_in_the_future(container: Container, tenant: str, tmp_path: Path) -> None:
    file = tmp_path / "future.jsonl"
    rows = [{"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "I like tea",
             "at": "2026-11-30T09:00:00"},  # no zone: UTC, in the past of the real clock
            {"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "I like cake",
             "at": "3026-11-30T09:00:00Z"}]
    file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 2, result.output
    [problem] = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert problem.startswith("line 2: [BAD_USER_INPUT] at 3026-11-30T09:00:00+00:00 is in the future")
    [ep] = EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(tenant, "alice"), "s1", 9)
    assert ep.at == datetime(2026, 11, 30, 9, tzinfo=UTC)


def test_graphql_refuses_a_time_in_the_future(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    doc = ("mutation($u: String!, $a: DateTime) { ingestTurn(userId: $u, sessionId: \"s1\", speaker: \"user\","
           " text: \"I like tea\", at: $a) { stored } }")
    with pytest.raises(BmamClientError) as err:
        client.execute(doc, {"u": user, "a": "3026-01-01T00:00:00Z"})
    assert err.value.code == "BAD_USER_INPUT" and "is in the future" in err.value.message
    result = client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I like cake", "at": "3026-01-01T00:00:00Z"},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I like pie", "at": "2026-01-01T00:00:00"},
    ])
    assert (result["stored"], result["failed"]) == (1, 1)
    assert [e["code"] for e in result["turns"][0]["errors"]] == ["BAD_USER_INPUT"]


# ----- 4. speakers ---------------------------------------------------------------------------------


def test_openai_roles_are_speakers() -> None:
    assert parse_speaker("developer") is Speaker.SYSTEM
    assert parse_speaker(" Tool ") is Speaker.TOOL and parse_speaker("function") is Speaker.TOOL
    assert parse_speaker("narrator") is None


def test_tool_turns_are_episodes_only_end_to_end(c: Container, tenant: str) -> None:
    report = c.ingest.ingest_conversation(tenant, [
        turn("Be concise.", speaker="developer"),
        turn("What is the weather in Chengdu?"),
        turn('{"city": "Chengdu", "temp_c": 12}', speaker="tool"),
        turn("I live in Berlin", speaker="function"),  # a tool's output is no fact about the user
        turn("It is 12 °C in Chengdu.", speaker="assistant"),
    ])
    assert all(r.stored and not r.errors for r in report.turns)
    assert [r.speaker for r in report.turns] == ["system", "user", "tool", "tool", "assistant"]
    assert [r.reason for r in report.turns][2:] == ["tool_turn", "tool_turn", "assistant_turn"]
    assert report.turns[0].reason == "system_turn"
    assert not any(r.memories or r.mentioned for r in report.turns)
    assert c.memories.page(tenant, "alice").items == []
    assert [s for _, s, _ in episodes(c, tenant)] == ["system", "user", "tool", "tool", "assistant"]
    assert [t.speaker for t in c.ingest.working_memory(tenant, "alice", "s1")][-3:] == ["tool", "tool", "assistant"]
    prompt = c.recall.context_prompt(tenant, "alice", "s1", "And tomorrow?")
    assert 'tool: {"city": "Chengdu", "temp_c": 12}' in prompt.text
    # an export of the episode passes the import's checks (graph/rdf_checks.py)
    check, rules = NODE_PROPS[NodeKind.EPISODE]["speaker"], ValueRules(text=lambda v, f: v, identifier=lambda v, f: v)
    assert check("tool", "speaker", rules) == "tool"
    with pytest.raises(Refused):
        check("function", "speaker", rules)  # stored as tool, never as function


def test_graphql_accepts_a_tool_turn(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    one = client.ingest_turn(user, "s1", "tool", "search results: 3 hotpot places")
    assert one["stored"] and one["speaker"] == "tool" and one["memories"] == []
    many = client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "function", "text": "I live in Berlin", "turn": 1},
        {"userId": user, "sessionId": "s1", "speaker": "developer", "text": "Answer in English."},  # 2
    ])
    assert [(t["turn"], t["speaker"], t["reason"], t["errors"]) for t in many["turns"]] == [
        (1, "tool", "tool_turn", []), (2, "system", "system_turn", [])]
    assert [t["speaker"] for t in client.working_memory(user, "s1")["turns"]] == ["tool", "tool", "system"]
