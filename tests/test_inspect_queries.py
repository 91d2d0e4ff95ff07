"""cypher/inspect/: every query runs as it stands in Neo4j Browser, with the values of the :param lines at
its top (only tenant and user changed to the fixture's), and returns rows on the fixture conversation;
the Browser guide and the favourites file carry every query."""

from __future__ import annotations

import io
import re
import uuid
import zipfile
from html.parser import HTMLParser

import pytest
import requests

from bmam.container import Container
from bmam.usecases.inspect_guide import browser_favourites_zip, browser_guide_html
from graph import cypher_library
from graph.inspect_queries import InspectQuery, cypher_literal, inspect_queries, params_command, parse_inspect_query
from graph.store import Row
from tests.knowledge_fixture import USER, Conversation, load

QUERIES = inspect_queries()


@pytest.fixture(scope="module")
def conversation(container: Container) -> Conversation:
    return load(container, f"test-{uuid.uuid4().hex[:12]}")


def test_the_named_queries_are_there() -> None:
    names = {q.name for q in QUERIES}
    assert {"inspect/memory_graph", "inspect/core_memories", "inspect/conflict_queue", "inspect/superseded",
            "inspect/strongest_associations", "inspect/neighbourhood", "inspect/counts_by_tier_and_type"} <= names


@pytest.mark.parametrize("query", QUERIES, ids=[q.name for q in QUERIES])
def test_each_file_opens_with_what_it_does_and_its_params(query: InspectQuery) -> None:
    text = cypher_library.statement(query.name)
    assert text.startswith("// ") and query.title and query.description
    assert query.param_lines[0].startswith(":param tenant => ")
    assert {"tenant", "user_id"} <= set(query.params)
    # Every parameter the query uses is set by a :param line, and every :param is used.
    used = set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", query.query))
    assert used == set(query.params), (used, query.params)
    # (that the query is scoped to its tenant and user is checked on the store, below)


@pytest.mark.parametrize("query", QUERIES, ids=[q.name for q in QUERIES])
def test_each_query_returns_rows_on_the_fixture_conversation(container: Container, conversation: Conversation,
                                                              query: InspectQuery) -> None:
    params = {**query.params, "tenant": conversation.tenant, "user_id": conversation.user}
    rows = container.store.read(query.name, params)
    assert rows, f"{query.name} returned nothing with {params}"
    # And nothing of another user of the same tenant, nor of the same user id in another tenant.
    assert container.store.read(query.name, {**params, "user_id": USER + "-other"}) == []
    assert container.store.read(query.name, {**params, "tenant": conversation.tenant + "-other"}) == []


def test_the_rows_say_what_they_should(container: Container, conversation: Conversation) -> None:
    def run(name: str, **extra: object) -> list[Row]:
        q = next(q for q in QUERIES if q.name == f"inspect/{name}")
        return container.store.read(q.name, {**q.params, "tenant": conversation.tenant, "user_id": USER, **extra})

    assert [r["id"] for r in run("core_memories")] == [conversation.core_id]
    queue = run("conflict_queue")
    assert {(r["new_id"], r["old_id"]) for r in queue} == {(conversation.pork_yes_id, conversation.pork_no_id)}
    superseded = run("superseded")
    assert [(r["winner"], r["loser"]) for r in superseded] == [("我现在很喜欢吃辣的川菜。", "我不吃辣。")]
    assert superseded[0]["loser_valid_to"] is not None
    strongest = run("strongest_associations")
    assert [r["strength"] for r in strongest] == sorted((r["strength"] for r in strongest), reverse=True)
    assert (0.8, {conversation.core_id, conversation.pork_no_id}) in [
        (r["strength"], {r["id_a"], r["id_b"]}) for r in strongest]
    # The counts are the memories the use case lists (history included), by tier and type: live, superseded
    # (the LATEST conflict's loser) and locked (the core memory).
    counts = run("counts_by_tier_and_type")
    listed = container.memories.page(conversation.tenant, USER, first=100, include_history=True).items
    expected: dict[tuple[str, str], list[int]] = {}
    for m in listed:
        row = expected.setdefault((m.tier.value, m.type.value), [0, 0, 0, 0])
        row[0 if m.valid_to is None else 1] += 1
        row[2] += m.locked
        row[3] += 1
    assert {(r["tier"], r["type"]): [r["live"], r["superseded"], r["locked"], r["total"]] for r in counts} == expected
    assert sum(r["superseded"] for r in counts) >= 1 and sum(r["locked"] for r in counts) == 1
    triples = run("knowledge_triples")
    assert ("user", "eats", -1, "pork") in {(r["subject"], r["predicate"], r["polarity"], r["object"]) for r in triples}
    paths = run("neighbourhood")  # :param memory => '火锅'
    assert "火锅" in str(paths[0]["path"])
    provenance = run("provenance")
    assert {r["said"] for r in provenance} >= {"我不吃辣。"}
    # every memory, a remembered one too (with no turn: its own time, the source "remember"; it was left out)
    assert len(provenance) == len(listed)
    assert [r["speaker"] for r in provenance if r["memory"] == "I don't eat pork."] == ["remember"]
    assert run("neighbourhood", memory=conversation.core_id)


def test_param_lines_read_like_the_browser_reads_them() -> None:
    q = parse_inspect_query("inspect/x", "// Title\n// What it does.\n// :param tenant => 'default'\n"
                                         "// :param limit => 5\n// :param names => ['a', \"b\"]\n"
                                         "// :param on => true\nMATCH (n) RETURN n")
    assert q.params == {"tenant": "default", "limit": 5, "names": ["a", "b"], "on": True}
    assert q.query == "MATCH (n) RETURN n" and q.title == "Title" and q.description == "What it does."
    assert cypher_literal("null") is None
    assert params_command({"tenant": "it's", "n": 2}) == ":params {tenant: 'it\\'s', n: 2}"


class _Slides(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.slides = 0
        self.runnable: list[str] = []
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "slide":
            self.slides += 1
        if tag == "pre" and "runnable" in (dict(attrs).get("class") or ""):
            self._in_pre = True
            self.runnable.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.runnable[-1] += data


def test_the_browser_guide_holds_every_query_runnable() -> None:
    parser = _Slides()
    parser.feed(browser_guide_html())
    assert parser.slides == len(QUERIES) + 1
    for q in QUERIES:
        assert q.query in parser.runnable
        assert params_command(q.params) in parser.runnable


def test_the_favourites_zip_holds_every_query() -> None:
    with zipfile.ZipFile(io.BytesIO(browser_favourites_zip())) as archive:
        files = {name: archive.read(name).decode("utf-8") for name in archive.namelist()}
    assert set(files) == {f"bmam/{q.file_name}" for q in QUERIES}
    for q in QUERIES:
        text = files[f"bmam/{q.file_name}"]
        assert text.splitlines()[0] == f"// {q.title}"  # the Browser names a favourite by its first line
        assert q.query in text


def test_the_guide_is_served_for_the_browser(api_url: str) -> None:
    got = requests.get(f"{api_url}/guide/bmam.html", timeout=30)
    assert got.status_code == 200 and got.headers["access-control-allow-origin"] == "*"
    assert "<carousel" in got.text and "memory graph" in got.text
    # Neo4j Browser sends pragma and cache-control headers from its own origin: a preflight comes first.
    pre = requests.options(f"{api_url}/guide/bmam.html", timeout=30, headers={
        "Origin": "http://127.0.0.1:7474", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "pragma,cache-control"})
    assert pre.status_code in (200, 204) and pre.headers["access-control-allow-origin"] == "*"
    assert {"pragma", "cache-control"} <= {h.strip() for h in pre.headers["access-control-allow-headers"].split(",")}
