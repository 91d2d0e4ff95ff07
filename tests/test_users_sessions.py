"""A tenant's users and a user's sessions, a page at a time (against the real Neo4j): `users` walks every user of
the caller's app once, in id order, with the memories each holds and when it was last active (its newest memory or
turn); `sessions` walks a user's sessions once, the newest started first, with their turn counts and spans; neither
crosses a tenant or a user. A user of 10,000 memories costs a users page what a user of three costs (counts and
index ends, never a scan). Malformed cursors are BAD_USER_INPUT, first over 100 LIMIT_EXCEEDED; the CLI (`bmam users`,
`bmam sessions`) and `bmam remote` page the same way, with the CLI's exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import GraphDatabase
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.bench_load import BenchLoader
from graph.cypher_library import runnable
from graph.errors import BadInput, LimitExceeded
from graph.model import Scope
from graph.paging import encode_cursor, encode_id_cursor
from ingest.turns import TurnInput
from tests.ops_support import store_rows
from tests.test_conflicts_paging import cli_walk, refusal, tenant_client, walk_api

__all__ = ["tenant_client"]  # the fixture (a client with a key of the test's tenant), used by name

runner = CliRunner()
DAY0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)


def turn(user: str, session: str, at: datetime, text: str = "ok") -> dict[str, Any]:
    return {"userId": user, "sessionId": session, "speaker": "assistant", "text": text, "at": at.isoformat()}


# ----- users ----------------------------------------------------------------------------------------------------


def test_users_pages_every_user_of_the_app_once_in_id_order(container: Container, tenant: str,
                                                            tenant_client: BmamClient) -> None:
    ids = ["mia", "bo", "zoe", "ann", "kai", "lee", "eve"]
    for user in ids:
        tenant_client.remember(user, f"{user} likes green tea")
    tenant_client.remember("kai", "kai plays the cello")
    container.memories.remember(tenant + "-x", RememberRequest(user_id="amy", text="another app's", type="FACTUAL"))

    nodes, sizes = walk_api(lambda after: tenant_client.users(first=3, after=after))
    assert [n["userId"] for n in nodes] == sorted(ids) and sizes == [3, 3, 1]
    counts = {n["userId"]: n["memoryCount"] for n in nodes}
    assert counts == {**{u: 1 for u in ids}, "kai": 2}
    newest = max(m["createdAt"] for m in tenant_client.memories("kai")["edges"] for m in [m["node"]])
    kai = next(n for n in nodes if n["userId"] == "kai")
    assert datetime.fromisoformat(kai["lastActiveAt"]) == datetime.fromisoformat(newest)
    # the other app's user is its own
    assert [u.user_id for u in container.users.users(tenant + "-x").items] == ["amy"]
    # an exact page says there is no other; a page after the last user is empty
    whole = tenant_client.users(first=7)
    assert len(whole["edges"]) == 7 and whole["pageInfo"] == {"hasNextPage": False, "endCursor": None}
    assert tenant_client.users(after=whole["edges"][-1]["cursor"])["edges"] == []


def test_a_user_s_count_is_its_live_memories_its_history_apart_and_its_last_activity_its_newest_memory_or_turn(
        container: Container, tenant: str, tenant_client: BmamClient) -> None:
    """memoryCount counts what `memories` lists without includeHistory (superseded memories counted it too: a user who
    changed their mind had more memories than they hold); historyCount the superseded ones."""
    c = container
    old = c.memories.remember(tenant, RememberRequest(user_id="ann", text="I live in Lyon", type="FACTUAL"))
    c.memories.add_triple(tenant, "ann", memory_id=old.id, subject="user", predicate="lives_in", object_="Lyon")
    new = c.memories.remember(tenant, RememberRequest(user_id="ann", text="I live in Nice", type="FACTUAL"))
    c.memories.add_triple(tenant, "ann", memory_id=new.id, subject="user", predicate="lives_in", object_="Nice")
    assert sum(c.tiers.usage(tenant, "ann").counts.values()) == 1  # Lyon is history now
    # bo only talked (an assistant's turns are episodes only), two days ago; cy's turn came after her memory
    c.ingest.ingest_conversation(tenant, [_turn("bo", "s1", DAY0), _turn("bo", "s1", DAY0 + timedelta(hours=1))])
    cy = c.memories.remember(tenant, RememberRequest(user_id="cy", text="I keep bees", type="FACTUAL"))
    later = cy.created_at + timedelta(seconds=1)
    c.ingest.ingest_conversation(tenant, [_turn("cy", "s9", later)])

    users = {u.user_id: u for u in c.users.users(tenant).items}
    assert (users["ann"].memory_count, users["ann"].history_count, users["ann"].last_active_at) == (
        1, 1, new.created_at)
    assert len(c.memories.page(tenant, "ann").items) == 1 and len(c.memories.page(
        tenant, "ann", include_history=True).items) == 2
    assert (users["bo"].memory_count, users["bo"].history_count, users["bo"].last_active_at) == (
        0, 0, DAY0 + timedelta(hours=1))
    assert (users["cy"].memory_count, users["cy"].history_count, users["cy"].last_active_at) == (1, 0, later)
    # the API and the CLI say the same
    [ann] = [e["node"] for e in tenant_client.users(first=1)["edges"]]
    assert (ann["userId"], ann["memoryCount"], ann["historyCount"]) == ("ann", 1, 1)
    listed = runner.invoke(cli_app, ["users", "--tenant", tenant, "--first", "1"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout.splitlines()[0])["memory_count"] == 1
    assert json.loads(listed.stdout.splitlines()[0])["history_count"] == 1


def _turn(user: str, session: str, at: datetime) -> TurnInput:
    """An assistant's turn: an episode only, no memory."""
    return TurnInput(user_id=user, session_id=session, speaker="assistant", text=f"noted at {at.isoformat()}", at=at)


def profiled_hits(container: Container, name: str, params: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The rows a statement answers and the database hits Neo4j counted for it (PROFILE)."""
    config = container.store.config
    driver = GraphDatabase.driver(config.uri, auth=(config.user, config.password) if config.password else None)

    def hits(plan: Any) -> int:
        return int(plan.get("dbHits", 0)) + sum(hits(child) for child in plan.get("children", []))

    try:
        with driver.session(database=config.database) as session:
            result = session.run("PROFILE " + runnable(name), params)
            rows = [r.data() for r in result]
            return rows, hits(result.consume().profile)
    finally:
        driver.close()


def test_a_user_of_ten_thousand_memories_is_not_scanned(container: Container, tenant: str) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    loader = BenchLoader(container.store)
    try:
        for user, n in (("big", 10_000), ("small", 3)):  # filler memories, a second apart, as the benches load them
            for first in range(0, n, 2500):
                loader.memories(Scope(tenant, user), [
                    {"id": f"{tenant}-{user}-{i}", "text": f"filler {i}", "created_at": start + timedelta(seconds=i),
                     "session_id": "s", "embedding": [0.1] * container.vector_dimensions}
                    for i in range(first + 1, min(n, first + 2500) + 1)], now=start)
        # two of the big user's memories are history (superseded): counted apart, from the index that holds history
        store_rows(container, "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = 'big' AND m.id IN $ids "
                              "SET m.valid_to = $at", t=tenant, ids=[f"{tenant}-big-1", f"{tenant}-big-2"],
                   at=start + timedelta(days=1))
        for user in ("big", "small"):  # the same reads, whatever the user holds
            rows, hits = profiled_hits(container, "user/list", {"tenant": tenant, "after": user[:-1], "limit": 1})
            assert [(r["user_id"], r["memories"], r["history"]) for r in rows] == [
                (user, 9_998, 2) if user == "big" else (user, 3, 0)]
            assert hits < 20, (user, hits)  # counting the big user's live memories instead: 20,000
        users = {u.user_id: u for u in container.users.users(tenant).items}
        assert (users["big"].memory_count, users["big"].history_count) == (9_998, 2)
        assert users["big"].last_active_at == start + timedelta(seconds=10_000)
    finally:  # 10,000 nodes less in the shared store
        for user in ("big", "small"):
            loader.delete_user(Scope(tenant, user))


# ----- sessions -------------------------------------------------------------------------------------------------


def test_sessions_pages_a_user_s_sessions_once_newest_started_first(container: Container, tenant: str,
                                                                     tenant_client: BmamClient) -> None:
    # five sessions of alice: s4 and s5 started at the same instant (the id orders them), s2 ran longest
    plan = {"s1": [DAY0], "s2": [DAY0 + timedelta(days=1, hours=h) for h in range(4)],
            "s3": [DAY0 + timedelta(days=2), DAY0 + timedelta(days=2, minutes=5)],
            "s4": [DAY0 + timedelta(days=3)], "s5": [DAY0 + timedelta(days=3), DAY0 + timedelta(days=3, hours=1)]}
    turns = [turn("alice", s, at) for s, times in plan.items() for at in times]
    turns += [turn("bob", "s9", DAY0 + timedelta(days=9))]  # another user's session
    answer = tenant_client.ingest_conversation(turns)
    assert all(not t["errors"] for t in answer["turns"]), answer
    container.ingest.ingest_conversation(tenant + "-x", [_turn("alice", "s8", DAY0 + timedelta(days=8))])  # elsewhere

    nodes, sizes = walk_api(lambda after: tenant_client.sessions("alice", first=2, after=after))
    assert [n["sessionId"] for n in nodes] == ["s5", "s4", "s3", "s2", "s1"] and sizes == [2, 2, 1]
    for n in nodes:
        times = plan[n["sessionId"]]
        assert n["turnCount"] == len(times)
        assert datetime.fromisoformat(n["firstTurnAt"]) == min(times)
        assert datetime.fromisoformat(n["lastTurnAt"]) == max(times)
    assert [s.session_id for s in container.users.sessions(tenant, "bob").items] == ["s9"]
    assert [s.session_id for s in container.users.sessions(tenant + "-x", "alice").items] == ["s8"]
    assert tenant_client.sessions("nobody")["edges"] == []
    # a turn appended later counts at once
    tenant_client.ingest_turn("alice", "s1", "user", "thanks", at=(DAY0 + timedelta(days=20)).isoformat())
    s1 = next(s for s in container.users.sessions(tenant, "alice").items if s.session_id == "s1")
    assert (s1.turn_count, s1.last_turn_at) == (2, DAY0 + timedelta(days=20))


# ----- refusals -------------------------------------------------------------------------------------------------


def test_malformed_cursors_and_pages_over_the_limit_are_refused(container: Container, tenant: str,
                                                                tenant_client: BmamClient) -> None:
    time_cursor = encode_cursor(DAY0, "s1")
    for bad in ("%%%", "bm90IGpzb24", time_cursor):
        with pytest.raises(BadInput) as err:
            container.users.users(tenant, after=bad)
        assert (err.value.message, err.value.field) == ("invalid cursor", "after")
        assert refusal(lambda b=bad: tenant_client.users(after=b)) == ("BAD_USER_INPUT", "after")  # type: ignore[misc]
    for bad in ("%%%", encode_id_cursor("s1"), encode_cursor(DAY0, "s1")[:-3]):
        with pytest.raises(BadInput):
            container.users.sessions(tenant, "alice", after=bad)
        assert refusal(lambda b=bad: tenant_client.sessions("alice", after=b)) == (  # type: ignore[misc]
            "BAD_USER_INPUT", "after")
    for call in (lambda f: tenant_client.users(first=f), lambda f: tenant_client.sessions("alice", first=f)):
        assert refusal(lambda c=call: c(101))[0] == "LIMIT_EXCEEDED"  # type: ignore[misc]
        assert refusal(lambda c=call: c(0)) == ("BAD_USER_INPUT", "first")  # type: ignore[misc]
    with pytest.raises(LimitExceeded):
        container.users.users(tenant, first=101)
    with pytest.raises(BadInput):
        container.users.sessions(tenant, " ")


# ----- the CLI and bmam remote ----------------------------------------------------------------------------------


def test_the_cli_and_remote_page_users_and_sessions(container: Container, tenant: str, api_url: str,
                                                   make_api_key: Callable[[str], str]) -> None:
    users = ["u1", "u2", "u3", "u4", "u5"]
    container.ingest.ingest_conversation(tenant, [_turn(u, f"s{i}", DAY0 + timedelta(days=i))
                                           for u in users for i in range(3)])
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": make_api_key(tenant)}

    lines, sizes = cli_walk(["users", "--first", "2", "--tenant", tenant])
    assert [x["user_id"] for x in lines] == users and sizes == [2, 2, 1]
    assert lines[0] == {"user_id": "u1", "memory_count": 0, "history_count": 0,
                        "last_active_at": (DAY0 + timedelta(days=2)).isoformat()}
    lines, sizes = cli_walk(["sessions", "-u", "u3", "--first", "2", "--tenant", tenant])
    assert [x["session_id"] for x in lines] == ["s2", "s1", "s0"] and sizes == [2, 1]
    assert lines[0] == {"session_id": "s2", "turn_count": 1, "first_turn_at": (DAY0 + timedelta(days=2)).isoformat(),
                        "last_turn_at": (DAY0 + timedelta(days=2)).isoformat()}

    lines, sizes = cli_walk(["remote", "users", "--first", "2"], env=env)
    assert [x["userId"] for x in lines] == users and sizes == [2, 2, 1]
    lines, sizes = cli_walk(["remote", "sessions", "-u", "u3", "--first", "2"], env=env)
    assert [x["sessionId"] for x in lines] == ["s2", "s1", "s0"] and [x["turnCount"] for x in lines] == [1, 1, 1]

    for args, e in ((["users", "--tenant", tenant], None), (["sessions", "-u", "u3", "--tenant", tenant], None),
                    (["remote", "users"], env), (["remote", "sessions", "-u", "u3"], env)):
        bad = runner.invoke(cli_app, [*args, "--after", "garbage"], env=e)
        assert bad.exit_code == 2 and "invalid cursor" in bad.output, bad.output
        over = runner.invoke(cli_app, [*args, "--first", "101"], env=e)
        assert over.exit_code == 2 and "LIMIT_EXCEEDED" in over.output, over.output
    missing = runner.invoke(cli_app, ["sessions", "--tenant", tenant])  # -u is required
    assert missing.exit_code == 2
