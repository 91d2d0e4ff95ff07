"""`bmam remote` for an app's core calls against a running server (tests/conftest.py's live uvicorn, real
Neo4j): ingest a JSONL file in batches with each turn in its place, recall, the context prompt, remember."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.container import Container
from graph.episodes import EpisodeRepository
from graph.model import Scope
from tests.ops_support import free_port, served

runner = CliRunner()


def test_remote_ingest_recall_and_context(container: Container, api_url: str, api_key: str, api_tenant: str,
                                          tmp_path: Path) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}
    lines = [
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I live in Boston and I work at Moderna."},
        {"userId": user, "sessionId": "s1", "speaker": "assistant", "text": "Boston is lovely."},
        {"userId": user, "sessionId": "s1", "speaker": "narrator", "text": "bad speaker"},
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": "Big news: we moved to Seattle last month."},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "My daughter Lily is allergic to peanuts."},
    ]
    file = tmp_path / "conversation.jsonl"
    file.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")

    first = runner.invoke(cli_app, ["remote", "ingest", str(file), "--batch", "2"], env=env)
    assert first.exit_code == 2, first.output
    assert [ln.split(":")[0] for ln in first.stderr.splitlines()] == ["line 3"]
    assert first.stdout.strip() == ("5 lines: 4 turns stored, 0 already present, 3 memories created, 1 bad lines; "
                                    "5 turns sent in 3 requests")  # line 3 is sent: the server refuses its speaker
    # in their places across the requests of two turns: the bad line holds index 2 of s1, as `bmam ingest`
    episodes = EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(api_tenant, user), "s1", 9)
    assert [(e.turn, e.speaker) for e in episodes] == [(0, "user"), (1, "assistant"), (3, "user")]
    again = runner.invoke(cli_app, ["remote", "ingest", str(file)], env=env)
    assert "0 turns stored, 4 already present, 0 memories created" in again.stdout

    recalled = runner.invoke(cli_app, ["remote", "recall", "-u", user, "Where do I live?", "-k", "3"], env=env)
    assert recalled.exit_code == 0, recalled.output
    answer = json.loads(recalled.stdout)
    assert answer["gated"] is False
    texts = [m["memory"]["text"] for m in answer["memories"]]  # the answer first, Boston superseded
    assert texts[0] == "Big news: we moved to Seattle last month." and not any("Boston" in t for t in texts)

    prompt = runner.invoke(cli_app, ["remote", "context", "-u", user, "--session", "s1",
                                     "What should I cook for Lily?"], env=env)
    assert prompt.exit_code == 0, prompt.output
    assert "My daughter Lily is allergic to peanuts." in prompt.stdout and "Recent conversation:" in prompt.stdout

    stored = runner.invoke(cli_app, ["remote", "remember", "-u", user, "I prefer tea to coffee", "-t", "emotional"],
                           env=env)
    assert stored.exit_code == 0 and json.loads(stored.stdout)["type"] == "EMOTIONAL"
    refused = runner.invoke(cli_app, ["remote", "recall", "-u", user, "x", "-k", "0"], env=env)
    assert refused.exit_code == 2 and "BAD_USER_INPUT" in refused.output


# ----- request sizes: UTF-8 bodies, batches cut by bytes, 413 split and sent again, a stop's summary -----------

SMALL_BODY = 40_000  # the body limit of the server below (the default is 1 MiB)
SMALL_TURNS = 10  # the turns per request it takes


@pytest.fixture(scope="module")
def small_server(container: Container) -> Iterator[tuple[str, str, str]]:
    """A second bmam (the real app on the same Neo4j, its own container: the app closes it when it stops) that
    refuses bodies over SMALL_BODY bytes and requests of more than SMALL_TURNS turns: (url, key, tenant)."""
    from resolvers.app import create_app

    base = container.settings
    small = base.model_copy(update={
        "limits": base.limits.model_copy(update={"max_body_bytes": SMALL_BODY}),
        "ingest": base.ingest.model_copy(update={"max_turns_per_request": SMALL_TURNS})})
    own = Container(small)
    tenant = f"test-small-{uuid.uuid4().hex[:8]}"
    key = own.keys.create(tenant, "pytest").secret
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app, ws_max_size=SMALL_BODY) as url:
        yield url, key, tenant


def _cjk(n: int, tag: int) -> str:
    """n Chinese characters (3 bytes each in UTF-8, 6 as \\uXXXX escapes), distinct per tag."""
    return (f"第{tag}句" + "我住在成都喜欢喝茶" * n)[:n]


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def _stored(container: Container, tenant: str, user: str, session: str) -> list[tuple[int, str]]:
    episodes = EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(tenant, user), session,
                                                                                     50)
    return [(e.turn, e.text) for e in episodes]


def test_remote_ingest_cuts_requests_by_bytes_and_checks_each_line(
        container: Container, small_server: tuple[str, str, str], tmp_path: Path) -> None:
    url, key, tenant = small_server
    user = f"u-{uuid.uuid4().hex[:8]}"
    row = {"userId": user, "sessionId": "s1", "speaker": "assistant"}
    long_cjk = _cjk(10_000, 5)  # 30,000 bytes in UTF-8 (under the server's 40,000), 60,000 escaped (over)
    rows: list[dict[str, object]] = [
        {**row, "text": _cjk(3000, 1)}, {**row, "text": _cjk(3000, 2)}, {**row, "text": _cjk(3000, 3)},
        # in a session of their own: the unnumbered lines after a numbered one continue from it
        {**row, "sessionId": "s2", "text": "out of a GraphQL Int", "turn": 2**31},  # would fail its whole request
        {**row, "text": long_cjk},
        {**row, "text": '"' * 20_000},  # 40,000 bytes as JSON: over the budget alone, never sent
        {**row, "sessionId": "s2", "text": "the largest Int, over the server's last turn index", "turn": 2**31 - 1},
        {**row, "text": "short"},
    ]
    file = _write(tmp_path / "sized.jsonl", rows)
    result = runner.invoke(cli_app, ["remote", "ingest", str(file), "--batch-bytes", "32768", "--server", url,
                                     "--api-key", key])
    assert result.exit_code == 2, result.output
    errors = result.stderr.splitlines()
    assert errors[0] == "line 4: field 'turn' must be at most 2147483647 (got 2147483648)", errors
    assert errors[1].startswith("line 6: the turn alone makes a request of ") and errors[1].endswith(
        "bytes, over --batch-bytes 32768; not sent"), errors
    assert errors[2].startswith("line 7: [BAD_USER_INPUT] turn must be between 0 and"), errors
    assert len(errors) == 3 and "note:" not in result.stderr  # no request was refused as too large
    # [1-3] (28 KB), then [5, 7, 8] (31 KB: line 5 fits as UTF-8 only)
    assert result.stdout.strip() == ("8 lines: 5 turns stored, 0 already present, 0 memories created, 3 bad lines; "
                                     "6 turns sent in 2 requests")
    stored = _stored(container, tenant, user, "s1")
    assert [t for t, _ in stored] == [0, 1, 2, 3, 5]  # each in its place: line 5 is turn 3, line 8 turn 5
    assert stored[3][1] == long_cjk
    assert _stored(container, tenant, user, "s2") == []


def test_remote_ingest_splits_a_request_the_server_refuses_as_too_large(
        container: Container, small_server: tuple[str, str, str], tmp_path: Path) -> None:
    url, key, tenant = small_server
    user = f"u-{uuid.uuid4().hex[:8]}"
    row = {"userId": user, "sessionId": "s1", "speaker": "assistant"}
    rows: list[dict[str, object]] = [{**row, "text": _cjk(2000, i)} for i in range(8)]  # ~6 KB each
    rows.append({**row, "text": '"' * 30_000})  # 60 KB as JSON: over the server's limit alone
    file = _write(tmp_path / "big.jsonl", rows)
    env = {"BMAM_SERVER": url, "BMAM_API_KEY": key}
    # a budget over the server's limit: the one request of 9 turns (~110 KB) is refused (413) and split
    result = runner.invoke(cli_app, ["remote", "ingest", str(file), "--batch-bytes", "200000"], env=env)
    assert result.exit_code == 2, result.output
    notes = [ln for ln in result.stderr.splitlines() if ln.startswith("note:")]
    assert [n.split(" (")[0] for n in notes] == [
        "note: the server refused lines 1-9", "note: the server refused lines 5-9",
        "note: the server refused lines 7-9", "note: the server refused lines 8-9"], notes
    [bad] = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert bad.startswith("line 9: refused by the server as too large (the request body is over 40000 bytes)"), bad
    assert result.stdout.strip() == ("9 lines: 8 turns stored, 0 already present, 0 memories created, 1 bad lines; "
                                     "8 turns sent in 4 requests (4 split after HTTP 413)")
    assert _stored(container, tenant, user, "s1") == [(i, _cjk(2000, i)) for i in range(8)]


def test_remote_ingest_that_stops_says_what_was_stored_and_where(
        container: Container, small_server: tuple[str, str, str], tmp_path: Path) -> None:
    url, key, tenant = small_server
    user = f"u-{uuid.uuid4().hex[:8]}"
    row = {"userId": user, "sessionId": "s1", "speaker": "assistant"}
    rows: list[dict[str, object]] = [{**row, "text": _cjk(3000, i)} for i in range(3)]  # ~9 KB each
    rows += [{**row, "text": f"short {i}"} for i in range(3, 3 + SMALL_TURNS)]
    file = _write(tmp_path / "stops.jsonl", rows)
    args = ["remote", "ingest", str(file), "--server", url, "--api-key", key]
    # [1, 2] fit 20,000 bytes; then 11 turns, more than the server takes in one request: it stops there
    stopped = runner.invoke(cli_app, [*args, "--batch", "50", "--batch-bytes", "20000"])
    assert stopped.exit_code == 2, stopped.output
    assert stopped.stderr.strip() == f"error [LIMIT_EXCEEDED]: 11 turns in one request; the limit is {SMALL_TURNS}"
    assert stopped.stdout.splitlines() == [
        "13 lines: 2 turns stored, 0 already present, 0 memories created, 0 bad lines; 2 turns sent in 1 requests",
        "stopped at line 3: 11 turns from there on were not sent or not answered; run the same command again to "
        "send them (turns already stored count as already present)"]
    assert [t for t, _ in _stored(container, tenant, user, "s1")] == [0, 1]
    again = runner.invoke(cli_app, [*args, "--batch", str(SMALL_TURNS)])
    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == ("13 lines: 11 turns stored, 2 already present, 0 memories created, 0 bad lines; "
                                    "13 turns sent in 2 requests")
    assert [t for t, _ in _stored(container, tenant, user, "s1")] == list(range(13))


def test_remote_ingest_to_a_server_it_cannot_reach_sends_nothing_and_says_so(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    rows: list[dict[str, object]] = [{"userId": "u", "sessionId": "s1", "speaker": "user", "text": f"hi {i}"}
                                     for i in range(3)]
    file = tmp_path / "unreached.jsonl"
    file.write_text(json.dumps(rows[0]) + "\n{not json\n" + "\n".join(json.dumps(r) for r in rows[1:]) + "\n",
                    encoding="utf-8")
    result = runner.invoke(cli_app, ["remote", "ingest", str(file), "--server", f"http://127.0.0.1:{port}"])
    assert result.exit_code == 1, result.output
    errors = result.stderr.splitlines()
    assert errors[0].startswith("line 2: malformed JSON") and errors[1].startswith(
        f"cannot reach http://127.0.0.1:{port}: "), errors
    assert result.stdout.splitlines() == [
        "4 lines: 0 turns stored, 0 already present, 0 memories created, 1 bad lines; 0 turns sent in 0 requests",
        "stopped at line 1: 3 turns from there on were not sent or not answered; run the same command again to "
        "send them (turns already stored count as already present)"]


def test_remote_triples_and_associations(api_url: str, api_key: str) -> None:
    """`bmam remote` reaches a memory's links as the local CLI does: add and list triples, set, list and remove
    associations; a foreign memory is NOT_FOUND with a one-line error and exit 1."""
    user = f"u-{uuid.uuid4().hex[:8]}"
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}

    def call(*args: str) -> str:
        out = runner.invoke(cli_app, ["remote", *args], env=env)
        assert out.exit_code == 0, out.output
        return str(out.stdout)

    a = json.loads(call("remember", "-u", user, "Biscuit is my dog"))["id"]
    b = json.loads(call("remember", "-u", user, "Biscuit loves tennis balls"))["id"]
    added = json.loads(call("add-triple", "-u", user, a, "Biscuit", "is_a", "dog", "--negated"))
    assert (added["predicate"], added["polarity"], added["object"]["name"]) == ("is_a", -1, "dog")
    assert [json.loads(x)["id"] for x in call("triples", "-u", user, a).splitlines()] == [added["id"]]
    assert json.loads(call("associate", "-u", user, a, b, "--strength", "0.9"))["strength"] == 0.9
    assert [json.loads(x)["strength"] for x in call("associations", "-u", user, b).splitlines()] == [0.9]
    assert json.loads(call("dissociate", "-u", user, b, a)) == {"memoryA": b, "memoryB": a, "removed": True}
    assert call("associations", "-u", user, a) == ""
    foreign = runner.invoke(cli_app, ["remote", "dissociate", "-u", "someone-else", a, b], env=env)
    assert foreign.exit_code == 1 and "NOT_FOUND" in foreign.stderr and "Traceback" not in foreign.output
    fixed = json.loads(call("correct", "-u", user, b, "Biscuit loves squeaky toys", "--type", "emotional"))
    assert (fixed["corrected"]["id"], fixed["memory"]["text"], fixed["memory"]["type"]) == (
        b, "Biscuit loves squeaky toys", "EMOTIONAL")
    again = runner.invoke(cli_app, ["remote", "correct", "-u", user, b, "Biscuit loves sticks"], env=env)
    assert again.exit_code == 1 and "CONFLICT" in again.stderr and "Traceback" not in again.output


def _remote(env: dict[str, str], *args: str, code: int = 0) -> str:
    """One `bmam remote` command that must exit with `code`: its standard output, or its error line."""
    result = runner.invoke(cli_app, ["remote", *args], env=env)
    assert result.exit_code == code, result.output
    return result.stdout if code == 0 else result.stderr


def test_remote_forgets_locks_unlocks_and_reacts_to_one_memory(container: Container, api_url: str, api_key: str,
                                                              api_tenant: str) -> None:
    """remote had forget-user but no way to forget, protect or react to one memory (the CLI's forget, lock,
    unlock, react, feedback); the refusal to forget a locked memory names this command's --confirm."""
    user = f"u-{uuid.uuid4().hex[:8]}"
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}

    def remote(*args: str, code: int = 0) -> str:
        return _remote(env, *args, code=code)

    memory = json.loads(remote("remember", "-u", user, "I keep my passport in the blue folder"))
    assert json.loads(remote("react", "-u", user, memory["id"], "engaged"))["memory"]["tier"] == "MID"
    liked = json.loads(remote("feedback", "-u", user, memory["id"], "like"))
    assert liked["id"] == memory["id"]
    assert json.loads(remote("lock", "-u", user, memory["id"]))["locked"] is True
    refused = remote("forget", "-u", user, memory["id"], code=1)
    assert refused.startswith("error [CONFLICT]:") and "--confirm" in refused and "confirm: true" not in refused
    assert json.loads(remote("lock", "-u", user, memory["id"]))["tier"] == "CORE"  # locked already: as it is
    assert json.loads(remote("unlock", "-u", user, memory["id"]))["tier"] == "MID"
    assert json.loads(remote("forget", "-u", user, memory["id"]))["forgotten"] is True
    assert container.memories.get(api_tenant, user, memory["id"]) is None
    # remember takes the tier as the CLI's does (it had no --tier), in any case
    placed = json.loads(remote("remember", "-u", user, "My blood type is A positive", "--tier", "CORE"))
    assert (placed["tier"], placed["locked"]) == ("CORE", True)


def test_remote_conflicts_resolve_history_and_working_memory(container: Container, api_url: str, api_key: str,
                                                             api_tenant: str) -> None:
    """The review queue, history and working memory over GraphQL, as the CLI's (remote had none of them)."""
    from ingest.turns import TurnInput

    user = f"u-{uuid.uuid4().hex[:8]}"
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}

    def remote(*args: str, code: int = 0) -> str:
        return _remote(env, *args, code=code)

    ids = []
    for city in ("Lisbon", "Porto"):  # the server's strategy (LATEST): Porto supersedes Lisbon
        memory = json.loads(remote("remember", "-u", user, f"I live in {city}"))
        remote("add-triple", "-u", user, memory["id"], "user", "lives_in", city)
        ids.append(memory["id"])
    assert remote("conflicts", "-u", user) == ""  # nothing held for review
    [settled] = [json.loads(x) for x in remote("conflicts", "-u", user, "--all").splitlines()]
    assert settled["status"] == "RESOLVED"
    refused = remote("resolve", "-u", user, settled["id"], ids[0], code=1)
    assert refused.startswith("error [CONFLICT]:") and "already resolved" in refused
    history = [json.loads(x) for x in remote("history", "-u", user, "--memory", ids[1]).splitlines()]
    assert {h["memory"]["id"] for h in history} == set(ids)
    for turn, text in enumerate(("Hi there", "I just got back from the market")):
        container.ingest.ingest_turn(api_tenant, TurnInput(user_id=user, session_id="s1", speaker="user", text=text,
                                                           turn=turn))
    newest = [json.loads(x) for x in remote("working-memory", "-u", user, "s1", "-n", "1").splitlines()]
    assert [t["text"] for t in newest] == ["I just got back from the market"]
