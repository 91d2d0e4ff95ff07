"""Edges of the input a fuzz pass found: each is refused with a coded error (a CLI message and exit 2),
checked before anything is written, never a stack trace or a half-written memory; and what was stored
before the checks existed still exports as well-formed XML."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import httpx
import pytest
from neo4j import GraphDatabase
from typer.testing import CliRunner

from bmam import validate
from bmam.cli import app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.settings import PROJECT_ROOT, Settings
from graph.errors import BadInput, Conflict, NotFound
from graph.graph_export import GraphFormat
from graph.paging import decode_cursor
from ingest.turns import parse_line

runner = CliRunner()

INGEST = ("mutation($u: String!, $s: String!, $t: String!, $n: Int) {"
          " ingestTurn(userId: $u, sessionId: $s, speaker: \"user\", text: $t, turn: $n) {"
          " stored turn memories { id source { turn } } } }")
WORKING = "query($u: String!, $s: String!) { workingMemory(userId: $u, sessionId: $s) { turns { turn text } } }"


def _user() -> str:
    return f"edge-{uuid.uuid4().hex[:10]}"


def _refusal(c: BmamClient, doc: str, variables: dict[str, Any] | None = None) -> tuple[str, str, str | None]:
    """(code, message, field) of the error a document gets."""
    with pytest.raises(BmamClientError) as err:
        c.execute(doc, variables)
    ext = (err.value.errors[0].get("extensions") or {}) if err.value.errors else {}
    return err.value.code, err.value.message, ext.get("field")


def _clean_exit(result: Any, code: int = 2) -> None:
    """The CLI answered with a message and the exit status, not a traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


@pytest.fixture
def driver(settings: Settings) -> Iterator[Any]:
    """A plain driver for writing what older versions let in (data the checks now refuse)."""
    n = settings.neo4j
    d = GraphDatabase.driver(n.bolt_uri, auth=(n.user, n.password) if n.password else None)
    yield d
    d.close()


# ----- 1. turn indexes fit the GraphQL Int ---------------------------------------------------------


def test_a_turn_index_must_leave_every_stored_turn_within_graphql_int(client: BmamClient) -> None:
    user = _user()
    code, _, field = _refusal(client, INGEST, {"u": user, "s": "s1", "t": "I like green tea", "n": 2**31 - 1})
    assert (code, field) == ("BAD_USER_INPUT", "turn")
    last = 2**31 - 2
    stored = client.execute(INGEST, {"u": user, "s": "s1", "t": "I like green tea", "n": last})["ingestTurn"]
    assert stored["turn"] == last and stored["stored"]
    # an append after it would be turn 2^31 - 1: refused before anything is written
    code, message, field = _refusal(client, INGEST, {"u": user, "s": "s1", "t": "My sister lives in Berlin"})
    assert (code, field) == ("BAD_USER_INPUT", "turn"), message
    # the user's reads still work, and hold only the first turn
    turns = client.execute(WORKING, {"u": user, "s": "s1"})["workingMemory"]["turns"]
    assert [t["turn"] for t in turns] == [last]
    page = client.memories(user)
    assert [e["node"]["source"]["turn"] for e in page["edges"]] == [last]
    # a retry of the last turn is still recognised (it writes nothing new)
    again = client.execute(INGEST, {"u": user, "s": "s1", "t": "I like green tea"})["ingestTurn"]
    assert again["turn"] == last


# ----- 2. control and invisible characters --------------------------------------------------------


def test_text_refuses_control_characters_but_keeps_tabs_and_newlines() -> None:
    # C1 controls and the noncharacters U+FFFE / U+FFFF too: they were stored, and broke the RDF/XML download
    for bad in ("a\x01b", "a\x1bb", "a\x7fb", "a\x0bb", "a\x00b", "a\x85b", "a\x9fb", "a\ufffeb", "a\uffffb"):
        with pytest.raises(BadInput) as err:
            validate.text(bad, field="text", max_bytes=100)
        assert err.value.field == "text"
    assert validate.text(" a\tb\r\nc ", field="text", max_bytes=100) == "a\tb\r\nc"


@pytest.mark.parametrize("value", ["a\tb", "a\nb", "a\rb", "a\x01b", "a\x85b", "a\u200bb", "a\u200fb",
                                   "a\u202eb", "a\u2066b", "a\u2069b", "\ufeffa", "a\uffffb", "a\ufffeb"])
def test_identifiers_refuse_every_control_and_invisible_direction_character(value: str) -> None:
    with pytest.raises(BadInput) as err:
        validate.identifier(value, field="userId")
    assert err.value.field == "userId"


def test_identifiers_keep_ordinary_text() -> None:
    assert validate.identifier(" 张三 o'brien-1 ", field="userId") == "张三 o'brien-1"


def test_identifiers_keep_the_joiners_names_and_emoji_need(container: Container, tenant: str) -> None:
    """U+200C (Persian, Indic names) and U+200D (emoji sequences) are letters of a name, not formatting:
    such a user can be written, read and erased."""
    from bmam.usecases.memories import RememberRequest

    for user in ("محمد‌رضا", "fam👨‍👩‍👧"):
        assert validate.identifier(user, field="userId") == user
        container.memories.remember(tenant, RememberRequest(user_id=user, text="I like tea", type="FACTUAL"))
        assert [m.text for m in container.memories.page(tenant, user).items] == ["I like tea"]
        assert container.erasure.forget_user(tenant, user, confirm=True).remaining_nodes == 0


def test_remember_refuses_a_control_character_in_text_and_user(client: BmamClient) -> None:
    doc = "mutation($i: RememberInput!) { remember(input: $i) { id } }"
    user = _user()
    for variables, field in (({"userId": user, "text": "a\u0001b", "type": "FACTUAL"}, "text"),
                             ({"userId": user + "\u200b", "text": "ok", "type": "FACTUAL"}, "userId")):
        code, _, got = _refusal(client, doc, {"i": variables})
        assert (code, got) == ("BAD_USER_INPUT", field)
    assert client.memories(user)["edges"] == []


@pytest.mark.parametrize("fmt", list(GraphFormat))
def test_graph_exports_stay_well_formed_xml_with_control_characters_stored_earlier(
        container: Container, tenant: str, driver: Any, fmt: GraphFormat) -> None:
    m = container.memories.remember(tenant, _remember("alice", "I like green tea"))
    container.memories.add_triple(tenant, "alice", memory_id=m.id, subject="user", predicate="likes",
                                  object_="green tea")
    # what an older version let in: C0 controls, a noncharacter, a lone surrogate is impossible in Neo4j
    driver.execute_query(
        "MATCH (m:Memory {id: $id}) SET m.text = $text "
        "WITH m MATCH ()-[t:TRIPLE {memory_id: $id}]->() SET t.predicate = $pred",
        {"id": m.id, "text": "a\x01b\x1bc\x7f d\ufffe e\x0b", "pred": "li\x02kes"})
    data = container.export.export_graph(tenant, "alice", fmt)
    root = ET.fromstring(data)  # raises on a character XML 1.0 cannot hold
    assert root is not None
    assert b"\x01" not in data and b"\x02" not in data and b"\x1b" not in data
    assert "a\ufffdb\ufffdc".encode() in data  # each one replaced, the rest of the text kept


def _remember(user: str, text: str) -> Any:
    from bmam.usecases.memories import RememberRequest

    return RememberRequest(user_id=user, text=text, type="FACTUAL")


# ----- 3. times outside years 1..9999 in UTC -----------------------------------------------------------


@pytest.mark.parametrize("at", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-01:00"])
def test_recall_as_of_out_of_range_is_bad_input(client: BmamClient, at: str) -> None:
    doc = "query($u: String!, $a: DateTime) { recall(userId: $u, query: \"green tea\", asOf: $a) { gated } }"
    code, message, field = _refusal(client, doc, {"u": _user(), "a": at})
    assert (code, field) == ("BAD_USER_INPUT", "asOf")
    assert message == "asOf is out of range: years 1 to 9999 in UTC"


def test_ingest_at_out_of_range_uses_the_same_check(client: BmamClient) -> None:
    doc = ("mutation($u: String!, $a: DateTime) { ingestTurn(userId: $u, sessionId: \"s\", speaker: \"user\","
           " text: \"I like tea\", at: $a) { stored } }")
    code, message, field = _refusal(client, doc, {"u": _user(), "a": "9999-12-31T23:59:59-01:00"})
    assert (code, field, message) == ("BAD_USER_INPUT", "at", "at is out of range: years 1 to 9999 in UTC")


def test_the_time_check_is_one_helper() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    fine = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=8)))
    assert validate.moment(fine, field="asOf") == fine.astimezone(UTC)
    assert validate.moment(datetime(2026, 1, 2), field="at").tzinfo is UTC  # no zone: UTC
    for bad in (datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))),
                datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-1)))):
        with pytest.raises(BadInput) as err:
            validate.moment(bad, field="asOf")
        assert err.value.message == "asOf is out of range: years 1 to 9999 in UTC" and err.value.field == "asOf"


def test_cli_recall_as_of_out_of_range(container: Container, tenant: str) -> None:
    result = runner.invoke(app, ["recall", "-u", "alice", "green tea", "--as-of", "0001-01-01T00:00:00+05:00",
                                 "--tenant", tenant])
    _clean_exit(result)
    assert "asOf is out of range" in result.output


# ----- 4. forged cursors --------------------------------------------------------------------------------


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode("utf-8", "surrogatepass")).decode().rstrip("=")


FORGED = ['["0001-01-01T00:00:00+05:00","m_x"]', '["9999-12-31T23:59:59-01:00","m_x"]',
          '["2026-12-02T01:00:00+00:00","\\ud800"]', '["2026-12-02T01:00:00+00:00",["m_x"]]',
          '["2026-12-02T01:00:00+00:00"]', "[" * 100_000 + "]" * 100_000, '{"a": 1}']


@pytest.mark.parametrize("raw", FORGED, ids=range(len(FORGED)))
def test_a_forged_cursor_is_an_invalid_cursor(raw: str) -> None:
    with pytest.raises(BadInput) as err:
        decode_cursor(_cursor(raw))
    assert (err.value.message, err.value.field) == ("invalid cursor", "after")


@pytest.mark.parametrize("raw", FORGED[:3], ids=range(3))
def test_a_forged_cursor_over_the_api(client: BmamClient, raw: str) -> None:
    doc = "query($u: String!, $a: String) { memories(userId: $u, after: $a) { edges { cursor } } }"
    assert _refusal(client, doc, {"u": _user(), "a": _cursor(raw)}) == ("BAD_USER_INPUT", "invalid cursor", "after")


# ----- 5. the CLI: ingest lines that break the JSON parser, remote settings --------------------------------


def test_a_line_too_deep_or_with_a_huge_number_is_one_bad_line(container: Container, tenant: str,
                                                              tmp_path: Path) -> None:
    good = json.dumps({"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "I like green tea"})
    deep = "[" * 100_000 + "]" * 100_000
    huge = '{"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "x", "turn": ' + "9" * 5000 + "}"
    file = tmp_path / "f.jsonl"
    file.write_text("\n".join([good, deep, huge]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    _clean_exit(result)
    bad = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert [ln.split(":")[0] for ln in bad] == ["line 2", "line 3"], bad
    assert "1 turns stored" in result.stdout
    assert [m.text for m in container.memories.page(tenant, "alice").items] == ["I like green tea"]


def test_parse_line_never_raises() -> None:
    assert parse_line("[" * 100_000, 1).error
    assert parse_line("1" * 5000, 1).error
    assert parse_line('{"turn": ' + "1" * 5000 + "}", 7).line_no == 7


@pytest.mark.parametrize("args", [["--server", "not a url"], ["--server", "ftp://example.com"],
                                  ["--server", "http://"], ["--api-key", "a\r\nX: 1"],
                                  ["--api-key", "key\x00"], ["--api-key", "clé"]])
def test_remote_settings_are_checked_with_a_message(args: list[str]) -> None:
    base = {"--server": "http://127.0.0.1:9", "--api-key": "bmam_x"}
    for i in range(0, len(args), 2):
        base[args[i]] = args[i + 1]
    result = runner.invoke(app, ["remote", "whoami", *[x for kv in base.items() for x in kv]])
    _clean_exit(result)
    assert ("--server" in result.output) or ("--api-key" in result.output)
    assert "X: 1" not in result.output  # the key itself is never echoed


def test_the_client_refuses_a_bad_config() -> None:
    from bmam.client import ClientConfigError

    with pytest.raises(ClientConfigError):
        BmamClient(ClientConfig(url="ftp://x"))
    with pytest.raises(ClientConfigError):
        BmamClient(ClientConfig(url="http://127.0.0.1:8000", api_key="a\nb"))


def test_the_client_takes_the_graphql_address_for_the_server(client: BmamClient, api_url: str, api_key: str) -> None:
    """http://host:8000/graphql (GraphiQL's address) went to .../graphql/graphql and answered a bare HTTP_404."""
    config = ClientConfig(url=api_url.rstrip("/") + "/graphql/", api_key=api_key)
    assert config.url == api_url.rstrip("/")
    assert BmamClient(config).viewer() == client.viewer()


# ----- 6. lock on history ---------------------------------------------------------------------------------


def test_locking_superseded_history_is_a_conflict(container: Container, tenant: str, driver: Any) -> None:
    m = container.memories.remember(tenant, _remember("alice", "I live in Chengdu"))
    driver.execute_query("MATCH (m:Memory {id: $id}) SET m.valid_to = datetime()", {"id": m.id})
    with pytest.raises(Conflict) as err:
        container.tiers.lock(tenant, "alice", m.id)
    assert "superseded" in err.value.message
    after = container.memories.get(tenant, "alice", m.id)
    assert after is not None and after.tier.value == "temp" and not after.locked


# ----- 7. --tenant --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", " ", "a\x01", "t" * 1000, "a\tb"])
@pytest.mark.parametrize("command", [["remember", "-u", "alice", "hello"], ["memories", "-u", "alice"],
                                     ["tiers", "usage", "-u", "alice"], ["keys", "revoke", "0" * 16],
                                     ["export", "-u", "alice", "-f", "ttl"], ["maintain", "--decay"]])
def test_every_tenant_option_is_checked(command: list[str], value: str) -> None:
    result = runner.invoke(app, [*command, "--tenant", value])
    _clean_exit(result)
    assert "tenant" in result.output


def test_an_empty_tenant_writes_nothing_into_the_default_tenant(container: Container) -> None:
    user = _user()
    result = runner.invoke(app, ["remember", "-u", user, "I like green tea", "--tenant", ""])
    _clean_exit(result)
    assert container.memories.page(container.settings.api.default_tenant, user).items == []


# ----- 8. an unknown user leaves nothing behind -------------------------------------------------------------


def _nodes(driver: Any, tenant: str) -> int:
    records, _, _ = driver.execute_query("MATCH (n) WHERE n.tenant = $t RETURN count(n) AS n", {"t": tenant})
    return int(records[0]["n"])


def test_sweeping_an_unknown_user_creates_no_user(container: Container, tenant: str, driver: Any) -> None:
    assert container.tiers.sweep(tenant, "nobody") == []
    assert _nodes(driver, tenant) == 0
    with pytest.raises(NotFound):
        container.export.export_graph(tenant, "nobody", GraphFormat.GRAPHML)


@pytest.mark.parametrize("kind", ["DECAY", "REBALANCE", "FULL", "CHECK"])
@pytest.mark.parametrize("dry_run", [True, False])
def test_maintenance_of_an_unknown_user_is_not_found(container: Container, tenant: str, driver: Any,
                                                      kind: str, dry_run: bool) -> None:
    container.memories.remember(tenant, _remember("alice", "I like green tea"))  # the tenant has a user
    before = _nodes(driver, tenant)
    with pytest.raises(NotFound) as err:
        container.maintenance.run(tenant, kind, dry_run=dry_run, user_id="nobody")
    assert "nobody" in err.value.message
    assert _nodes(driver, tenant) == before
    assert container.maintenance.changesets(tenant) == []


def test_maintenance_of_a_known_user_still_runs(container: Container, tenant: str) -> None:
    container.memories.remember(tenant, _remember("alice", "I like green tea"))
    result = container.maintenance.run(tenant, "DECAY", user_id="alice")
    assert result.changeset is not None and result.changeset.users_done == 1


# ----- 9. bmam serve ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--port", "99999"], ["--port", "0"], ["--port", "-1"], ["--workers", "0"],
                                  ["--workers", "-1"], ["--workers", "65"]])
def test_serve_checks_port_and_workers_before_starting(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import bmam.cli as cli

    def no_start(*_: object, **__: object) -> None:
        raise AssertionError("started anyway")

    monkeypatch.setattr(cli, "ensure_neo4j", no_start)
    result = runner.invoke(app, ["serve", *args])
    _clean_exit(result)
    assert args[0] in result.output


# ----- 10. revokeApiKey never echoes what it was given -----------------------------------------------------


def test_revoking_by_the_whole_key_neither_echoes_it_nor_revokes(client: BmamClient, api_key: str) -> None:
    doc = "mutation($id: ID!) { revokeApiKey(id: $id) { id } }"
    for given in (api_key, "bmam_0123456789abcdef_" + "s" * 43, "x" * 300):
        code, message, field = _refusal(client, doc, {"id": given})
        assert (code, field) == ("BAD_USER_INPUT", "id")
        assert given[:10] not in message and given[-10:] not in message
    assert client.execute("{ viewer { tenant } }")["viewer"]  # the key still works
    code, message, _ = _refusal(client, doc, {"id": "0" * 16})
    assert code == "NOT_FOUND" and "0" * 16 in message  # a well-formed id is named


def test_cli_revoke_by_the_whole_key_is_refused_without_echo(container: Container, tenant: str) -> None:
    secret = container.keys.create(tenant, "x").secret
    result = runner.invoke(app, ["keys", "revoke", secret])
    _clean_exit(result)
    assert secret[-20:] not in result.output
    assert container.keys.authenticate(secret).tenant == tenant


# ----- 11. several operations need an operationName ---------------------------------------------------------


def test_two_operations_without_a_name_are_refused(api_url: str, api_key: str) -> None:
    user = _user()
    body = {"query": f'mutation B {{ sweepTiers(userId: "{user}") {{ memoryId }} }} query A {{ viewer {{ tenant }} }}'}
    resp = httpx.post(f"{api_url}/graphql", json=body, headers={"X-API-Key": api_key}, timeout=60)
    answer = resp.json()
    assert answer.get("data") is None, answer
    assert answer["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "operation name" in answer["errors"][0]["message"]
    named = httpx.post(f"{api_url}/graphql", json={**body, "operationName": "A"}, headers={"X-API-Key": api_key},
                       timeout=60).json()
    assert named["data"]["viewer"]["tenant"]
    one = httpx.post(f"{api_url}/graphql", json={"query": "query A { viewer { tenant } }"},
                     headers={"X-API-Key": api_key}, timeout=60).json()
    assert one["data"]["viewer"]["tenant"]


# ----- lower priority ---------------------------------------------------------------------------------------


def test_an_empty_session_id_is_an_error(client: BmamClient) -> None:
    doc = "query($u: String!, $s: String) { recall(userId: $u, query: \"green tea\", sessionId: $s) { gated } }"
    for session in ("", "  "):
        code, message, field = _refusal(client, doc, {"u": _user(), "s": session})
        assert (code, field) == ("BAD_USER_INPUT", "sessionId")
        assert message == "sessionId must not be empty; leave it out for none"  # not "is required": it is not
    ingest = ("mutation($u: String!, $d: String) { ingestTurn(userId: $u, sessionId: \"s\", speaker: \"user\","
              " text: \"I like tea\", deviceId: $d) { stored } }")
    user = _user()
    for device in ("", "  "):
        code, message, field = _refusal(client, ingest, {"u": user, "d": device})
        assert (code, field) == ("BAD_USER_INPUT", "deviceId")
        assert message == "deviceId must not be empty; leave it out for none"
    assert client.memories(user)["edges"] == []


def test_a_blank_key_name_is_refused(client: BmamClient) -> None:
    doc = "mutation($n: String) { createApiKey(name: $n) { key } }"
    for name in ("", "  "):
        code, _, field = _refusal(client, doc, {"n": name})
        assert (code, field) == ("BAD_USER_INPUT", "name")


def test_strength_minus_zero_is_zero(client: BmamClient) -> None:
    value = validate.unit_interval(-0.0, field="strength")
    assert value == 0.0 and str(value) == "0.0"
    user = _user()
    a, b = (client.remember(user, text)["id"] for text in ("I like green tea", "I live in Chengdu"))
    assert str(client.associate(user, a, b, -0.0)["strength"]) == "0.0"


def test_empty_ids_in_the_first_slice_are_errors(container: Container, tenant: str) -> None:
    """An optional id given as "" is an error, not "none"; a memoryId "" is an error, not an empty answer."""
    from bmam.usecases.memories import RememberRequest

    for request in (RememberRequest(user_id="alice", text="I like tea", type="FACTUAL", session_id=""),
                    RememberRequest(user_id="alice", text="I like tea", type="FACTUAL", device_id="")):
        with pytest.raises(BadInput, match="must not be empty; leave it out for none"):
            container.memories.remember(tenant, request)
    for read in (container.memories.triples, container.memories.associations):
        with pytest.raises(BadInput):
            read(tenant, "alice", "")
    assert container.memories.page(tenant, "alice").items == []  # nothing was written


# ----- 12. CLI error paths: settings, standard output, check --user, maintain --undo ------------------------


@pytest.mark.parametrize(("env", "command", "says"), [
    ({"BMAM_API__PORT": "abc"}, ["inspect"], "BMAM_API__PORT: Input should be a valid integer"),
    ({"BMAM_RECALL__DEFAULT_K": "0"}, ["memories", "-u", "alice"],
     "BMAM_RECALL__DEFAULT_K: Input should be greater than or equal to 1"),
    ({"BMAM_API__PORT": "abc"}, ["serve"], "BMAM_API__PORT"),
    ({"BMAM_NEO4J__BOLT_PORT": "x"}, ["neo4j", "status"], "BMAM_NEO4J__BOLT_PORT"),
    ({"BMAM_API__PORT": "abc"}, ["train-classifier"], "BMAM_API__PORT"),
    ({"BMAM_API": "{"}, ["check"], "BMAM_API: Expecting property name"),
    # a profile neither dev nor production was taken silently (as production)
    ({"BMAM_API__PROFILE": "weird"}, ["inspect"], "BMAM_API__PROFILE: Input should be 'dev' or 'production'"),
    # the weight formula's parts and shares: out of [0, 1], or shares not summing to 1, a weight could leave [0, 1]
    ({"BMAM_WEIGHTS__PRESET_SAFETY": "1.5"}, ["inspect"],
     "BMAM_WEIGHTS__PRESET_SAFETY: Input should be less than or equal to 1"),
    ({"BMAM_WEIGHTS__PASSIVE_SHARE": "0.9"}, ["inspect"],
     "BMAM_WEIGHTS: Value error, passive_share + active_share + preset_share must be 1 (got 1.3)"),
])
def test_a_bad_setting_is_one_line_naming_the_variable(env: dict[str, str], command: list[str], says: str) -> None:
    """A bad BMAM_* value: one line naming the variable and why, exit 2, before anything starts."""
    result = runner.invoke(app, command, env=env)
    _clean_exit(result)
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error [BAD_USER_INPUT]: bad setting {says}")


def _bmam(args: list[str], stdout: int) -> subprocess.CompletedProcess[bytes]:
    """bmam in a process of its own, its standard output the given descriptor (a pipe, /dev/full)."""
    return subprocess.run([sys.executable, "-m", "bmam.cli", *args], cwd=PROJECT_ROOT, stdout=stdout,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=180, check=False)


def bmam_to_closed_pipe(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """`bmam ... | head` once head has gone: the reading end is closed before bmam writes."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return _bmam(args, write_end)
    finally:
        os.close(write_end)


def bmam_to_full_disk(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "wb") as full:
        return _bmam(args, full.fileno())


def test_a_closed_pipe_ends_quietly_and_a_full_disk_is_one_line() -> None:
    """Commands printing lines (here `bmam inspect`): a reader gone is exit 141 and no message, as for a shell
    tool killed by SIGPIPE; a full disk is one line and exit 1; neither a traceback."""
    piped = bmam_to_closed_pipe(["inspect"])
    assert (piped.returncode, piped.stderr.decode()) == (141, "")
    full = bmam_to_full_disk(["inspect"])
    assert (full.returncode, full.stderr.decode()) == (1, "cannot write to standard output: No space left on "
                                                          "device\n")


def test_export_to_a_closed_pipe_or_a_full_disk(container: Container, tenant: str) -> None:
    """`bmam export` streams bytes, not lines: the same two answers."""
    container.memories.remember(tenant, _remember("alice", "I like green tea"))
    args = ["export", "-u", "alice", "--tenant", tenant, "-f", "nt"]
    piped = bmam_to_closed_pipe(args)
    assert (piped.returncode, piped.stderr.decode()) == (141, "")
    full = bmam_to_full_disk(args)
    assert (full.returncode, full.stderr.decode()) == (1, "cannot write to standard output: No space left on "
                                                          "device\n")


def test_cli_check_of_an_unknown_user_is_not_found(container: Container, tenant: str) -> None:
    """As runMaintenance(CHECK) and maintain --user: an unknown or empty user is refused, never "healthy"."""
    container.memories.remember(tenant, _remember("alice", "I like green tea"))
    with pytest.raises(NotFound, match="nobody"):
        container.maintenance.check(tenant, "nobody")
    unknown = runner.invoke(app, ["check", "--tenant", tenant, "--user", "nobody"])
    _clean_exit(unknown, 1)
    assert unknown.stderr.strip() == "error [NOT_FOUND]: user 'nobody' not found" and unknown.stdout == ""
    empty = runner.invoke(app, ["check", "--tenant", tenant, "--user", ""])
    _clean_exit(empty)
    assert empty.stderr.strip() == "error [BAD_USER_INPUT]: userId must not be empty; leave it out for none"
    both = runner.invoke(app, ["check", "--all-tenants", "--user", "alice"])
    _clean_exit(both)
    assert "--all-tenants takes neither --tenant nor --user" in both.stderr
    known = runner.invoke(app, ["check", "--tenant", tenant, "--user", "alice"])
    assert known.exit_code == 0, known.output
    assert known.stdout.startswith(f"healthy: tenant {tenant} user alice\n  core memories: 0, unreachable: 0")


@pytest.mark.parametrize("extra", [["--all-tenants"], ["--user", "alice"], ["--user", ""], ["--dry-run"]])
def test_maintain_undo_refuses_scope_options(container: Container, tenant: str, extra: list[str]) -> None:
    """--undo ID undoes the whole changeset in --tenant: --user or --all-tenants are refused, and nothing is
    undone, as --full / --dry-run are."""
    container.memories.remember(tenant, _remember("alice", "I like green tea"))
    changeset = container.maintenance.run(tenant, "DECAY").changeset
    assert changeset is not None
    refused = runner.invoke(app, ["maintain", "--undo", changeset.id, "--tenant", tenant, *extra])
    _clean_exit(refused)
    assert refused.stderr.startswith(f"--undo takes no other maintenance option (got {extra[0]})")
    [after] = container.maintenance.changesets(tenant)
    assert after.id == changeset.id and not after.undone
    undone = runner.invoke(app, ["maintain", "--undo", changeset.id, "--tenant", tenant])
    assert undone.exit_code == 0 and undone.stdout.startswith("undone: "), undone.output


def test_an_id_in_another_unicode_form_is_refused_not_another_user(client: BmamClient) -> None:
    """"José" with e + U+0301 was another user than "José" with é: forgetUser of one erased nothing and said
    verified. Only the composed form (NFC) is an id."""
    composed, decomposed = "s-Jos\u00e9", "s-Jose\u0301"
    assert validate.identifier(composed, field="userId") == composed
    with pytest.raises(BadInput, match="NFC") as err:
        validate.identifier(decomposed, field="userId")
    assert err.value.field == "userId"
    doc = "mutation($u: String!) { forgetUser(userId: $u, confirm: true) { verified } }"
    code, _, got = _refusal(client, doc, {"u": decomposed})
    assert (code, got) == ("BAD_USER_INPUT", "userId")


def test_a_predicate_refuses_invisible_characters_as_ids_do(container: Container, tenant: str) -> None:
    """"li\\u200bkes" was stored and showed as "likes", matching no rule or slot."""
    from bmam.usecases.memories import RememberRequest

    m = container.memories.remember(tenant, RememberRequest(user_id="ann", text="I like tea", type="FACTUAL"))
    with pytest.raises(BadInput) as err:
        container.memories.add_triple(tenant, "ann", memory_id=m.id, subject="user", predicate="li\u200bkes",
                                      object_="tea")
    assert err.value.field == "predicate"
    assert container.memories.triples(tenant, "ann", m.id) == []


def test_a_correction_with_a_bad_type_is_bad_input_whatever_the_memory(container: Container, tenant: str) -> None:
    """It answered NOT_FOUND for an unknown id and CONFLICT for history before looking at the type."""
    for memory_id in ("m_does_not_exist", "m_0123456789abcdef0123456789abcdef"):
        with pytest.raises(BadInput) as err:
            container.corrections.correct(tenant, "ann", memory_id, "I live in Hamburg", memory_type="WORKING")
        assert err.value.field == "type"


class TripleEnds(TypedDict):
    """The ends add_triple takes, as the test gives them."""

    subject: str
    object_: str
    object_kind: NotRequired[str]


@pytest.mark.parametrize(("field", "ends"), [
    ("subject", {"subject": "I\u200b", "object_": "tea"}),  # looked like the user, was another entity
    ("object", {"subject": "user", "object_": "te\u202ea"}),  # shown reversed
    ("object", {"subject": "user", "object_": "green\u2066tea"}),
    ("objectKind", {"subject": "user", "object_": "tea", "object_kind": "dri\u200bnk"}),
])
def test_a_triple_end_refuses_invisible_characters_as_ids_do(container: Container, tenant: str, field: str,
                                                            ends: TripleEnds) -> None:
    from bmam.usecases.memories import RememberRequest

    m = container.memories.remember(tenant, RememberRequest(user_id="ann", text="I like tea", type="FACTUAL"))
    with pytest.raises(BadInput) as err:
        container.memories.add_triple(tenant, "ann", memory_id=m.id, predicate="likes", **ends)
    assert err.value.field == field and "invisible" in err.value.message
    assert container.memories.triples(tenant, "ann", m.id) == []
