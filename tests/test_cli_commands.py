"""The CLI's memory commands through typer's CliRunner against the real Neo4j: search, forget, feedback, conflicts,
resolve, history, changesets, maintain --undo, related, context, and recall on the default tenant when --tenant is
left out. Each test asserts on what the command printed (its JSON lines where it prints JSON) and its exit code; bad
input is one `error [CODE]: ...` line and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from bmam.cli import app
from bmam.container import Container

runner = CliRunner()

# The users this module writes under its tenant, one per test (erased when the module is done).
SEARCHER, FORGETTER, LIKER, MOVER, KEEPER, LINKER, TALKER, CASER = (
    "searcher", "forgetter", "liker", "mover", "keeper", "linker", "talker", "caser")


@pytest.fixture(scope="module")
def module_tenant(container: Container) -> Iterator[str]:
    """One fresh tenant for the module; its users are erased afterwards."""
    tenant = f"test-cli-{uuid.uuid4().hex[:12]}"
    yield tenant
    for user in (SEARCHER, FORGETTER, LIKER, MOVER, KEEPER, LINKER, TALKER, CASER):
        container.erasure.forget_user(tenant, user, confirm=True)


def cli(*args: str) -> Result:
    """Run one command; whatever its exit code, it ended by exiting, not by an exception (a traceback)."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def ok(*args: str) -> str:
    """Run one command that must succeed; its standard output."""
    result = cli(*args)
    assert result.exit_code == 0, result.output
    assert result.stderr == "", result.stderr
    return result.stdout


def json_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def refused(code: int, *args: str) -> str:
    """Run one command that must fail with exit `code`: nothing on standard output, one line on standard error
    (returned), no traceback."""
    result = cli(*args)
    assert result.exit_code == code, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def remember(tenant: str, user: str, text: str) -> dict[str, Any]:
    [memory] = json_lines(ok("remember", "-u", user, "--tenant", tenant, text))
    assert memory["text"] == text
    return memory


# ----- search, forget ------------------------------------------------------------------------------------------


def test_search_finds_a_remembered_memory_with_a_score(module_tenant: str) -> None:
    base = ["-u", SEARCHER, "--tenant", module_tenant]
    home = remember(module_tenant, SEARCHER, "I live in Chengdu")
    kettle = remember(module_tenant, SEARCHER, "I bought a red kettle")
    hits = json_lines(ok("search", *base, "where do I live"))
    assert [h["id"] for h in hits][:1] == [home["id"]] and {h["id"] for h in hits} <= {home["id"], kettle["id"]}
    assert all(isinstance(h["score"], float) and 0 < h["score"] <= 1 for h in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    assert {k: hits[0][k] for k in home} == home  # the memory as remember printed it, with the score beside it
    assert len(json_lines(ok("search", *base, "where do I live", "--k", "1"))) == 1
    assert len(json_lines(ok("search", *base, "where do I live", "-k", "1"))) == 1  # as recall takes it
    assert refused(2, "search", *base, "") == "error [BAD_USER_INPUT]: query must not be empty"
    assert refused(2, "search", *base, "kettle", "--k", "0") == "error [BAD_USER_INPUT]: k must be at least 1"


def test_forget_says_what_it_forgot_and_a_second_time_is_not_found(container: Container,
                                                                 module_tenant: str) -> None:
    base = ["-u", FORGETTER, "--tenant", module_tenant]
    memory = remember(module_tenant, FORGETTER, "My locker code is 4711")
    assert ok("forget", *base, memory["id"]) == f"forgot {memory['id']}\n"
    assert container.memories.get(module_tenant, FORGETTER, memory["id"]) is None
    assert ok("memories", *base) == ""
    assert refused(1, "forget", *base, memory["id"]) == f"error [NOT_FOUND]: memory {memory['id']} not found"


def test_forget_refuses_a_locked_core_memory_without_confirm(container: Container, module_tenant: str) -> None:
    base = ["-u", FORGETTER, "--tenant", module_tenant]
    memory = remember(module_tenant, FORGETTER, "My daughter is allergic to peanuts")
    [locked] = json_lines(ok("lock", *base, memory["id"]))
    assert (locked["tier"], locked["locked"]) == ("core", True)
    said = refused(1, "forget", *base, memory["id"])
    assert said.startswith(f"error [CONFLICT]: memory {memory['id']} is a locked core memory"), said
    assert "--confirm" in said and "confirm: true" not in said  # the CLI's flag, not the API's argument
    kept = container.memories.get(module_tenant, FORGETTER, memory["id"])
    assert kept is not None and kept.locked  # the refusal changed nothing
    assert ok("forget", *base, memory["id"], "--confirm") == f"forgot {memory['id']}\n"
    assert container.memories.get(module_tenant, FORGETTER, memory["id"]) is None


def test_every_enum_option_takes_any_case(module_tenant: str) -> None:
    """`memories --tier CORE` and `memories --type factual` were refused with a usage box while `remember --type
    factual` and `react ... Engaged` were taken, and GraphQL, remote and MCP print the tiers as CORE."""
    base = ["-u", CASER, "--tenant", module_tenant]
    [memory] = json_lines(ok("remember", *base, "--tier", "MID", "--type", "factual", "I keep bees on my roof"))
    assert (memory["tier"], memory["type"]) == ("mid", "FACTUAL")
    for tier, kind in (("MID", "FACTUAL"), ("mid", "factual"), ("Mid", "Factual")):
        listed = json_lines(ok("memories", *base, "--tier", tier, "--type", kind))
        assert [m["id"] for m in listed] == [memory["id"]], (tier, kind)
        [recalled] = json_lines(ok("recall", *base, "--tier", tier, "--type", kind, "Do I keep bees?"))
        assert [m["id"] for m in recalled["memories"]] == [memory["id"]], (tier, kind)
    assert json_lines(ok("memories", *base, "--tier", "CORE")) == []
    assert cli("memories", *base, "--tier", "attic").exit_code == 2  # still refused when it is no tier at all


def test_remember_takes_the_preset_session_and_device_and_check_conflicts_runs_detection(
        container: Container, module_tenant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's remember had no preset kind, session or device (GraphQL and MCP take them), and no command ran
    checkConflicts."""
    base = ["-u", CASER, "--tenant", module_tenant]
    [stored] = json_lines(ok("remember", *base, "My son is allergic to shellfish", "--preset", "SAFETY",
                             "--session", "s9", "--device", "phone"))
    memory = container.memories.get(module_tenant, CASER, stored["id"])
    assert memory is not None and memory.preset_kind.value == "safety" and memory.weight.preset == 1.0
    assert (memory.provenance.session_id, memory.provenance.device_id) == ("s9", "phone")
    monkeypatch.setenv("BMAM_LIVING__CONFLICT_STRATEGY", "REVIEW")  # so detection finds, and holds, the pair
    home = remember(module_tenant, CASER, "I live in Lisbon")
    ok("add-triple", *base, home["id"], "user", "lives_in", "Lisbon")
    moved = remember(module_tenant, CASER, "I live in Porto")
    ok("add-triple", *base, moved["id"], "user", "lives_in", "Porto")
    [held] = json_lines(ok("check-conflicts", *base, moved["id"], "--strategy", "review"))
    assert held["status"] == "OPEN" and {held["new"]["id"], held["old"]["id"]} == {moved["id"], home["id"]}
    assert refused(1, "check-conflicts", *base, "m_00000000000000000000000000000000").startswith(
        "error [NOT_FOUND]")


# ----- feedback ------------------------------------------------------------------------------------------------


def test_feedback_like_raises_the_active_weight_and_dislike_lowers_it(container: Container,
                                                                      module_tenant: str) -> None:
    base = ["-u", LIKER, "--tenant", module_tenant]
    memory = remember(module_tenant, LIKER, "I love spicy food")
    stored = container.memories.get(module_tenant, LIKER, memory["id"])
    assert stored is not None
    step = container.settings.living.explicit_feedback
    [liked] = json_lines(ok("feedback", *base, memory["id"], "LIKE"))
    assert liked["id"] == memory["id"] and liked["text"] == memory["text"]
    assert liked["active"] == pytest.approx(min(1.0, stored.weight.active + step))
    assert liked["active"] > stored.weight.active and liked["weight"] > memory["weight"]
    after = container.memories.get(module_tenant, LIKER, memory["id"])
    assert after is not None and after.weight.active == pytest.approx(liked["active"])  # stored, not only printed
    [disliked] = json_lines(ok("feedback", *base, memory["id"], "dislike"))
    assert disliked["active"] == pytest.approx(max(0.0, liked["active"] - step))
    assert disliked["weight"] < liked["weight"]


def test_feedback_refuses_an_unknown_signal_and_an_unknown_memory(module_tenant: str) -> None:
    base = ["-u", LIKER, "--tenant", module_tenant]
    memory = remember(module_tenant, LIKER, "I play the piano every day")
    said = refused(2, "feedback", *base, memory["id"], "MEH")
    assert said == "error [BAD_USER_INPUT]: unknown feedback signal 'MEH'; one of LIKE, DISLIKE, DWELL, SKIP"
    assert refused(1, "feedback", *base, "no-such-memory", "LIKE") == \
        "error [NOT_FOUND]: memory no-such-memory not found"


# ----- conflicts, resolve, history -----------------------------------------------------------------------------


def test_a_conflict_held_for_review_is_listed_resolved_and_shown_in_history(module_tenant: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With the deployment's strategy REVIEW (BMAM_LIVING__CONFLICT_STRATEGY, read by each command), a second place
    of residence is held for review; the user picks the OLD one, which a LATEST strategy would not have."""
    monkeypatch.setenv("BMAM_LIVING__CONFLICT_STRATEGY", "REVIEW")
    base = ["-u", MOVER, "--tenant", module_tenant]
    chengdu = remember(module_tenant, MOVER, "I live in Chengdu")
    ok("add-triple", *base, chengdu["id"], "user", "lives_in", "Chengdu")
    beijing = remember(module_tenant, MOVER, "I live in Beijing")
    ok("add-triple", *base, beijing["id"], "user", "lives_in", "Beijing")

    [held] = json_lines(ok("conflicts", *base))
    assert (held["status"], held["strategy"], held["winner"], held["loser"]) == ("OPEN", "REVIEW", None, None)
    assert (held["resolved_by"], held["resolved_at"]) == (None, None)
    assert held["new"] == {"id": beijing["id"], "text": "I live in Beijing"}
    assert held["old"] == {"id": chengdu["id"], "text": "I live in Chengdu"}
    assert "lives_in" in held["reason"]

    said = refused(2, "resolve", *base, held["id"], "m_not_in_it")
    assert said.startswith(f"error [BAD_USER_INPUT]: winner m_not_in_it is not one of the memories of conflict "
                           f"{held['id']}"), said
    [settled] = json_lines(ok("resolve", *base, held["id"], chengdu["id"]))
    assert (settled["id"], settled["status"]) == (held["id"], "RESOLVED")
    assert (settled["winner"], settled["loser"], settled["resolved_by"]) == (chengdu["id"], beijing["id"], "user")
    assert settled["resolved_at"] is not None
    said = refused(1, "resolve", *base, held["id"], chengdu["id"])
    assert said == f"error [CONFLICT]: conflict {held['id']} is already resolved (winner {chengdu['id']})"

    assert ok("conflicts", *base) == ""  # the review queue is empty; --all still shows it, resolved
    assert [(x["id"], x["status"]) for x in json_lines(ok("conflicts", *base, "--all"))] == [(held["id"], "RESOLVED")]

    history = {h["id"]: h for h in json_lines(ok("history", *base, "--entity", "Chengdu"))}
    assert set(history) == {chengdu["id"], beijing["id"]}
    winner, loser = history[chengdu["id"]], history[beijing["id"]]
    assert (winner["valid_to"], winner["supersedes"], winner["superseded_by"]) == (None, [beijing["id"]], [])
    assert loser["valid_to"] is not None and loser["superseded_by"] == [chengdu["id"]]
    assert winner["weight"] > chengdu["weight"] > loser["weight"]  # the winner's bonus, the loser's penalty
    assert refused(1, "history", *base, "--memory", "no-such-memory") == \
        "error [NOT_FOUND]: memory no-such-memory not found"
    # a listing with history tells the superseded memory by its valid_to, as the API's validTo does (it printed a
    # superseded memory in the shape of a live one)
    listed = {m["id"]: m for m in json_lines(ok("memories", *base, "--include-history"))}
    assert listed[beijing["id"]]["valid_to"] == loser["valid_to"] and listed[chengdu["id"]]["valid_to"] is None
    shown = json.loads(ok("memory", *base, beijing["id"]))
    assert shown["valid_to"] == loser["valid_to"] and shown["weight_parts"]["preset"] > 0
    assert refused(2, "conflicts", *base, "--first", "0") == "error [BAD_USER_INPUT]: first must be at least 1"


# ----- changesets, maintain --undo -----------------------------------------------------------------------------


def test_a_rebalance_shows_in_changesets_and_is_undone_once(module_tenant: str) -> None:
    """A liked memory with a low weight is lifted by --rebalance (valuable, rarely recalled); the run is a
    changeset that `changesets` lists and `maintain --undo` takes back, weight included; a second undo is refused."""
    base = ["-u", KEEPER, "--tenant", module_tenant]
    memory = remember(module_tenant, KEEPER, "I practise the cello on Sundays")
    [liked] = json_lines(ok("feedback", *base, memory["id"], "LIKE"))

    def weight() -> float:
        [m] = json_lines(ok("memories", *base))
        assert m["id"] == memory["id"]
        return float(m["weight"])

    assert weight() == liked["weight"]
    [cs] = json_lines(ok("maintain", "--rebalance", *base, "--json"))
    assert (cs["kind"], cs["status"], cs["dry_run"], cs["undone"]) == ("REBALANCE", "COMPLETE", False, False)
    assert (cs["tenant"], cs["user_id"], cs["users"], cs["lifted"]) == (module_tenant, KEEPER, [KEEPER],
                                                                        [memory["id"]])
    lifted = weight()
    assert lifted > liked["weight"]

    [listed] = ok("changesets", *base).splitlines()
    assert listed.startswith(f"rebalance of tenant {module_tenant} user {KEEPER}: changeset {cs['id']} (complete):")
    assert "1 lifted" in listed

    undone = ok("maintain", "--undo", cs["id"], "--tenant", module_tenant)
    assert undone.startswith(f"undone: rebalance of tenant {module_tenant} user {KEEPER}: changeset {cs['id']} "
                             "(complete, undone):"), undone
    assert weight() == liked["weight"]  # the lift is taken back
    [listed] = ok("changesets", *base).splitlines()
    assert f"changeset {cs['id']} (complete, undone):" in listed
    [as_json] = json_lines(ok("changesets", *base, "--json"))  # what maintain --json prints, as it is now
    assert {**as_json, "undone": False, "undone_at": None} == {**cs, "undone_at": None} and as_json["undone"]

    said = refused(1, "maintain", "--undo", cs["id"], "--tenant", module_tenant)
    assert said.startswith(f"error [CONFLICT]: changeset {cs['id']} was already undone at "), said
    assert weight() == liked["weight"]
    assert refused(1, "maintain", "--undo", "no-such-changeset", "--tenant", module_tenant) == \
        "error [NOT_FOUND]: unknown changeset no-such-changeset"
    said = refused(2, "maintain", "--undo", cs["id"], "--decay", "--tenant", module_tenant)
    assert said.startswith("--undo takes no other maintenance option (got --decay)"), said


# ----- related, context ----------------------------------------------------------------------------------------


def test_related_follows_an_association_and_refuses_depth_50(module_tenant: str) -> None:
    base = ["-u", LINKER, "--tenant", module_tenant]
    dog = remember(module_tenant, LINKER, "Biscuit is my dog")
    kettle = remember(module_tenant, LINKER, "I bought a red kettle")
    assert ok("related", *base, dog["id"]) == ""  # nothing links them yet
    ok("associate", *base, dog["id"], kettle["id"], "--strength", "0.6")
    [found] = json_lines(ok("related", *base, dog["id"]))
    assert (found["id"], found["text"], found["score"]) == (kettle["id"], kettle["text"], 0.6)
    assert found["path"] == [{"from": dog["id"], "to": kettle["id"], "via": "ASSOCIATED", "strength": 0.6,
                              "entity": None}]
    [back] = json_lines(ok("related", *base, kettle["id"], "--depth", "5"))
    assert back["id"] == dog["id"] and [s["to"] for s in back["path"]] == [dog["id"]]
    # --help says "Hops, 1..5": 50 is refused, not clamped
    assert refused(2, "related", *base, dog["id"], "--depth", "50") == \
        "error [BAD_USER_INPUT]: depth must be between 1 and 5, got 50"
    assert refused(1, "related", *base, "no-such-memory") == "error [NOT_FOUND]: memory no-such-memory not found"


def test_context_prints_the_session_s_recent_turns_and_relevant_memories(module_tenant: str, tmp_path: Path) -> None:
    turns = [("user", "I live in Chengdu and love hotpot"), ("assistant", "Chengdu hotpot is famous!"),
             ("user", "My sister lives in Berlin")]
    file = tmp_path / "talk.jsonl"
    file.write_text("".join(json.dumps({"user_id": TALKER, "session_id": "s1", "speaker": speaker, "text": text})
                            + "\n" for speaker, text in turns), encoding="utf-8")
    assert "3 turns stored" in ok("ingest", str(file), "--tenant", module_tenant, "--no-progress")
    base = ["-u", TALKER, "--tenant", module_tenant, "-s", "s1"]

    [prompt] = json_lines(ok("context", *base, "where does my sister live", "--json"))
    assert [(t["speaker"], t["text"], t["turn"]) for t in prompt["turns"]] == [
        (speaker, text, i) for i, (speaker, text) in enumerate(turns)]
    # the session's own turns say the memory already: the prompt does not repeat it (the user's own home, sharing
    # only "live", is below recall's relative cut)
    assert prompt["gated"] is False and prompt["memories"] == []
    assert "1 said in the recent turns shown" in prompt["reason"]
    text = prompt["text"]
    date, sections = text.split("\n\n", 1)
    assert date.startswith("Now: ") and "\n" not in date  # the date and time the prompt opens with
    assert sections == "Recent conversation:\n" + "\n".join(f"{speaker}: {said}" for speaker, said in turns)
    plain = ok("context", *base, "where does my sister live")
    assert plain == text + "\n"  # without --json: the prompt text alone

    # another session of the user: the turns are that session's (none), the memories the user's
    other_session = ["-u", TALKER, "--tenant", module_tenant, "-s", "s2"]
    [other] = json_lines(ok("context", *other_session, "where does my sister live", "--json"))
    assert other["turns"] == []
    assert other["memories"][0]["text"] == "My sister lives in Berlin"
    assert {m["text"] for m in other["memories"]} == {"My sister lives in Berlin"}
    assert all("final" in m["scores"] for m in other["memories"])
    assert "- [FACTUAL, just now] My sister lives in Berlin" in other["text"]
    assert "Recent conversation:" not in other["text"]
    assert refused(2, "context", *base, "hi", "--budget", "0") == \
        "error [BAD_USER_INPUT]: budget must be at least 100 characters"


def test_context_shows_how_the_user_wants_to_be_answered_on_every_turn(module_tenant: str, tmp_path: Path) -> None:
    file = tmp_path / "style.jsonl"
    said = {"user_id": "styled", "session_id": "s1", "speaker": "user",
            "text": "Please keep your answers short, I read on my phone."}
    file.write_text(json.dumps(said) + "\n", encoding="utf-8")
    assert "1 turns stored" in ok("ingest", str(file), "--tenant", module_tenant, "--no-progress")
    [prompt] = json_lines(ok("context", "-u", "styled", "--tenant", module_tenant, "-s", "s2",
                             "what's a fun fact about octopuses?", "--json"))
    assert prompt["gated"] is True and prompt["memories"] == []
    assert [m["text"] for m in prompt["replyStyles"]] == ["Please keep your answers short, I read on my phone."]
    assert prompt["text"].split("\n\n", 1)[1].startswith("How the user wants to be answered:\n- [")
    assert prompt["text"].endswith("] Please keep your answers short, I read on my phone.")


# ----- recall on the default tenant ----------------------------------------------------------------------------


@pytest.fixture
def default_user(container: Container, module_tenant: str) -> Iterator[str]:
    """A fresh user of the default tenant (shared with other tests), erased afterwards whatever happened (and from
    the module's tenant, where the test looks for it too)."""
    user = f"test-cli-default-{uuid.uuid4().hex[:12]}"
    yield user
    for tenant in (container.settings.api.default_tenant, module_tenant):
        container.erasure.forget_user(tenant, user, confirm=True)


def test_recall_without_tenant_uses_the_default_tenant(container: Container, module_tenant: str,
                                                       default_user: str) -> None:
    default = container.settings.api.default_tenant
    [memory] = json_lines(ok("remember", "-u", default_user, "My favourite tea is oolong"))
    assert container.memories.get(default, default_user, memory["id"]) is not None  # stored in the default tenant

    [answer] = json_lines(ok("recall", "-u", default_user, "which tea do I like"))
    assert [m["id"] for m in answer["memories"]] == [memory["id"]]
    assert answer["memories"][0]["scores"]["final"] > 0
    [explicit] = json_lines(ok("recall", "-u", default_user, "which tea do I like", "--tenant", default))
    assert [m["id"] for m in explicit["memories"]] == [memory["id"]]
    [elsewhere] = json_lines(ok("recall", "-u", default_user, "which tea do I like", "--tenant", module_tenant))
    assert elsewhere["memories"] == []  # another tenant's user of the same id has nothing

    result = cli("recall", "-u", default_user, "which tea do I like", "--tenant", "")
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.output
    assert "the tenant must not be empty" in result.stderr

    [receipt] = json_lines(ok("forget-user", "-u", default_user, "--yes"))
    assert (receipt["tenant"], receipt["user_id"], receipt["verified"]) == (default, default_user, True)
    assert receipt["remaining_nodes"] == 0
    after = cli("recall", "-u", default_user, "which tea do I like")
    assert after.exit_code == 0 and json_lines(after.stdout)[0]["memories"] == []
    assert after.stderr == f"note: no memories for user {default_user!r} under tenant {default!r} (the default); " \
        "pass --tenant\n"  # nothing left under the default tenant: said, on standard error
