"""cypher/inspect/: every query runs as it stands in Neo4j Browser, with the values of the :param lines at
its top (only tenant and user changed to the fixture's), and returns rows on the fixture conversation;
the Browser guide and the favourites file carry every query."""

from __future__ import annotations

import io
import random
import re
import uuid
import zipfile
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import requests
from typer.testing import CliRunner

from bmam.cli import app
from bmam.container import Container
from bmam.usecases.inspect_guide import browser_favourites_zip, browser_guide_html
from graph import cypher_library
from graph.bench_load import BenchLoader
from graph.ids import entity_id
from graph.inspect_queries import InspectQuery, cypher_literal, inspect_queries, params_command, parse_inspect_query
from graph.model import Scope
from graph.store import Row
from ingest.turns import TurnInput
from tests.knowledge_fixture import START, USER, Conversation, load

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
    # when the loser lost (the winner's turn, 2026-11-01), not when bmam settled it (the ingest, today): the
    # header said the first and the query gave the second, ordering by it
    assert superseded[0]["superseded_at"] == superseded[0]["loser_valid_to"] < superseded[0]["settled_at"]
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


def _query(name: str) -> InspectQuery:
    return next(q for q in QUERIES if q.name == f"inspect/{name}")


def _dense_user(container: Container, scope: Scope, *, memories: int = 30) -> tuple[list[str], dict[str, set[str]],
                                                                                     set[tuple[str, str]]]:
    """A user whose every memory mentions the entity 'user' and two of ten others and has about five
    associations (graph/bench_load.py): its memory ids, the entities each mentions and the associated pairs."""
    rng = np.random.default_rng(5)
    draw = random.Random(5)
    now = datetime.now(UTC)
    ids = [f"insp-{scope.tenant}-{i:02d}" for i in range(memories)]
    vectors = rng.standard_normal((memories, container.vector_dimensions))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    loader = BenchLoader(container.store)
    loader.memories(scope, [{"id": m, "text": f"dense memory {i}", "created_at": now, "session_id": None,
                             "embedding": vectors[i].tolist()} for i, m in enumerate(ids)], now=now)
    mentions = {m: {"user", *draw.sample([f"thing{j}" for j in range(10)], 2)} for m in ids}
    pairs: set[tuple[str, str]] = set()
    while len(pairs) < memories * 5 // 2:
        a, b = sorted(draw.sample(ids, 2))
        pairs.add((a, b))
    loader.links(scope, [{"memory_id": m, "entity_id": entity_id(scope, "thing", name), "name": name}
                         for m, names in mentions.items() for name in names],
                 [{"low": a, "high": b, "strength": 0.5} for a, b in pairs], now=now)
    return ids, mentions, pairs


def test_the_memory_graph_returns_each_node_and_relationship_once(container: Container, tenant: str) -> None:
    """One row of lists: a row per (mention x association) of each memory repeated the memory, its embedding
    included (26,100 rows for 400 memories, most past the Browser's 1000-row cap)."""
    scope = Scope(tenant, USER)
    ids, mentions, pairs = _dense_user(container, scope)
    rows = container.store.read("inspect/memory_graph", {"tenant": tenant, "user_id": USER})
    assert len(rows) == 1
    row = rows[0]
    assert row["user"]["user_id"] == USER
    assert sorted(m["id"] for m in row["memories"]) == sorted(ids)
    assert len(row["has_memory"]) == len(ids)
    assert sorted(e["name"] for e in row["entities"]) == sorted(set().union(*mentions.values()))
    drawn_mentions = [(start["id"], end["name"]) for start, _, end in row["mentions"]]
    assert sorted(drawn_mentions) == sorted((m, name) for m, names in mentions.items() for name in names)
    drawn_pairs = [tuple(sorted((start["id"], end["id"]))) for start, _, end in row["associations"]]
    assert sorted(drawn_pairs) == sorted(pairs)


def test_the_memory_graph_leaves_out_history(container: Container, conversation: Conversation) -> None:
    row = container.store.read("inspect/memory_graph", {"tenant": conversation.tenant, "user_id": USER})[0]
    live = container.memories.page(conversation.tenant, USER, first=100).items
    assert sorted(m["id"] for m in row["memories"]) == sorted(m.id for m in live)
    assert (conversation.core_id, conversation.pork_no_id) in {
        (a["id"], b["id"]) for a, _, b in row["associations"]} | {(b["id"], a["id"]) for a, _, b in row["associations"]}
    assert "我不吃辣。" not in {m["text"] for m in row["memories"]}


def _reached(path: list[object]) -> list[dict[str, object]]:
    return [n for n in path if isinstance(n, dict)]  # a path's data: node, type, node, type, node


def test_the_neighbourhood_goes_not_through_the_user_nor_a_hub(container: Container, tenant: str) -> None:
    """Through the user's own entity every memory of the user was a neighbour: only associations and shared
    entities of at most max_degree mentions are walked, as related search walks them."""
    scope = Scope(tenant, USER)
    ids, mentions, pairs = _dense_user(container, scope)
    q = _query("neighbourhood")
    for max_degree in (50, 3):
        counts = {name: sum(name in names for names in mentions.values()) for name in set().union(*mentions.values())}
        walkable = {name for name, n in counts.items() if name != "user" and n <= max_degree}
        graph: dict[str, set[str]] = {}
        for a, b in pairs:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set()).add(a)
        for m, names in mentions.items():
            for name in names & walkable:
                graph.setdefault(m, set()).add(name)
                graph.setdefault(name, set()).add(m)
        near = graph.get(ids[0], set())
        expected = near | set().union(*(graph[x] for x in near)) - {ids[0]}
        rows = container.store.read(q.name, {**q.params, "tenant": tenant, "user_id": USER, "memory": ids[0],
                                             "max_degree": max_degree})
        assert len(rows) < 300
        got = {str(n.get("id") if "embedding" in n else n["name"]) for r in rows for n in _reached(r["path"])[1:]}
        assert got == expected
        assert all(r["history"] == [] for r in rows)


def test_the_neighbourhood_leaves_out_history_but_what_was_superseded(container: Container, tenant: str) -> None:
    """A memory superseded (and its expired triple) is no neighbour through the entities it shared; one
    SUPERSEDES hop away it is shown, named in `history`."""
    turns = [TurnInput(user_id=USER, session_id="s", speaker="user", text=text, at=START + timedelta(days=i))
             for i, text in enumerate(("My sister lives in Hangzhou.", "My sister lives in Denver now."))]
    assert container.ingest.ingest_conversation(tenant, turns).failed == 0
    q = _query("neighbourhood")
    rows = container.store.read(q.name, {**q.params, "tenant": tenant, "user_id": USER, "memory": "Denver"})
    texts = [[n.get("text") or n.get("name") for n in _reached(r["path"])] for r in rows]
    assert not any(t[-1] == "Hangzhou" for t in texts), texts  # the expired triple, not walked
    old = [r for r in rows
           if any("tier" in n and n["text"] == "My sister lives in Hangzhou." for n in _reached(r["path"]))]
    assert [r["path"][1] for r in old] == ["SUPERSEDES"], texts
    assert [r["history"] for r in old] == [["My sister lives in Hangzhou."]]
    assert all(r["history"] == [] for r in rows if r not in old)


def test_the_superseded_are_ordered_by_when_they_lost(container: Container, tenant: str) -> None:
    """Two changes ingested in one run lose in the order they were said, whatever the settle times."""
    said = ("My sister lives in Hangzhou.", "My sister lives in Denver now.", "My brother lives in Paris.",
            "My brother lives in Rome now.")
    turns = [TurnInput(user_id=USER, session_id="s", speaker="user", text=text, at=START + timedelta(days=i))
             for i, text in enumerate(said)]
    assert container.ingest.ingest_conversation(tenant, turns).failed == 0
    q = _query("superseded")
    rows = container.store.read(q.name, {**q.params, "tenant": tenant, "user_id": USER})
    assert [r["loser"] for r in rows] == ["My brother lives in Paris.", "My sister lives in Hangzhou."]
    assert [r["superseded_at"] for r in rows] == [r["loser_valid_to"] for r in rows]
    assert all(r["settled_at"] is not None for r in rows)


def test_the_guide_and_favourites_are_set_to_the_tenant_and_user_given(tmp_path: Path) -> None:
    """`bmam inspect --tenant T --user U`: every :params block of the guide and every `// :param` line of the
    favourites carries them (the other parameters as their files give them); left out, the files' own."""
    given = {"tenant": "acme", "user_id": "o'neil"}
    guide = _Slides()
    guide.feed(browser_guide_html(given))
    with zipfile.ZipFile(io.BytesIO(browser_favourites_zip(given))) as archive:
        files = {name: archive.read(name).decode("utf-8") for name in archive.namelist()}
    for q in QUERIES:
        assert params_command({**q.params, **given}) in guide.runnable
        assert parse_inspect_query(q.name, files[f"bmam/{q.file_name}"]).params == {**q.params, **given}
        assert q.query in files[f"bmam/{q.file_name}"]
    assert "tenant: &#x27;default&#x27;, user_id: &#x27;alice&#x27;" in browser_guide_html()

    out = tmp_path / "guide.html"
    result = CliRunner().invoke(app, ["inspect", "--tenant", "acme", "--user", "bob", "--guide", str(out)])
    assert result.exit_code == 0, result.output
    assert "tenant: &#x27;acme&#x27;, user_id: &#x27;bob&#x27;" in out.read_text(encoding="utf-8")
    result = CliRunner().invoke(app, ["inspect", "-u", "bob\nMATCH (n) DETACH DELETE n", "--guide", str(out)])
    assert result.exit_code != 0  # a newline in a favourite's `// :param` line would start a statement
