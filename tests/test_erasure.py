"""forgetUser: every node, edge, embedding and episode of one user of one tenant goes; a receipt with
counts and a re-query proving none remain; other users and other tenants untouched."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.erasure import ErasureUseCases
from graph.erasure import ErasureRepository
from graph.errors import BadInput
from graph.model import ErasureReceipt, Scope


def _tenant() -> str:
    return f"test-erase-{uuid.uuid4().hex[:10]}"


def _fill(c: BmamClient, user: str) -> None:
    """A user with memories, triples, an association, and an ingested turn: an episode and a session."""
    a = c.remember(user, "I live in Chengdu and love hotpot", "FACTUAL")
    b = c.remember(user, "上次在成都吃的火锅很棒", "EPISODIC", tier="MID")
    c.add_triple(user, a["id"], "user", "lives in", "Chengdu", objectKind="place")
    c.add_triple(user, a["id"], "user", "likes", "hotpot", objectKind="food")
    c.associate(user, a["id"], b["id"], 0.7)
    assert c.ingest_turn(user, "s1", "user", "My sister is a nurse in Berlin", turn=1)["episodeId"]


def test_forget_user_erases_everything_and_proves_it(
    api_url: str, make_api_key: Callable[[str], str], container: Container
) -> None:
    tenant = _tenant()
    c = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))
    _fill(c, "alice")
    _fill(c, "bob")
    bob_before = container.erasure.tenant_user_nodes(tenant)
    alice_nodes = ErasureRepository(container.store).remaining(Scope(tenant, "alice"))[0]
    assert alice_nodes >= 6  # User, 2+ Memory, 3 Entity (+ episodes, session)

    with pytest.raises(BmamClientError) as err:
        c.forget_user("alice", confirm=False)
    assert err.value.code == "BAD_USER_INPUT"
    assert container.erasure.tenant_user_nodes(tenant) == bob_before

    receipt = c.forget_user("alice", confirm=True)
    labels = {x["label"]: x["count"] for x in receipt["nodesByLabel"]}
    types = {x["label"]: x["count"] for x in receipt["relationshipsByType"]}
    assert receipt["verified"] is True
    assert receipt["remainingNodes"] == 0 and receipt["remainingRelationships"] == 0
    assert receipt["nodesRemoved"] == alice_nodes
    assert labels["User"] == 1 and labels["Memory"] >= 2 and labels["Entity"] >= 3
    assert labels["Episode"] == 1 and labels["Session"] == 1  # the ingested turn's, gone with the rest
    assert labels.get("Factual", 0) >= 1 and labels.get("Episodic", 0) >= 1
    assert types["TRIPLE"] >= 2 and types["ASSOCIATED"] == 1 and types["HAS_MEMORY"] >= 2
    assert receipt["relationshipsRemoved"] == sum(types.values())

    # Nothing of alice answers any more; bob is whole.
    assert c.memories("alice")["edges"] == []
    assert c.search("alice", "hotpot", k=5) == []
    assert ErasureRepository(container.store).remaining(Scope(tenant, "alice")) == (0, 0)
    assert container.erasure.tenant_user_nodes(tenant) == bob_before - alice_nodes
    assert len(c.memories("bob")["edges"]) >= 2

    again = c.forget_user("alice", confirm=True)
    assert again["nodesRemoved"] == 0 and again["verified"] is True
    c.close()


def test_batches_and_hooks(container: Container) -> None:
    """Small batches loop until nothing is left; hooks hear of the erasure; confirm is required."""
    tenant = _tenant()
    for i in range(5):
        container.memories.remember(tenant, _req("carol", f"memory number {i}"))
    heard: list[Scope] = []

    def hear(scope: Scope) -> None:
        heard.append(scope)

    erasure = ErasureUseCases(repository=ErasureRepository(container.store, batch_size=2), clock=container.clock,
                              hooks=[hear])
    with pytest.raises(BadInput):
        erasure.forget_user(tenant, "carol", confirm=False)
    receipt = erasure.forget_user(tenant, "carol", confirm=True)
    assert receipt.nodes_by_label["Memory"] == 5 and receipt.nodes_by_label["User"] == 1
    assert receipt.relationships_by_type == {"HAS_MEMORY": 5}
    assert receipt.verified and heard == [Scope(tenant, "carol")]
    assert erasure.tenant_user_nodes(tenant) == 0


def test_the_per_label_sweeps_suffice_for_what_bmam_writes(container: Container) -> None:
    """A user holding only labels bmam writes is erased by the per-label sweeps and proved by one re-query:
    no label-free sweep scans the whole store."""
    tenant = _tenant()
    for i in range(3):
        container.memories.remember(tenant, _req("erin", f"memory number {i}"))
    receipt, ran = _forget_counting_statements(container, tenant, "erin")
    assert receipt.verified and receipt.nodes_by_label["Memory"] == 3
    assert ran.count("erasure/remaining") == 1
    assert "erasure/batch_any" not in ran and "erasure/batch_relationships" not in ran


def test_a_label_bmam_does_not_write_is_erased_too(container: Container) -> None:
    """A node of the user with a label a deployment added (written here straight to Neo4j) is found by the
    re-query after the per-label sweeps and erased by the label-free sweep; the receipt counts it."""
    from neo4j import GraphDatabase

    tenant = _tenant()
    container.memories.remember(tenant, _req("finn", "I keep bees on the roof"))
    n = container.settings.neo4j
    with GraphDatabase.driver(n.bolt_uri, auth=(n.user, n.password) if n.password else None) as driver:
        driver.execute_query(
            "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = 'finn' "
            "CREATE (:FeatureNote {tenant: $t, user_id: 'finn'})-[:NOTE_OF {tenant: $t, user_id: 'finn'}]->(m)",
            t=tenant)
    receipt, ran = _forget_counting_statements(container, tenant, "finn")
    assert receipt.nodes_by_label["FeatureNote"] == 1 and receipt.relationships_by_type["NOTE_OF"] == 1
    assert receipt.verified and (receipt.remaining_nodes, receipt.remaining_relationships) == (0, 0)
    assert "erasure/batch_any" in ran and ran.count("erasure/remaining") == 2
    assert container.erasure.tenant_user_nodes(tenant) == 0


def _forget_counting_statements(container: Container, tenant: str, user: str) -> tuple[ErasureReceipt, list[str]]:
    """forgetUser, with the names of the statements it ran."""
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        return container.erasure.forget_user(tenant, user, confirm=True), ran
    finally:
        container.store.timer.listeners.pop()


def _req(user: str, text: str):  # type: ignore[no-untyped-def]
    from bmam.usecases.memories import RememberRequest

    return RememberRequest(user_id=user, text=text, type="FACTUAL")


def test_forget_user_drops_working_memory_held_in_the_process(settings: Settings, tenant: str) -> None:
    """With session_state=local the last turns are held in the process: forgetUser drops them with the
    episodes, so neither workingMemory nor the context prompt shows the erased user's words."""
    from ingest.turns import TurnInput

    local = settings.model_copy(update={"deployment": settings.deployment.model_copy(
        update={"session_state": "local"})})
    c = Container(local)
    try:
        c.ingest.ingest_conversation(tenant, [
            TurnInput(user_id="alice", session_id="s1", speaker="user", text="My passport number is E12345678")])
        assert [t.text for t in c.ingest.working_memory(tenant, "alice", "s1")] == [
            "My passport number is E12345678"]
        c.erasure.forget_user(tenant, "alice", confirm=True)
        assert c.ingest.working_memory(tenant, "alice", "s1") == []
        assert "E12345678" not in c.recall.context_prompt(tenant, "alice", "s1", "what do you know about me?").text
    finally:
        c.close()


def test_forget_user_drops_the_turns_the_triple_extractor_keeps(container: Container, tenant: str) -> None:
    """Ingest's extractor cache holds the raw text of recent turns: forgetUser drops the user's, not others'."""
    from bmam.usecases.ingest import CachingExtractor
    from ingest.turns import TurnInput

    extractor = container.ingest._extractor
    assert isinstance(extractor, CachingExtractor)
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="alice", session_id="s1", speaker="user", text="My passport number is E12345678"),
        TurnInput(user_id="bob", session_id="s1", speaker="user", text="My sister lives in Berlin")])

    def held(user: str) -> list[str]:
        return [text for (t, u, text) in list(extractor._cache) if (t, u) == (tenant, user)]

    assert held("alice") == ["My passport number is E12345678"] and held("bob") == ["My sister lives in Berlin"]
    container.erasure.forget_user(tenant, "alice", confirm=True)
    assert held("alice") == []
    assert held("bob") == ["My sister lives in Berlin"]


def test_the_extractor_cache_extracts_a_users_text_once_and_forgets_by_user() -> None:
    from bmam.usecases.ingest import CachingExtractor, extracting_for
    from ingest.extract import RuleTripleExtractor

    calls: list[str] = []
    rules = RuleTripleExtractor()

    class Counting:
        def extract(self, text: str):  # type: ignore[no-untyped-def]
            calls.append(text)
            return rules.extract(text)

    cache = CachingExtractor(Counting())
    alice, bob = Scope("t", "alice"), Scope("t", "bob")
    text = "I live in Chengdu"
    with extracting_for(alice):
        first = cache.extract(text)
        assert cache.extract(text) == first and len(calls) == 1
    with extracting_for(bob):
        assert cache.extract(text) == first and len(calls) == 2  # kept apart per user
    cache.forget_user(alice)
    with extracting_for(bob):
        cache.extract(text)
    with extracting_for(alice):
        cache.extract(text)
    assert len(calls) == 3  # alice's entry went, bob's stayed
    assert cache.extract(text) == first and len(calls) == 4  # outside a user's ingest: not kept
