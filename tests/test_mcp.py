"""The MCP face, through the `mcp` SDK's own client: over streamable HTTP (a live uvicorn) and over
stdio (`bmam mcp` as a subprocess). Tools list, remember, recall it back, the core resource, and API
keys: a key of another tenant reads none of this tenant's memories."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, ReadResourceResult, TextContent, TextResourceContents

from bmam.container import Container
from bmam.mcp_server import http_app
from bmam.usecases.memories import RememberRequest
from graph.model import Tier
from tests.ops_support import served

TOOLS = {"ingest_turn", "remember", "recall", "related", "context_prompt", "memories", "forget", "correct", "lock",
         "unlock", "react", "feedback", "conflicts", "resolve_conflict", "history"}
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def mcp_url(container: Container) -> Iterator[str]:
    """The streamable-HTTP MCP app on a free loopback port."""
    with served(http_app(container)) as url:
        yield f"{url}/mcp"


def _key(container: Container, tenant: str) -> str:
    return container.keys.create(tenant, "mcp-test").secret


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return json.loads(_text(result))


def _text(result: CallToolResult) -> str:
    """The text a tool answered (its first content block, text as every tool of bmam's answers)."""
    block = result.content[0]
    assert isinstance(block, TextContent), block
    return block.text


def _resource_text(result: ReadResourceResult) -> str:
    """The text of a resource read (its first contents, text as bmam's resources are)."""
    contents = result.contents[0]
    assert isinstance(contents, TextResourceContents), contents
    return contents.text


async def _with_http(url: str, key: str | None, body: Any) -> Any:
    headers = {"X-API-Key": key} if key else {}
    async with create_mcp_http_client(headers=headers) as http, Client(
        streamable_http_client(url, http_client=http)
    ) as client:
        return await body(client)


def _recalled_ids(answer: dict[str, Any]) -> list[str]:
    items = answer.get("memories") or answer.get("hits") or []
    ids = []
    for item in items:
        memory = item.get("memory", item)
        ids.append(memory["id"])
    return ids


def test_http_tools_remember_recall_and_core_resource(container: Container, tenant: str, mcp_url: str) -> None:
    key = _key(container, tenant)

    async def body(client: Client) -> str:
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        assert names >= TOOLS
        remember_schema = next(t for t in tools.tools if t.name == "remember").input_schema
        assert {"user_id", "text"} <= set(remember_schema["required"])

        stored = _data(await client.call_tool(
            "remember", {"user_id": "alice", "text": "我住在成都，最喜欢吃火锅", "type": "FACTUAL", "tier": "CORE"}))
        assert stored["text"] == "我住在成都，最喜欢吃火锅"
        assert stored["tier"] == "CORE" and stored["locked"] is True
        other = _data(await client.call_tool(
            "remember", {"user_id": "alice", "text": "My sister Anna works as a nurse in Berlin"}))
        assert other["tier"] == "TEMP"
        assert set(remember_schema["properties"]["tier"]["enum"]) == {"TEMP", "MID", "CORE"}
        lower = _data(await client.call_tool(  # any case, as the CLI prints tiers ("core" was a validation error)
            "remember", {"user_id": "alice", "text": "I use vim", "type": "procedural", "tier": "mid"}))
        assert (lower["tier"], lower["type"]) == ("MID", "PROCEDURAL")

        answer = _data(await client.call_tool("recall", {"user_id": "alice", "query": "成都的火锅", "k": 3}))
        assert answer.get("gated") is False
        assert _recalled_ids(answer)[0] == stored["id"]

        unrelated = {"user_id": "alice", "query": "How do I replace a bicycle chain?"}
        gated = _data(await client.call_tool("recall", unrelated))
        assert gated["gated"] is True and gated["memories"] == []
        prompt = _data(await client.call_tool(
            "context_prompt", {"user_id": "alice", "session_id": "s1", "input": "成都哪里的火锅好吃？"}))
        assert "我住在成都，最喜欢吃火锅" in prompt["prompt"] and stored["id"] in prompt["memory_ids"]
        related = _data(await client.call_tool("related", {"user_id": "alice", "memory_id": stored["id"], "depth": 2}))
        assert related["memory_id"] == stored["id"] and isinstance(related["related"], list)

        templates = await client.list_resource_templates()
        assert any(t.uri_template == "bmam://users/{user_id}/core" for t in templates.resource_templates)
        core = await client.read_resource("bmam://users/alice/core")
        payload = json.loads(_resource_text(core))
        assert [m["id"] for m in payload["memories"]] == [stored["id"]]

        # A wrong memory is corrected: the correction takes its place (core, locked), the old one is history.
        fixed = _data(await client.call_tool("correct", {"user_id": "alice", "memory_id": stored["id"],
                                                         "text": "我住在重庆，最喜欢吃火锅"}))
        assert fixed["corrects"] == stored["id"] and fixed["text"] == "我住在重庆，最喜欢吃火锅"
        assert fixed["tier"] == "CORE" and fixed["locked"] is True
        again = await client.call_tool("correct", {"user_id": "alice", "memory_id": stored["id"], "text": "x"})
        assert again.is_error and "CONFLICT" in _text(again)
        stored = fixed

        # A locked core memory is forgotten only with confirm.
        refused = await client.call_tool("forget", {"user_id": "alice", "memory_id": stored["id"]})
        assert refused.is_error and "CONFLICT" in _text(refused)
        done = _data(await client.call_tool("forget", {"user_id": "alice", "memory_id": other["id"]}))
        assert done == {"id": other["id"], "forgotten": True}
        return str(other["id"])

    forgotten = asyncio.run(_with_http(mcp_url, key, body))
    assert container.memories.get(tenant, "alice", forgotten) is None


def test_http_lock_unlock_react_and_feedback(container: Container, tenant: str, mcp_url: str) -> None:
    """An agent could forget a memory but not protect or react to one: the tools GraphQL's lock, unlock, react and
    feedback call, with their refusals as tool errors."""
    key = _key(container, tenant)

    async def body(client: Client) -> None:
        async def call(tool: str, **args: Any) -> Any:
            return await client.call_tool(tool, {"user_id": "dana", **args})

        stored = _data(await call("remember", text="I keep my spare key under the blue pot"))
        engaged = _data(await call("react", memory_id=stored["id"], signal="engaged"))
        assert engaged["memory"]["tier"] == "MID" and engaged["tier_changes"][0]["to"] == "MID"
        liked = _data(await call("feedback", memory_id=stored["id"], signal="LIKE"))
        assert liked["weight"]["active"] > stored["weight"]["active"]
        assert _data(await call("lock", memory_id=stored["id"]))["locked"] is True
        again = await call("lock", memory_id=stored["id"])
        assert _data(again)["locked"] is True  # idempotent: a retried lock is no error
        assert _data(await call("unlock", memory_id=stored["id"]))["tier"] == "MID"
        missing = await call("react", memory_id="m_00000000000000000000000000000000", signal="IGNORED")
        assert missing.is_error and _text(missing).startswith("[NOT_FOUND] "), _text(missing)

    asyncio.run(_with_http(mcp_url, key, body))



def test_bad_arguments_are_bad_user_input_and_unknown_ones_are_refused(container: Container, tenant: str,
                                                                        mcp_url: str) -> None:
    """An argument the schema refuses answered pydantic's whole text and link, with no [CODE]; an argument the tool
    does not take was dropped (remember(preset_kind="SAFETY") stored a memory without the preset); confirm="yes"
    was taken as true. Nothing is written by a refused call."""
    key = _key(container, tenant)

    async def body(client: Client) -> None:
        async def refused(tool: str, **args: Any) -> str:
            result = await client.call_tool(tool, {"user_id": "erin", **args})
            assert result.is_error, (tool, args)
            text = _text(result)
            assert "[BAD_USER_INPUT]" in text and "pydantic" not in text, text
            return text

        assert "type:" in await refused("remember", text="x", type="WORKING")
        assert "text: Field required" in await refused("remember")
        assert "k:" in await refused("recall", query="tea", k="five")
        assert "budget:" in await refused("context_prompt", session_id="s", input="hi", budget=1.5)
        unknown = await refused("remember", text="I'm allergic to bee stings", preset_kind="SAFETY")
        assert "preset_kind" in unknown and "text" in unknown  # what it does take
        stored = _data(await client.call_tool("remember", {"user_id": "erin", "text": "I keep bees", "tier": "CORE"}))
        assert "confirm:" in await refused("forget", memory_id=stored["id"], confirm="yes")
        page = container.memories.page(tenant, "erin", first=10)
        assert [m.id for m in page.items] == [stored["id"]]  # the refused calls wrote nothing

    asyncio.run(_with_http(mcp_url, key, body))

def test_the_core_resource_lists_every_core_memory_page_by_page(container: Container, tenant: str) -> None:
    """The resource read one page of 100: refused outright under a page-size limit below 100, cut short above
    100 core memories. It pages through them all."""
    small = Container(container.settings.model_copy(update={
        "limits": container.settings.limits.model_copy(update={"max_page_size": 2})}))
    small.__dict__["store"] = container.store
    small.__dict__["embedder"] = container.embedder
    stored = [small.memories.remember(tenant, RememberRequest(user_id="bob", text=text, type="FACTUAL",
                                                              tier=Tier.CORE)).id
              for text in ("我对花生过敏", "My blood type is O negative", "我的生日是7月20日")]

    async def body(client: Client) -> list[str]:
        core = json.loads(_resource_text(await client.read_resource("bmam://users/bob/core")))
        return [m["id"] for m in core["memories"]]

    with served(http_app(small)) as url:
        listed = asyncio.run(_with_http(f"{url}/mcp", _key(small, tenant), body))
    assert sorted(listed) == sorted(stored)


def test_http_foreign_key_reads_nothing_of_another_tenant(container: Container, tenant: str, mcp_url: str) -> None:
    key_a = _key(container, tenant)
    key_b = _key(container, f"{tenant}-b")
    text = "I keep my passport in the blue drawer"

    async def as_a(client: Client) -> str:
        stored = _data(await client.call_tool("remember", {"user_id": "alice", "text": text, "tier": "CORE"}))
        assert _recalled_ids(_data(await client.call_tool("recall", {"user_id": "alice", "query": text})))
        return str(stored["id"])

    memory_id = asyncio.run(_with_http(mcp_url, key_a, as_a))

    async def as_b(client: Client) -> None:
        answer = _data(await client.call_tool("recall", {"user_id": "alice", "query": text, "k": 10}))
        assert memory_id not in _recalled_ids(answer)
        assert text not in json.dumps(answer, ensure_ascii=False)
        core = json.loads(_resource_text(await client.read_resource("bmam://users/alice/core")))
        assert core["memories"] == []
        related = await client.call_tool("related", {"user_id": "alice", "memory_id": memory_id})
        assert related.is_error or text not in json.dumps(_data(related), ensure_ascii=False)
        forgot = await client.call_tool("forget", {"user_id": "alice", "memory_id": memory_id, "confirm": True})
        assert forgot.is_error and "NOT_FOUND" in _text(forgot)

    asyncio.run(_with_http(mcp_url, key_b, as_b))
    still = container.memories.get(tenant, "alice", memory_id)
    assert still is not None and still.text == text


def test_http_without_a_valid_key_is_401(mcp_url: str) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    headers = {"accept": "application/json, text/event-stream"}
    missing = httpx.post(mcp_url, json=init, headers=headers, timeout=30)
    assert missing.status_code == 401
    assert missing.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"  # the API's error shape
    bad = httpx.post(mcp_url, json=init, headers={**headers, "X-API-Key": "bmam_0000000000000000_" + "x" * 43},
                     timeout=30)
    assert bad.status_code == 401


def test_stdio_list_remember_recall(container: Container, tenant: str) -> None:
    key = _key(container, tenant)
    bmam = Path(sys.executable).with_name("bmam")
    params = StdioServerParameters(
        command=str(bmam), args=["mcp", "--transport", "stdio"], cwd=str(ROOT),
        env={**os.environ, "BMAM_API_KEY": key},
    )

    async def body() -> None:
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names >= TOOLS
            stored = _data(await client.call_tool(
                "remember", {"user_id": "bob", "text": "Bob is allergic to peanuts", "type": "FACTUAL"}))
            answer = _data(await client.call_tool("recall", {"user_id": "bob", "query": "peanut allergy"}))
            assert stored["id"] in _recalled_ids(answer)

    asyncio.run(body())
    found = container.memories.get(tenant, "bob", _only_memory_id(container, tenant, "bob"))
    assert found is not None and found.text == "Bob is allergic to peanuts"


def _only_memory_id(container: Container, tenant: str, user_id: str) -> str:
    page = container.memories.page(tenant, user_id, first=10)
    assert len(page.items) == 1
    return page.items[0].id


def test_recall_and_context_prompt_take_the_servers_defaults(container: Container, tenant: str) -> None:
    """They hard-coded k = 5 and a budget of 2000: with recall.default_k = 1 the CLI returned 1 memory and MCP 4."""
    from bmam.mcp_server import _context_prompt, _recall
    from bmam.usecases.memories import RememberRequest

    settings = container.settings.model_copy(update={"recall": container.settings.recall.model_copy(
        update={"default_k": 1, "context_budget": 150})})
    c = Container(settings)
    c.__dict__["store"] = container.store
    c.__dict__["embedder"] = container.embedder
    for text in ("I love hiking in the Alps", "I went hiking in Norway last summer", "Hiking boots are my hobby"):
        c.memories.remember(tenant, RememberRequest(user_id="kim", text=text, type="FACTUAL"))
    answer = asyncio.run(_recall(c, tenant, "kim", "Do I like hiking?", k=None, session_id=None))
    assert len(answer["memories"]) == 1
    prompt = asyncio.run(_context_prompt(c, tenant, "kim", "s1", "Do I like hiking?", budget=None))
    assert 0 < len(prompt["prompt"]) <= 150


def test_stdio_answers_a_line_it_cannot_read_and_goes_on(container: Container, tenant: str) -> None:
    """A request holding a lone surrogate escape (\\ud800) was never answered over stdio (the SDK's reader drops
    a line it cannot read): the caller waited for ever, where HTTP answers -32700. Now: -32700 with the request's
    id when it can be read, null for a line that is no JSON, -32600 for JSON that is no JSON-RPC message; and the
    next request is answered as ever."""
    key = _key(container, tenant)
    bmam = Path(sys.executable).with_name("bmam")
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    raw = [json.dumps(x) for x in lines] + [
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":'
        '{"user_id":"u1","text":"bad \\ud800 text"}}}',
        "this is not json",
        '{"jsonrpc":"2.0","id":4,"nonsense":true}',
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    ]
    # stdin stays open until every answer is in (at EOF the server may end before answering what is in flight)
    proc = subprocess.Popen([str(bmam), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=str(ROOT),
                            env={**os.environ, "BMAM_API_KEY": key})
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[Any, Any] = {}
    try:
        proc.stdin.write("\n".join(raw) + "\n")
        proc.stdin.flush()
        while not {1, 2, None, 4, 5} <= set(answers):  # a missing answer ends in the timeout below
            line = proc.stdout.readline()
            assert line, f"stdout closed with answers to {sorted(answers, key=str)} only"
            answer = json.loads(line)
            answers[answer.get("id")] = answer
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert answers[2]["error"]["code"] == -32700 and answers[2]["error"]["message"].startswith("Parse error")
    assert answers[None]["error"]["code"] == -32700  # no id to read in "this is not json"
    assert answers[4]["error"]["code"] == -32600
    assert answers[5]["result"] == {} and "result" in answers[1]
    assert container.memories.page(tenant, "u1").items == []  # nothing was stored of the unreadable line


def test_http_ingest_turn_memories_conflicts_and_history(container: Container, tenant: str) -> None:
    """The tools an assistant needs beside recall and remember (helper B35's audit): ingest_turn (the pipeline:
    GraphQL's ingestTurn), memories (a page, superseded ones on asking), conflicts and resolve_conflict (the review
    queue, here with the deployment's strategy REVIEW) and history; each refuses bad input as [BAD_USER_INPUT]."""
    review = Container(container.settings.model_copy(update={
        "living": container.settings.living.model_copy(update={"conflict_strategy": "REVIEW"})}))
    review.__dict__["store"] = container.store
    review.__dict__["embedder"] = container.embedder

    async def body(client: Client) -> None:
        async def call(tool: str, **args: Any) -> Any:
            return await client.call_tool(tool, {"user_id": "fay", **args})

        async def refused(tool: str, code: str = "BAD_USER_INPUT", **args: Any) -> str:
            result = await call(tool, **args)
            assert result.is_error, (tool, args)
            text = _text(result)
            assert f"[{code}]" in text and "pydantic" not in text, text
            return text

        first = _data(await call("ingest_turn", session_id="s1", speaker="user", text="I live in Lisbon."))
        assert (first["stored"], first["turn"], first["duplicate"]) == (True, 0, False)
        [lisbon] = first["memories"]
        again = _data(await call("ingest_turn", session_id="s1", speaker="user", text="I live in Lisbon."))
        assert again["duplicate"] is True and again["memories"] == []  # a retry changes nothing
        second = _data(await call("ingest_turn", session_id="s1", speaker="user", text="I live in Porto.", turn=1))
        [porto] = second["memories"]
        assert "speaker" in await refused("ingest_turn", session_id="s1", speaker="narrator", text="hello")
        assert "at:" in await refused("ingest_turn", session_id="s1", speaker="user", text="hi", at="yesterday")

        [held] = _data(await call("conflicts"))["conflicts"]
        assert (held["status"], held["strategy"], held["new_memory_id"], held["old_memory_id"]) == (
            "OPEN", "REVIEW", porto["id"], lisbon["id"])
        assert "status:" in await refused("conflicts", status="maybe")
        assert "not one of the memories" in await refused("resolve_conflict", conflict_id=held["id"],
                                                          winner="m_not_in_it")
        settled = _data(await call("resolve_conflict", conflict_id=held["id"], winner=porto["id"]))
        assert (settled["status"], settled["winner_id"], settled["resolved_by"]) == ("RESOLVED", porto["id"], "user")
        await refused("resolve_conflict", "CONFLICT", conflict_id=held["id"], winner=porto["id"])
        assert _data(await call("conflicts"))["conflicts"] == []
        every = _data(await call("conflicts", status="all", first=1))
        assert ([c["id"] for c in every["conflicts"]], every["next_cursor"]) == ([held["id"]], None)

        live = _data(await call("memories"))
        assert ([m["id"] for m in live["memories"]], live["next_cursor"]) == ([porto["id"]], None)
        page = _data(await call("memories", include_history=True, first=1))
        assert [m["id"] for m in page["memories"]] == [porto["id"]] and page["next_cursor"] is not None
        rest = _data(await call("memories", include_history=True, after=page["next_cursor"]))
        assert [(m["id"], m["valid_to"] is not None) for m in rest["memories"]] == [(lisbon["id"], True)]
        assert _data(await call("memories", tiers=["core"]))["memories"] == []
        assert "first must be" in await refused("memories", first=0)
        assert "tiers" in await refused("memories", tiers=["attic"])

        whole = _data(await call("history", memory_id=porto["id"]))
        assert whole["next_cursor"] is None
        chain = {h["memory"]["id"]: h for h in whole["history"]}
        # a page at a time (the tool stopped at `first`, at most 100, with no way past it)
        first = _data(await call("history", memory_id=porto["id"], first=1))
        rest = _data(await call("history", memory_id=porto["id"], after=first["next_cursor"]))
        assert [h["memory"]["id"] for h in first["history"] + rest["history"]] == \
            [h["memory"]["id"] for h in whole["history"]] and len(whole["history"]) == 2
        assert chain[porto["id"]]["supersedes"] == [lisbon["id"]]
        assert chain[lisbon["id"]]["superseded_by"] == [porto["id"]]
        await refused("history", "NOT_FOUND", memory_id="no-such-memory")
        assert "first must be" in await refused("history", first=0)

    try:
        with served(http_app(review)) as url:
            asyncio.run(_with_http(f"{url}/mcp", _key(review, tenant), body))
    finally:
        container.erasure.forget_user(tenant, "fay", confirm=True)
