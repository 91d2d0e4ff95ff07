"""A memory's links through every face (real Neo4j): removing an association (use-case, GraphQL over HTTP, CLI),
"not related" (associate with strength 0) surviving memories recalled together, and the CLI's triples and
associations commands with their errors."""

from __future__ import annotations

import json
import uuid

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.errors import BadInput, NotFound
from graph.memories import WeightShares
from graph.model import Scope
from graph.recall import RecallRepository
from graph.store import Tx

runner = CliRunner()
USER = "alice"


def two(c: Container, tenant: str, user: str = USER) -> tuple[str, str]:
    a = c.memories.remember(tenant, RememberRequest(user_id=user, text="Biscuit is my dog", type="FACTUAL"))
    b = c.memories.remember(tenant, RememberRequest(user_id=user, text="I bought a red kettle", type="FACTUAL"))
    return a.id, b.id


def strengths(c: Container, tenant: str, memory_id: str) -> list[float]:
    return [round(x.strength, 6) for x in c.memories.associations(tenant, USER, memory_id)]


def recalled_together(c: Container, tenant: str, a: str, b: str) -> None:
    """What recall's usage update does to the top memories it returns (recall/touch)."""
    repo = RecallRepository(c.store, c.vector_dimensions)
    low, high = sorted((a, b))

    def touch(tx: Tx) -> None:
        repo.touch(tx, Scope(tenant, USER), [a, b], now=c.clock.now(), boost=0.1, shares=WeightShares(),
                   pairs=[(low, high)], delta=c.settings.recall.co_recall_delta)

    c.store.write_tx(touch)


def test_dissociate_removes_the_pair_s_edge_and_says_whether_there_was_one(container: Container,
                                                                         tenant: str) -> None:
    c = container
    a, b = two(c, tenant)
    c.memories.associate(tenant, USER, a, b, 0.7)
    assert c.memories.dissociate(tenant, USER, b, a) is True  # either order: one edge per pair
    assert strengths(c, tenant, a) == [] and strengths(c, tenant, b) == []
    assert c.memories.dissociate(tenant, USER, a, b) is False
    assert {m.id for m in c.memories.page(tenant, USER).items} == {a, b}  # the memories stay


def test_dissociate_refuses_another_user_s_memory_and_a_memory_with_itself(container: Container,
                                                                           tenant: str) -> None:
    c = container
    a, b = two(c, tenant)
    c.memories.associate(tenant, USER, a, b, 0.7)
    with pytest.raises(NotFound):
        c.memories.dissociate(tenant, "mallory", a, b)
    with pytest.raises(NotFound):
        c.memories.dissociate(tenant, USER, a, "no-such-memory")
    with pytest.raises(BadInput):
        c.memories.dissociate(tenant, USER, a, a)
    assert strengths(c, tenant, a) == [0.7]  # nothing removed by the refused calls


def test_not_related_stays_so_when_the_pair_is_recalled_together(container: Container, tenant: str) -> None:
    """Memories recalled together strengthen their edge (+co_recall_delta), a user-set one too; a 0 the user set
    is their "not related" and stays 0."""
    c = container
    a, b = two(c, tenant)
    delta = c.settings.recall.co_recall_delta
    recalled_together(c, tenant, a, b)
    assert strengths(c, tenant, a) == [pytest.approx(delta)]  # formed by being recalled together
    c.memories.associate(tenant, USER, a, b, 0.3)
    recalled_together(c, tenant, a, b)
    assert strengths(c, tenant, a) == [pytest.approx(0.3 + delta)]
    c.memories.associate(tenant, USER, a, b, 0.0)
    recalled_together(c, tenant, a, b)
    recalled_together(c, tenant, a, b)
    assert strengths(c, tenant, a) == [0.0]


def test_dissociate_over_graphql(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:10]}"
    a = client.remember(user, "I love spicy food", "FACTUAL")["id"]
    b = client.remember(user, "上次在成都吃的火锅很棒", "EPISODIC")["id"]
    client.associate(user, a, b, 0.8)
    assert client.dissociate(user, a, b) == {"memoryA": a, "memoryB": b, "removed": True}
    assert client.associations(user, a) == []
    assert client.dissociate(user, a, b)["removed"] is False
    with pytest.raises(BmamClientError) as err:
        client.dissociate("someone-else", a, b)
    assert err.value.code == "NOT_FOUND"
    with pytest.raises(BmamClientError) as err:
        client.dissociate(user, a, a)
    assert err.value.code == "BAD_USER_INPUT"


def test_the_cli_adds_and_lists_triples_and_sets_lists_and_removes_associations(container: Container,
                                                                                tenant: str) -> None:
    c = container
    a, b = two(c, tenant)
    base = ["-u", USER, "--tenant", tenant]
    out = runner.invoke(app, ["add-triple", *base, a, "Biscuit", "is_a", "dog", "--subject-kind", "pet"])
    assert out.exit_code == 0, out.output
    added = json.loads(out.stdout)
    assert (added["subject"], added["subject_kind"], added["predicate"], added["object"], added["polarity"]) == \
        ("Biscuit", "pet", "is_a", "dog", 1)
    listed = runner.invoke(app, ["triples", *base, a])
    assert [json.loads(x)["id"] for x in listed.stdout.splitlines()] == [added["id"]]
    assert json.loads(runner.invoke(app, ["associate", *base, a, b, "--strength", "0.4"]).stdout)["strength"] == 0.4
    assert [json.loads(x)["strength"] for x in runner.invoke(app, ["associations", *base, b]).stdout.splitlines()] \
        == [0.4]
    assert json.loads(runner.invoke(app, ["dissociate", *base, b, a]).stdout)["removed"] is True
    assert runner.invoke(app, ["associations", *base, b]).stdout == ""
    assert strengths(c, tenant, a) == []


@pytest.mark.parametrize("args, code, says", [
    (["associate", "{a}", "{b}", "--strength", "1.5"], 2, "strength"),
    (["dissociate", "{a}", "nope"], 1, "NOT_FOUND"),
    (["add-triple", "nope", "user", "likes", "tea"], 1, "NOT_FOUND"),
    (["add-triple", "{a}", "user", "", "tea"], 2, "predicate"),
])
def test_the_cli_s_errors_are_one_line_and_a_non_zero_exit(container: Container, tenant: str, args: list[str],
                                                          code: int, says: str) -> None:
    a, b = two(container, tenant)
    out = runner.invoke(app, [args[0], "-u", USER, "--tenant", tenant, *[x.format(a=a, b=b) for x in args[1:]]])
    assert out.exit_code == code, out.output
    assert says in out.stderr and "Traceback" not in out.output
    assert len(out.stderr.strip().splitlines()) == 1
    assert strengths(container, tenant, a) == [] and container.memories.triples(tenant, USER, a) == []


def test_a_memory_recalled_through_an_association_alone_does_not_strengthen_it(container: Container,
                                                                              tenant: str) -> None:
    """Recall strengthens the pairs of its direct hits: a memory here only through an edge strengthening that
    edge would feed itself (a link on a filler word grew 0.5 -> 0.95 and rode along every recall)."""
    c = container
    dog = c.memories.remember(tenant, RememberRequest(user_id=USER, text="Biscuit is my dog, a beagle",
                                                      type="FACTUAL")).id
    kettle = c.memories.remember(tenant, RememberRequest(user_id=USER, text="I bought a red kettle",
                                                         type="FACTUAL")).id
    c.memories.associate(tenant, USER, dog, kettle, 0.9)
    result = c.recall.recall(tenant, RecallRequest(user_id=USER, query="What breed is my dog Biscuit?"))
    by_id = {r.memory.id: r for r in result.memories}
    assert dog in by_id and kettle in by_id and "linked to" in by_id[kettle].why  # through the edge alone
    assert strengths(c, tenant, dog) == [0.9]


def test_triples_and_associations_of_a_memory_the_user_does_not_have_are_not_found(container: Container,
                                                                                 tenant: str) -> None:
    """They answered [] for another user's memory or a forgotten one, as if it asserted nothing; relatedSearch
    says NOT_FOUND, and so do they now (the other user's data is never read)."""
    a, _ = two(container, tenant)
    for user, memory in (("mallory", a), (USER, "m_nope")):
        with pytest.raises(NotFound):
            container.memories.triples(tenant, user, memory)
        with pytest.raises(NotFound):
            container.memories.associations(tenant, user, memory)
    out = runner.invoke(app, ["triples", "-u", "mallory", "--tenant", tenant, a])
    assert out.exit_code == 1 and "NOT_FOUND" in out.stderr
