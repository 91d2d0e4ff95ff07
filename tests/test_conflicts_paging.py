"""conflicts and history a page at a time (against the real Neo4j): keyset cursors walk a user's conflicts
(newest first, ties by id) and history (oldest first) exactly once, in order, never another user's or another
tenant's; conflictsConnection / historyConnection answer pageInfo as memories does, the list fields take the same
cursors as `after` (their shape unchanged); a malformed cursor is BAD_USER_INPUT, first over 100 LIMIT_EXCEEDED;
the CLI (`--after`, the next cursor on standard error) and `bmam remote` page the same way."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.clock import FakeClock
from bmam.container import Container
from graph.conflicts import ConflictStatus, ConflictStrategy
from graph.errors import BadInput, LimitExceeded
from graph.model import Memory, Scope
from graph.paging import Paged, encode_id_cursor
from tests.test_conflicts import living, store

__all__ = ["living"]  # the fixture (a container on a fake clock), used by name

runner = CliRunner()
CITIES = ["Lisbon", "Porto", "Braga", "Faro", "Evora", "Coimbra"]


def held_for_review(c: Container, scope: Scope) -> list[Memory]:
    """Six memories of one single-valued slot, each held against every one before it (REVIEW): 15 OPEN conflicts,
    those of one memory all recorded at the same instant (the clock stands still while it is checked)."""
    out = []
    for city in CITIES:
        out.append(store(c, scope, f"I live in {city}", triples=[("user", "lives_in", city, 1)],
                         strategy=ConflictStrategy.REVIEW))
    return out


def changes_of_mind(c: Container, clock: FakeClock, scope: Scope, n: int) -> list[Memory]:
    """n memories of one slot, a day apart, each superseding the one before (LATEST): a chain of n in history."""
    out = []
    for i in range(n):
        out.append(store(c, scope, f"I work at Company{i}", triples=[("user", "works_at", f"Company{i}", 1)]))
        clock.advance(timedelta(days=1))
    return out


def walk(page_of: Callable[[str | None], Paged[Any]]) -> tuple[list[Any], list[int]]:
    """Every item of a listing, page after page, and the size of each page."""
    items: list[Any] = []
    sizes: list[int] = []
    after: str | None = None
    while True:
        page = page_of(after)
        items += page.items
        sizes.append(len(page.items))
        if page.next_cursor is None:
            return items, sizes
        assert page.cursors[-1] == page.next_cursor
        after = page.next_cursor


def walk_api(page_of: Callable[[str | None], dict[str, Any]]) -> tuple[list[dict[str, Any]], list[int]]:
    nodes: list[dict[str, Any]] = []
    sizes: list[int] = []
    after: str | None = None
    while True:
        page = page_of(after)
        nodes += [e["node"] for e in page["edges"]]
        sizes.append(len(page["edges"]))
        info = page["pageInfo"]
        if not info["hasNextPage"]:
            assert info["endCursor"] is None
            return nodes, sizes
        assert info["endCursor"] == page["edges"][-1]["cursor"]
        after = info["endCursor"]


def refusal(fn: Callable[[], object]) -> tuple[str, str | None]:
    with pytest.raises(BmamClientError) as err:
        fn()
    ext = (err.value.errors[0].get("extensions") or {}) if err.value.errors else {}
    return err.value.code, ext.get("field")


@pytest.fixture
def tenant_client(api_url: str, make_api_key: Callable[[str], str], tenant: str) -> Iterator[BmamClient]:
    c = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))
    yield c
    c.close()


# ----- the use-cases ------------------------------------------------------------------------------------------


def test_conflicts_page_newest_first_ties_by_id_exactly_once(living: tuple[Container, FakeClock], tenant: str,
                                                               ) -> None:
    c, clock = living
    alice, bob = Scope(tenant, "alice"), Scope(tenant, "bob")
    held_for_review(c, alice)
    clock.advance(timedelta(days=1))
    changes_of_mind(c, clock, bob, 3)  # bob's two conflicts are never alice's
    other_tenant = Scope(tenant + "-x", "alice")
    held_for_review(c, other_tenant)

    every = c.conflicts.conflicts(tenant, "alice", status=None, first=100)
    assert len(every) == 15 and {x.status for x in every} == {ConflictStatus.OPEN}
    assert [(x.created_at, x.id) for x in every] == sorted(((x.created_at, x.id) for x in every), reverse=True)
    assert len({x.created_at for x in every}) < len(every)  # ties on created_at: the id orders them

    for status in (None, "OPEN"):
        walked, sizes = walk(lambda after, s=status: c.conflicts.conflict_page(  # type: ignore[misc]
            tenant, "alice", status=s, first=4, after=after))
        assert [x.id for x in walked] == [x.id for x in every] and sizes == [4, 4, 4, 3]
    # the list takes the same cursors
    page = c.conflicts.conflict_page(tenant, "alice", status=None, first=4)
    assert [x.id for x in c.conflicts.conflicts(tenant, "alice", status=None, first=4, after=page.next_cursor)] == [
        x.id for x in every[4:8]]
    # nothing resolved; bob's two are resolved and his alone
    assert c.conflicts.conflict_page(tenant, "alice", status="RESOLVED", first=4).items == []
    bobs, sizes = walk(lambda after: c.conflicts.conflict_page(tenant, "bob", status=None, first=1, after=after))
    assert len(bobs) == 2 and sizes == [1, 1] and {x.status for x in bobs} == {ConflictStatus.RESOLVED}
    # an exact last page says there is no other
    last = c.conflicts.conflict_page(tenant, "alice", status=None, first=15)
    assert len(last.items) == 15 and last.next_cursor is None


def test_history_page_oldest_first_exactly_once(living: tuple[Container, FakeClock], tenant: str) -> None:
    c, clock = living
    scope = Scope(tenant, "dana")
    chain = changes_of_mind(c, clock, scope, 7)
    changes_of_mind(c, clock, Scope(tenant, "erin"), 4)

    every = c.conflicts.history(tenant, "dana", first=100)
    assert [h.memory.id for h in every] == [m.id for m in chain]  # oldest first
    walked, sizes = walk(lambda after: c.conflicts.history_page(tenant, "dana", first=3, after=after))
    assert [h.memory.id for h in walked] == [m.id for m in chain] and sizes == [3, 3, 1]
    assert walked[-1].memory.valid_to is None and all(h.memory.valid_to is not None for h in walked[:-1])
    # one memory's chain pages as well, and its supersession links come with each entry
    of_one, sizes = walk(lambda after: c.conflicts.history_page(tenant, "dana", memory_id=chain[3].id, first=2,
                                                                after=after))
    assert [h.memory.id for h in of_one][:4] == [m.id for m in chain[:4]] and sizes[0] == 2
    assert [h.superseded_by for h in of_one[:2]] == [[chain[1].id], [chain[2].id]]


def test_a_malformed_cursor_and_a_page_over_the_limit_are_refused(container: Container, tenant: str) -> None:
    for call in (lambda **kw: container.conflicts.conflict_page(tenant, "alice", **kw),
                 lambda **kw: container.conflicts.history_page(tenant, "alice", **kw),
                 lambda **kw: container.conflicts.conflicts(tenant, "alice", **kw),
                 lambda **kw: container.conflicts.history(tenant, "alice", **kw)):
        for bad in ("not a cursor", encode_id_cursor("alice"), "WyJub3QgYSB0aW1lIiwiYyJd"):
            with pytest.raises(BadInput) as err:
                call(first=5, after=bad)
            assert (err.value.message, err.value.field) == ("invalid cursor", "after")
        with pytest.raises(LimitExceeded):
            call(first=101)
        with pytest.raises(BadInput):
            call(first=0)


# ----- the API ---------------------------------------------------------------------------------------------------


def test_the_connections_page_as_memories_does_and_the_lists_keep_their_shape(
        living: tuple[Container, FakeClock], tenant: str, tenant_client: BmamClient) -> None:
    c, clock = living
    held_for_review(c, Scope(tenant, "alice"))
    chain = changes_of_mind(c, clock, Scope(tenant, "dana"), 5)
    every = [x.id for x in c.conflicts.conflicts(tenant, "alice", status=None, first=100)]

    nodes, sizes = walk_api(lambda after: tenant_client.conflicts_page("alice", status=None, first=6, after=after))
    assert [n["id"] for n in nodes] == every and sizes == [6, 6, 3]
    nodes, sizes = walk_api(lambda after: tenant_client.history_page("dana", first=2, after=after))
    assert [n["memory"]["id"] for n in nodes] == [m.id for m in chain] and sizes == [2, 2, 1]
    assert [n["current"] for n in nodes] == [False] * 4 + [True]

    # the list fields as before (a list of conflicts; first alone), and `after` takes a connection's cursor
    assert [x["id"] for x in tenant_client.conflicts("alice", status=None, first=100)] == every
    first_page = tenant_client.conflicts_page("alice", status=None, first=6)
    doc = ("query($u: String!, $a: String) { conflicts(userId: $u, status: null, first: 6, after: $a) { id } "
           "}")
    assert [x["id"] for x in tenant_client.execute(doc, {"u": "alice", "a": first_page["pageInfo"]["endCursor"]})[
        "conflicts"]] == every[6:12]
    history_page = tenant_client.history_page("dana", first=2)
    doc = "query($u: String!, $a: String) { history(userId: $u, first: 2, after: $a) { memory { id } } }"
    assert [x["memory"]["id"] for x in tenant_client.execute(doc, {"u": "dana", "a": history_page["pageInfo"][
        "endCursor"]})["history"]] == [m.id for m in chain[2:4]]

    # another tenant's key sees none of it
    assert tenant_client.conflicts_page("bob", status=None)["edges"] == []


def test_the_api_refuses_a_malformed_cursor_and_a_page_over_the_limit(tenant_client: BmamClient) -> None:
    for page in (lambda **kw: tenant_client.conflicts_page("alice", **kw),
                 lambda **kw: tenant_client.history_page("alice", **kw)):
        assert refusal(lambda p=page: p(after="%%%")) == ("BAD_USER_INPUT", "after")  # type: ignore[misc]
        assert refusal(lambda p=page: p(first=101))[0] == "LIMIT_EXCEEDED"  # type: ignore[misc]
    for field in ("conflicts", "history"):
        doc = f"query($a: String) {{ {field}(userId: \"alice\", first: 5, after: $a) {{ __typename }} }}"
        assert refusal(lambda d=doc: tenant_client.execute(d, {"a": "!!"})) == (  # type: ignore[misc]
            "BAD_USER_INPUT", "after")
        doc = f"{{ {field}(userId: \"alice\", first: 101) {{ __typename }} }}"
        assert refusal(lambda d=doc: tenant_client.execute(d))[0] == "LIMIT_EXCEEDED"  # type: ignore[misc]


# ----- the CLI and bmam remote --------------------------------------------------------------------------------


def _more(stderr: str) -> str | None:
    lines = [ln for ln in stderr.splitlines() if ln.startswith("more: --after ")]
    return lines[-1].removeprefix("more: --after ") if lines else None


def cli_walk(args: list[str], env: dict[str, str] | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """Every JSON line of a paged command, following `more: --after` from page to page."""
    out: list[dict[str, Any]] = []
    sizes: list[int] = []
    after: str | None = None
    while True:
        result = runner.invoke(cli_app, args + (["--after", after] if after else []), env=env)
        assert result.exit_code == 0, result.output
        lines = [json.loads(ln) for ln in result.stdout.splitlines() if ln.strip()]
        out += lines
        sizes.append(len(lines))
        after = _more(result.stderr)
        if after is None:
            return out, sizes


def test_the_cli_and_remote_page_conflicts_and_history(living: tuple[Container, FakeClock], tenant: str,
                                                       api_url: str, make_api_key: Callable[[str], str]) -> None:
    c, clock = living
    held_for_review(c, Scope(tenant, "alice"))
    chain = changes_of_mind(c, clock, Scope(tenant, "dana"), 4)
    every = [x.id for x in c.conflicts.conflicts(tenant, "alice", status=None, first=100)]

    lines, sizes = cli_walk(["conflicts", "-u", "alice", "--all", "--first", "7", "--tenant", tenant])
    assert [x["id"] for x in lines] == every and sizes == [7, 7, 1]
    lines, sizes = cli_walk(["history", "-u", "dana", "--first", "3", "--tenant", tenant])
    assert [x["id"] for x in lines] == [m.id for m in chain] and sizes == [3, 1]

    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": make_api_key(tenant)}
    lines, sizes = cli_walk(["remote", "conflicts", "-u", "alice", "--all", "--first", "7"], env=env)
    assert [x["id"] for x in lines] == every and sizes == [7, 7, 1]
    lines, sizes = cli_walk(["remote", "history", "-u", "dana", "--first", "3"], env=env)
    assert [x["memory"]["id"] for x in lines] == [m.id for m in chain] and sizes == [3, 1]

    for args, e in ((["conflicts", "-u", "alice", "--tenant", tenant], None),
                    (["history", "-u", "dana", "--tenant", tenant], None),
                    (["remote", "conflicts", "-u", "alice"], env), (["remote", "history", "-u", "dana"], env)):
        bad = runner.invoke(cli_app, [*args, "--after", "garbage"], env=e)
        assert bad.exit_code == 2 and "invalid cursor" in bad.output, bad.output
        over = runner.invoke(cli_app, [*args, "--first", "101"], env=e)
        assert over.exit_code == 2 and "LIMIT_EXCEEDED" in over.output, over.output
