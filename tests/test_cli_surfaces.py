"""Every GraphQL operation reachable from `bmam remote` as from the local CLI (helper B35's audit): related
memories and the export, the tiers, conflict checks, maintenance and one memory, each against a live server
(tests/conftest.py's uvicorn on the real Neo4j) with a success and a bad-input path: bad input is one line on
standard error and a non-zero exit (2 for BAD_USER_INPUT), never a traceback."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.container import Container

runner = CliRunner()


def _env(api_url: str, api_key: str) -> dict[str, str]:
    return {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}


def remote(env: dict[str, str], *args: str, code: int = 0) -> str:
    """One `bmam remote` command that must exit with `code`: its standard output, or its one error line."""
    result = runner.invoke(cli_app, ["remote", *args], env=env)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    if code == 0:
        return str(result.stdout)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and result.stdout == "", result.output
    return lines[0]


def test_remote_related_follows_an_association_and_refuses_depth_6(api_url: str, api_key: str) -> None:
    """remote had no relatedSearch (the client hard-coded depth 2, limit 20): depth, limit and min strength go
    to the server as given, which refuses a depth outside 1..5 as it does for the API and `bmam related`."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    dog = json.loads(remote(env, "remember", "-u", user, "Biscuit is my dog"))["id"]
    kettle = json.loads(remote(env, "remember", "-u", user, "I bought a red kettle"))["id"]
    assert remote(env, "related", "-u", user, dog) == ""  # nothing links them yet
    remote(env, "associate", "-u", user, dog, kettle, "--strength", "0.6")
    [found] = [json.loads(x) for x in remote(env, "related", "-u", user, dog, "--depth", "5").splitlines()]
    assert (found["id"], found["score"]) == (kettle, 0.6)
    assert found["path"] == [{"from": dog, "to": kettle, "via": "ASSOCIATED", "strength": 0.6, "entity": None}]
    assert remote(env, "related", "-u", user, dog, "--min-strength", "0.7") == ""  # the edge is weaker
    assert remote(env, "related", "-u", user, dog, "--depth", "6", code=2) == \
        "error [BAD_USER_INPUT]: depth must be between 1 and 5, got 6"
    assert remote(env, "related", "-u", user, "no-such-memory", code=1) == \
        "error [NOT_FOUND]: memory no-such-memory not found"


def test_remote_export_streams_what_the_local_export_writes(container: Container, api_url: str, api_key: str,
                                                            api_tenant: str, tmp_path: Path) -> None:
    """remote had no export: GET /export streamed to standard output or a file, the bytes `bmam export`
    writes; an unknown format is refused before anything is sent, an unknown user is NOT_FOUND."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    remote(env, "remember", "-u", user, "我住在成都")
    local = b"".join(container.export.export_rdf(api_tenant, user, "nt"))
    out = runner.invoke(cli_app, ["remote", "export", "-u", user, "-f", "n-triples"], env=env)
    assert out.exit_code == 0, out.output
    assert out.stdout_bytes == local and "我住在成都" in out.stdout
    target = tmp_path / "alice.graphml"
    written = runner.invoke(cli_app, ["remote", "export", "-u", user, "-f", "graphml", "-o", str(target)], env=env)
    assert written.exit_code == 0, written.output
    assert written.stderr.startswith(f"wrote {target} (") and b"<graphml" in target.read_bytes()
    assert remote(env, "export", "-u", user, "-f", "docx", code=2) == \
        "unknown format 'docx'; one of ttl, nt, jsonld, rdf (RDF/XML), graphml or gexf"
    missing = tmp_path / "nobody.ttl"
    assert remote(env, "export", "-u", f"{user}-nobody", "-o", str(missing), code=1).startswith("error [NOT_FOUND]:")
    assert not missing.exists() and list(tmp_path.iterdir()) == [target]  # no half file left


def test_remote_one_memory_one_conflict_and_check_conflicts(api_url: str, api_key: str) -> None:
    """remote could list memories and conflicts but not read one by its id, nor run checkConflicts: a null
    answer is NOT_FOUND (exit 1) as the local commands say it, a bad strategy BAD_USER_INPUT (exit 2)."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    ids = []
    for city in ("Lisbon", "Porto"):  # the server's strategy (LATEST): Porto supersedes Lisbon
        ids.append(json.loads(remote(env, "remember", "-u", user, f"I live in {city}"))["id"])
        remote(env, "add-triple", "-u", user, ids[-1], "user", "lives_in", city)
    shown = json.loads(remote(env, "memory", "-u", user, ids[0]))
    assert (shown["id"], shown["text"], shown["validTo"] is not None) == (ids[0], "I live in Lisbon", True)
    assert remote(env, "memory", "-u", user, "no-such-memory", code=1) == \
        "error [NOT_FOUND]: memory no-such-memory not found"
    [settled] = [json.loads(x) for x in remote(env, "conflicts", "-u", user, "--all").splitlines()]
    assert json.loads(remote(env, "conflict", "-u", user, settled["id"]))["winnerId"] == ids[1]
    assert remote(env, "conflict", "-u", f"{user}-other", settled["id"], code=1) == \
        f"error [NOT_FOUND]: conflict {settled['id']} not found"
    again = [json.loads(x) for x in remote(env, "check-conflicts", "-u", user, ids[1], "--strategy",
                                           "review").splitlines()]
    assert all(c["oldMemory"]["id"] != ids[1] for c in again)
    assert remote(env, "check-conflicts", "-u", user, ids[1], "--strategy", "loudest", code=2).startswith(
        "error [BAD_USER_INPUT]:")


def test_remote_tiers_usage_and_sweep(api_url: str, api_key: str) -> None:
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    remote(env, "remember", "-u", user, "My blood type is A positive", "--tier", "core")
    usage = json.loads(remote(env, "tiers", "usage", "-u", user))
    assert (usage["temp"], usage["mid"], usage["core"]) == (0, 0, 1) and usage["coreCapacity"] > 0
    result = runner.invoke(cli_app, ["remote", "tiers", "sweep", "-u", user], env=env)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "0 changes\n"), result.output
    assert remote(env, "tiers", "usage", "-u", " ", code=2).startswith("error [BAD_USER_INPUT]:")


def test_remote_maintain_changesets_check_and_undo(api_url: str, api_key: str) -> None:
    """runMaintenance, undoMaintenance, changesets, changeset from the shell: the flags of `bmam maintain`
    (one kind, or --undo alone: refused before anything is sent), the changeset as the API answers it."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    remote(env, "remember", "-u", user, "I keep my passport in the blue folder")
    run = json.loads(remote(env, "maintain", "--rebalance", "--user", user))
    assert (run["kind"], run["userId"], run["dryRun"], run["undone"]) == ("REBALANCE", user, False, False)
    listed = [json.loads(x)["id"] for x in remote(env, "changesets", "--user", user).splitlines()]
    assert listed == [run["id"]]
    assert json.loads(remote(env, "changeset", run["id"]))["id"] == run["id"]
    assert remote(env, "changeset", "no-such-changeset", code=1) == \
        "error [NOT_FOUND]: unknown changeset no-such-changeset"
    assert remote(env, "maintain", "--undo", run["id"], "--user", user, code=2) == (
        "--undo takes no other maintenance option (got --user); it undoes the whole changeset, in the tenant "
        "given by your API key")
    assert remote(env, "maintain", "--decay", "--full", code=2) == \
        "choose one of --full, --rebalance, --decay (or --undo ID)"
    assert json.loads(remote(env, "maintain", "--undo", run["id"]))["undone"] is True
    assert remote(env, "maintain", "--undo", run["id"], code=1).startswith("error [CONFLICT]: changeset ")
    checked = runner.invoke(cli_app, ["remote", "check", "--user", user], env=env)
    report = json.loads(checked.stdout)
    assert checked.exit_code == (0 if report["healthy"] else 1) and report["coreMemories"] == 0


def test_remote_keys_list_create_and_revoke(api_url: str, api_key: str) -> None:
    """apiKeys, createApiKey, revokeApiKey: an admin key makes an app key (the secret alone on standard
    output), which may not manage keys (FORBIDDEN, exit 1); the admin key revokes it."""
    env = _env(api_url, api_key)
    name = f"cli-{uuid.uuid4().hex[:6]}"
    made = runner.invoke(cli_app, ["remote", "keys", "create", "--name", name], env=env)
    assert made.exit_code == 0, made.output
    secret = made.stdout.strip()
    assert secret.startswith("bmam_") and "app key" in made.stderr
    [mine] = [k for k in map(json.loads, remote(env, "keys", "list").splitlines()) if k["name"] == name]
    assert mine["admin"] is False
    app_env = _env(api_url, secret)
    assert remote(app_env, "keys", "list", code=1).startswith("error [FORBIDDEN]:")
    assert json.loads(remote(env, "keys", "revoke", mine["id"]))["revokedAt"] is not None
    assert remote(env, "keys", "revoke", "no-such-key", code=2).startswith("error [BAD_USER_INPUT]: id: that is not an "
                                                                          "API key id")


def test_local_memory_conflict_and_changeset(container: Container, tenant: str) -> None:
    """The local CLI could not read one memory, one conflict or one changeset by id (GraphQL's memory,
    conflict, changeset): JSON on success, NOT_FOUND (exit 1) for an id the user or tenant does not have."""
    user = "reader"
    base = ["-u", user, "--tenant", tenant]

    def local(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli_app, list(args))
        assert result.exit_code == code, result.output
        assert "Traceback" not in result.output
        return str(result.stdout if code == 0 else result.stderr.strip())

    try:
        ids = []
        for city in ("Lisbon", "Porto"):
            ids.append(json.loads(local("remember", *base, f"I live in {city}"))["id"])
            local("add-triple", *base, ids[-1], "user", "lives_in", city)
        assert json.loads(local("memory", *base, ids[1]))["text"] == "I live in Porto"
        assert local("memory", *base, "nope", code=1) == "error [NOT_FOUND]: memory nope not found"
        assert local("memory", *base, "", code=2).startswith("error [BAD_USER_INPUT]:")
        [settled] = [json.loads(x) for x in local("conflicts", *base, "--all").splitlines()]
        assert json.loads(local("conflict", *base, settled["id"]))["winner"] == ids[1]
        assert local("conflict", *base, "nope", code=1) == "error [NOT_FOUND]: conflict nope not found"
        run = json.loads(local("maintain", "--decay", "--json", *base))
        assert json.loads(local("changeset", run["id"], "--json", "--tenant", tenant))["id"] == run["id"]
        assert local("changeset", run["id"], "--tenant", tenant).startswith("decay of tenant ")
        assert local("changeset", "nope", "--tenant", tenant, code=1) == "error [NOT_FOUND]: unknown changeset nope"
    finally:
        container.erasure.forget_user(tenant, user, confirm=True)


def test_memories_page_on_with_after_and_show_history(container: Container, tenant: str, api_url: str,
                                                      api_key: str) -> None:
    """memories' after and includeHistory (a page holds at most 100: the CLI reached no memory past the
    first page): the next page's cursor on standard error, locally and over remote; a bad cursor is refused."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    ids = []
    for city in ("Lisbon", "Porto", "Faro"):
        ids.append(json.loads(remote(env, "remember", "-u", user, f"I live in {city}"))["id"])
        remote(env, "add-triple", "-u", user, ids[-1], "user", "lives_in", city)
    pet = json.loads(remote(env, "add-triple", "-u", user, ids[2], "Biscuit", "is_a", "dog", "--subject-kind", "pet",
                            "--object-kind", "animal"))
    assert (pet["subject"]["kind"], pet["object"]["kind"]) == ("pet", "animal")
    first = runner.invoke(cli_app, ["remote", "memories", "-u", user, "--first", "1", "--include-history"], env=env)
    assert first.exit_code == 0, first.output
    assert [json.loads(x)["id"] for x in first.stdout.splitlines()] == [ids[2]]
    [note] = first.stderr.splitlines()
    assert note.startswith("more: --after ")
    rest = runner.invoke(cli_app, ["remote", "memories", "-u", user, "--include-history", "--after",
                                   note.removeprefix("more: --after ")], env=env)
    assert [json.loads(x)["id"] for x in rest.stdout.splitlines()] == [ids[1], ids[0]] and rest.stderr == ""
    assert [json.loads(x)["id"] for x in remote(env, "memories", "-u", user).splitlines()] == [ids[2]]  # live only
    assert remote(env, "memories", "-u", user, "--after", "not-a-cursor", code=2).startswith("error [BAD_USER_INPUT]:")

    base = ["-u", "pager", "--tenant", tenant]
    try:
        local_ids = [json.loads(runner.invoke(cli_app, ["remember", *base, f"note {n}"]).stdout)["id"]
                     for n in range(3)]
        page = runner.invoke(cli_app, ["memories", *base, "--first", "2"])
        assert [json.loads(x)["id"] for x in page.stdout.splitlines()] == local_ids[:0:-1]
        cursor = page.stderr.strip().removeprefix("more: --after ")
        last = runner.invoke(cli_app, ["memories", *base, "--after", cursor])
        assert [json.loads(x)["id"] for x in last.stdout.splitlines()] == local_ids[:1] and last.stderr == ""
        bad = runner.invoke(cli_app, ["memories", *base, "--after", "not-a-cursor"])
        assert bad.exit_code == 2 and bad.stderr.startswith("error [BAD_USER_INPUT]:") and bad.stdout == ""
    finally:
        container.erasure.forget_user(tenant, "pager", confirm=True)


def test_remote_remember_recall_and_context_take_the_api_s_arguments(api_url: str, api_key: str) -> None:
    """remote remember's preset kind, session and device, recall's types, tiers, minScore, includeHistory and
    asOf, context's whole answer (--json): arguments the API and `bmam` took and remote did not."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    safe = json.loads(remote(env, "remember", "-u", user, "I am allergic to penicillin", "--preset", "safety",
                             "--session", "s1", "--device", "phone"))
    assert (safe["presetKind"], safe["weight"]["preset"], safe["source"]["sessionId"], safe["source"]["deviceId"]) \
        == ("SAFETY", 1.0, "s1", "phone")
    remote(env, "remember", "-u", user, "I love hiking in the Alps", "-t", "emotional")
    answer = json.loads(remote(env, "recall", "-u", user, "What am I allergic to?", "--type", "factual"))
    assert [m["memory"]["id"] for m in answer["memories"]] == [safe["id"]]
    assert json.loads(remote(env, "recall", "-u", user, "What am I allergic to?", "--tier", "core"))["memories"] == []
    before = json.loads(remote(env, "recall", "-u", user, "What am I allergic to?", "--as-of",
                               "2001-01-01T00:00:00+00:00", "--include-history"))
    assert before["memories"] == []
    assert remote(env, "recall", "-u", user, "allergy", "--min-score", "2", code=2).startswith(
        "error [BAD_USER_INPUT]:")
    prompt = json.loads(remote(env, "context", "-u", user, "--session", "s1", "--json", "Can I take antibiotics?"))
    assert "penicillin" in prompt["text"] and safe["id"] in [m["memory"]["id"] for m in prompt["memories"]]
    assert remote(env, "context", "-u", user, "--session", "s1", "--json", "--budget", "5", "hi", code=2) == \
        "error [BAD_USER_INPUT]: budget must be at least 100 characters"


def test_ingest_turn_locally_and_remotely(container: Container, tenant: str, api_url: str, api_key: str) -> None:
    """ingestTurn from the shell (a file of one line was the only way): the turn's result as JSON, a retry
    changes nothing; a bad speaker or a time ahead of the clock is BAD_USER_INPUT, exit 2, nothing stored."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    said = json.loads(remote(env, "ingest-turn", "-u", user, "-s", "s1", "--speaker", "user",
                             "My daughter Lily is allergic to peanuts.", "--device", "phone"))
    assert (said["stored"], said["duplicate"], said["turn"], said["remembered"]) == (True, False, 0, True)
    [memory] = said["memories"]
    assert memory["source"]["deviceId"] == "phone"
    again = json.loads(remote(env, "ingest-turn", "-u", user, "-s", "s1", "--speaker", "user",
                              "My daughter Lily is allergic to peanuts."))
    assert again["duplicate"] is True and again["memories"] == []
    assert remote(env, "ingest-turn", "-u", user, "-s", "s1", "--speaker", "narrator", "hi", code=2).startswith(
        "error [BAD_USER_INPUT]: speaker 'narrator' is not one of ")
    assert remote(env, "ingest-turn", "-u", user, "-s", "s1", "--speaker", "user", "hi", "--at",
                  "2999-01-01T00:00:00", code=2).startswith("error [BAD_USER_INPUT]: ")

    base = ["-u", "talker", "--tenant", tenant]
    try:
        result = runner.invoke(cli_app, ["ingest-turn", *base, "-s", "s1", "--speaker", "assistant",
                                         "Chengdu hotpot is famous!", "--turn", "3", "--at", "2026-01-02T10:00:00"])
        assert result.exit_code == 0, result.output
        done = json.loads(result.stdout)
        assert (done["stored"], done["turn"], done["remembered"], done["memories"]) == (True, 3, False, [])
        [held] = container.ingest.working_memory(tenant, "talker", "s1", None)
        assert (held.turn, held.at.isoformat()) == (3, "2026-01-02T10:00:00+00:00")  # no zone: UTC
        bad = runner.invoke(cli_app, ["ingest-turn", *base, "-s", "s1", "--speaker", "narrator", "hi"])
        assert bad.exit_code == 2 and bad.stdout == ""
        assert bad.stderr.strip().startswith("error [BAD_USER_INPUT]: speaker 'narrator' is not one of")
    finally:
        container.erasure.forget_user(tenant, "talker", confirm=True)
