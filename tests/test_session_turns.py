"""A session's stored turns, a page at a time (against the real Neo4j): `turns` walks a session's episodes once, in
turn order, each with its speaker, text, time, device, episode id and the live memories derived from it; a session
the user does not have (another user's, another app's, none) is NOT_FOUND, never their turns. Malformed cursors are
BAD_USER_INPUT, first over 100 LIMIT_EXCEEDED; the CLI (`bmam turns`) and `bmam remote turns` page the same way,
with the CLI's exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from neo4j import GraphDatabase
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient
from bmam.container import Container
from graph.errors import BadInput, LimitExceeded, NotFound
from graph.paging import encode_cursor, encode_id_cursor, encode_turn_cursor
from ingest.turns import TurnInput
from tests.test_conflicts_paging import cli_walk, refusal, tenant_client, walk_api

__all__ = ["tenant_client"]  # the fixture (a client with a key of the test's tenant), used by name

runner = CliRunner()
DAY0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)

# alice's s1: seven turns, two of the user's worth a memory; the assistant's are episodes only
S1 = [("user", "I live in Chengdu and I love hotpot"), ("assistant", "Chengdu is famous for its hotpot."),
      ("user", "ok"), ("assistant", "Anything else?"), ("user", "My sister Lin is a nurse in Berlin"),
      ("assistant", "Berlin, nice."), ("assistant", "Talk soon.")]


def conversation(user: str, session: str, said: list[tuple[str, str]], *, start: int = 0,
                 device: str | None = "phone") -> list[TurnInput]:
    return [TurnInput(user_id=user, session_id=session, speaker=speaker, text=text, turn=start + i,
                      at=DAY0 + timedelta(minutes=start + i), device_id=device)
            for i, (speaker, text) in enumerate(said)]


def test_turns_pages_a_session_once_in_turn_order_with_the_memories_of_each(
        container: Container, tenant: str, tenant_client: BmamClient) -> None:
    c = container
    c.ingest.ingest_conversation(tenant, conversation("alice", "s1", S1))
    # s2 says where alice lives again: that turn lists the same memory (a mention); bob's s1 is his own
    c.ingest.ingest_conversation(tenant, conversation("alice", "s2", [("user", "I live in Chengdu and I love hotpot")],
                                                      device=None)
                                 + conversation("bob", "s1", [("user", "I keep bees")]))

    nodes, sizes = walk_api(lambda after: tenant_client.turns("alice", "s1", first=3, after=after))
    assert sizes == [3, 3, 1]
    assert [(n["turn"], n["speaker"], n["text"]) for n in nodes] == [(i, s, t) for i, (s, t) in enumerate(S1)]
    assert [datetime.fromisoformat(n["at"]) for n in nodes] == [DAY0 + timedelta(minutes=i) for i in range(7)]
    assert {n["deviceId"] for n in nodes} == {"phone"}
    page = c.sessions.turns(tenant, "alice", "s1", first=100)
    assert [n["episodeId"] for n in nodes] == [t.episode_id for t in page.items]
    lives, sister = nodes[0]["memoryIds"], nodes[4]["memoryIds"]
    assert len(lives) == 1 and len(sister) == 1 and lives != sister
    assert all(n["memoryIds"] == [] for i, n in enumerate(nodes) if i not in (0, 4))
    memory = c.memories.get(tenant, "alice", lives[0])
    assert memory is not None and memory.provenance.episode_id == nodes[0]["episodeId"]
    [again] = c.sessions.turns(tenant, "alice", "s2").items
    assert (again.memory_ids, again.device_id) == (tuple(lives), None)
    # the default page holds the session whole; a page after the last turn is empty, not NOT_FOUND
    whole = tenant_client.turns("alice", "s1")
    assert len(whole["edges"]) == 7 and whole["pageInfo"] == {"hasNextPage": False, "endCursor": None}
    assert tenant_client.turns("alice", "s1", after=whole["edges"][-1]["cursor"])["edges"] == []
    assert [t.text for t in c.sessions.turns(tenant, "bob", "s1").items] == ["I keep bees"]


def test_a_superseded_memory_is_not_listed_with_its_turn(container: Container, tenant: str) -> None:
    c = container
    c.ingest.ingest_conversation(tenant, conversation("alice", "s1", [("user", "I live in Lyon"),
                                                                      ("user", "I live in Nice now")]))
    first, second = c.sessions.turns(tenant, "alice", "s1").items
    assert second.memory_ids and first.memory_ids == ()  # Lyon is history: its turn lists no live memory


def test_a_turn_without_a_time_lists_with_none(container: Container, tenant: str, tenant_client: BmamClient) -> None:
    """An import may bring turns without their time (as `sessions` shows such a session's span as null)."""
    c = container
    c.ingest.ingest_conversation(tenant, conversation("alice", "s1", [("assistant", "hi"), ("assistant", "bye")]))
    untimed = c.sessions.turns(tenant, "alice", "s1").items[1].episode_id
    config = c.store.config
    driver = GraphDatabase.driver(config.uri, auth=(config.user, config.password) if config.password else None)
    try:  # as such an import leaves it (no statement of bmam's removes a time)
        driver.execute_query("MATCH (e:Episode {id: $id}) REMOVE e.at", {"id": untimed}, database_=config.database)
    finally:
        driver.close()
    assert [t.at for t in c.sessions.turns(tenant, "alice", "s1").items] == [DAY0, None]
    assert [e["node"]["at"] for e in tenant_client.turns("alice", "s1")["edges"]][1] is None
    shown = runner.invoke(cli_app, ["turns", "-u", "alice", "-s", "s1", "--tenant", tenant])
    assert shown.exit_code == 0 and shown.stdout.splitlines()[1] == "1\t-\tassistant (phone): bye", shown.output


def test_a_session_the_user_does_not_have_is_not_found(container: Container, tenant: str,
                                                       tenant_client: BmamClient) -> None:
    c = container
    c.ingest.ingest_conversation(tenant, conversation("bob", "s1", [("assistant", "bob's turn")]))
    c.ingest.ingest_conversation(tenant + "-x", conversation("alice", "s1", [("assistant", "another app's turn")]))
    for user, session in (("alice", "s1"), ("alice", "nope"), ("nobody", "s1")):  # bob's, none, no user
        with pytest.raises(NotFound):
            c.sessions.turns(tenant, user, session)
        assert refusal(lambda u=user, s=session: tenant_client.turns(u, s)) == (  # type: ignore[misc]
            "NOT_FOUND", None)
    assert [t.text for t in c.sessions.turns(tenant + "-x", "alice", "s1").items] == ["another app's turn"]


def test_malformed_cursors_and_pages_over_the_limit_are_refused(container: Container, tenant: str,
                                                                tenant_client: BmamClient) -> None:
    container.ingest.ingest_conversation(tenant, conversation("alice", "s1", [("assistant", "hi")]))
    for bad in ("%%%", encode_id_cursor("s1"), encode_cursor(DAY0, "s1"), encode_id_cursor("3"),
                encode_turn_cursor(2**63)[:-2], "WyJhIl0"):
        with pytest.raises(BadInput) as err:
            container.sessions.turns(tenant, "alice", "s1", after=bad)
        assert (err.value.message, err.value.field) == ("invalid cursor", "after")
        assert refusal(lambda b=bad: tenant_client.turns("alice", "s1", after=b)) == (  # type: ignore[misc]
            "BAD_USER_INPUT", "after")
    with pytest.raises(BadInput):
        container.sessions.turns(tenant, "alice", "s1", after=encode_turn_cursor(2**63))  # past Neo4j's integers
    assert refusal(lambda: tenant_client.turns("alice", "s1", first=101))[0] == "LIMIT_EXCEEDED"
    assert refusal(lambda: tenant_client.turns("alice", "s1", first=0)) == ("BAD_USER_INPUT", "first")
    with pytest.raises(LimitExceeded):
        container.sessions.turns(tenant, "alice", "s1", first=101)
    for user, session, field in ((" ", "s1", "userId"), ("alice", "", "sessionId")):
        with pytest.raises(BadInput) as err:
            container.sessions.turns(tenant, user, session)
        assert err.value.field == field


def test_the_cli_and_remote_page_turns(container: Container, tenant: str, api_url: str,
                                       make_api_key: Callable[[str], str]) -> None:
    container.ingest.ingest_conversation(tenant, conversation("alice", "s1", S1))
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": make_api_key(tenant)}
    lines, sizes = cli_walk(["turns", "-u", "alice", "-s", "s1", "--first", "3", "--json", "--tenant", tenant])
    assert sizes == [3, 3, 1] and [(x["turn"], x["speaker"], x["text"]) for x in lines] == [
        (i, s, t) for i, (s, t) in enumerate(S1)]
    assert set(lines[0]) == {"turn", "speaker", "text", "at", "device_id", "episode_id", "memory_ids"}
    assert lines[0]["device_id"] == "phone" and len(lines[0]["memory_ids"]) == 1
    remote, sizes = cli_walk(["remote", "turns", "-u", "alice", "-s", "s1", "--first", "3", "--json"], env=env)
    assert sizes == [3, 3, 1] and [x["episodeId"] for x in remote] == [x["episode_id"] for x in lines]
    assert [x["memoryIds"] for x in remote] == [x["memory_ids"] for x in lines]

    for args, e in ((["turns", "--tenant", tenant], None), (["remote", "turns"], env)):
        text = runner.invoke(cli_app, [*args, "-u", "alice", "-s", "s1"], env=e)
        assert text.exit_code == 0, text.output
        shown = text.stdout.splitlines()
        assert len(shown) == 7 and shown[1].startswith("1\t") and "assistant (phone): Chengdu is famous" in shown[1]
        assert f"[memories: {lines[0]['memory_ids'][0]}]" in shown[0]
        missing = runner.invoke(cli_app, [*args, "-u", "alice", "-s", "nope"], env=e)
        assert missing.exit_code == 1 and "NOT_FOUND" in missing.output, missing.output
        bad = runner.invoke(cli_app, [*args, "-u", "alice", "-s", "s1", "--after", "garbage"], env=e)
        assert bad.exit_code == 2 and "invalid cursor" in bad.output, bad.output
        assert "Traceback" not in missing.output + bad.output
    assert runner.invoke(cli_app, ["turns", "-u", "alice", "--tenant", tenant]).exit_code == 2  # -s is required
    assert json.loads(runner.invoke(cli_app, ["turns", "-u", "alice", "-s", "s1", "--json", "--tenant", tenant,
                                              "--first", "1"]).stdout)["turn"] == 0
