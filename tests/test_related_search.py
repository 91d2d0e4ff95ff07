"""relatedSearch against a networkx reference on random graphs (hypothesis): cycles, parallel paths (an
association and shared entities between the same pair), dead ends (an entity only one memory mentions),
hubs above the degree cap, zero-strength edges, several users. Same memories, same best-path scores
(to 1e-9), and every returned path is a real path of the graph whose strengths multiply to the score. A dense
user (every two memories associated) against a hop-bounded reference, within the search's bound; and a
transaction Neo4j stops at its timeout, which is TIMEOUT, not UNAVAILABLE."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field, replace

import networkx as nx
import pytest
from graphql import GraphQLError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import BadInput, NotFound, StoreTimeout
from graph.model import Scope
from graph.related import RelatedMemory, RelatedRepository, Via
from graph.store import GraphStore
from graph.triples import TripleRepository

STRENGTHS = st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.5, 0.8, 0.9, 1.0]) | st.floats(0.05, 1.0)


@dataclass
class UserGraph:
    """What a test user holds: memories, association strengths per pair, entity mentions."""

    memories: list[str] = field(default_factory=list)
    associations: dict[tuple[str, str], float] = field(default_factory=dict)
    mentions: dict[str, set[str]] = field(default_factory=dict)  # entity name -> memory ids


@st.composite
def user_graphs(draw: st.DrawFn) -> dict:
    n = draw(st.integers(2, 7))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=min(len(pairs), 9))) if pairs else []
    assoc = {p: draw(STRENGTHS) for p in chosen}
    # Entities: each memory mentions a few of a small pool (several memories of one -> entity hops;
    # one memory only -> a dead end). Entity names come in pairs through triples.
    triples = draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from("ABCDE"), st.sampled_from("ABCDE")),
                            max_size=6))
    return {"n": n, "assoc": assoc, "triples": [(m, s, o) for m, s, o in triples if s != o]}


def build(c: Container, tenant: str, user: str, spec: dict) -> UserGraph:
    g = UserGraph()
    for i in range(spec["n"]):
        m = c.memories.remember(tenant, RememberRequest(user_id=user, text=f"memory {i} of {user}", type="FACTUAL"))
        g.memories.append(m.id)
    for (i, j), s in spec["assoc"].items():
        c.memories.associate(tenant, user, g.memories[i], g.memories[j], s)
        g.associations[tuple(sorted((g.memories[i], g.memories[j])))] = s
    for i, subj, obj in spec["triples"]:
        add_triple(c, Scope(tenant, user), g.memories[i], subj, obj)
        for name in (subj, obj):
            g.mentions.setdefault(name, set()).add(g.memories[i])
    return g


def add_triple(c: Container, scope: Scope, memory_id: str, subject: str, object_: str) -> None:
    """The triple alone, as ingest writes it: addTriple would also run the memory's hooks, whose association
    forming adds edges of its own (the reference knows only the associations and mentions given)."""
    TripleRepository(c.store).add(scope, memory_id=memory_id, subject=subject, subject_kind="thing", predicate="rel",
                                  object_=object_, object_kind="thing", polarity=1, now=c.clock.now())


def entity_strength(degree: int, base: float, max_degree: int) -> float:
    """The reference's reading of README 'Recall': min(1, base / sqrt(mentions - 1)); none for a hub."""
    if degree < 2 or degree > max_degree:
        return 0.0
    return min(1.0, base / math.sqrt(degree - 1))


def reference(g: UserGraph, start: str, depth: int, min_strength: float, base: float,
              max_degree: int) -> dict[str, float]:
    """Best product of strengths over simple paths of at most `depth` hops, by enumeration in networkx."""
    graph = nx.MultiGraph()
    graph.add_nodes_from(g.memories)
    for (a, b), s in g.associations.items():
        graph.add_edge(a, b, strength=s)
    for members in g.mentions.values():
        s = entity_strength(len(members), base, max_degree)
        ms = sorted(members)
        for i, a in enumerate(ms):
            for b in ms[i + 1:]:
                graph.add_edge(a, b, strength=s)
    best: dict[str, float] = {}
    for target in g.memories:
        if target == start:
            continue
        for path in nx.all_simple_edge_paths(graph, start, target, cutoff=depth):
            score = 1.0
            for u, v, k in path:
                score *= graph.edges[u, v, k]["strength"]
            if score > best.get(target, 0.0):
                best[target] = score
    return {t: s for t, s in best.items() if s > 0.0 and s >= min_strength}


def check_path(g: UserGraph, start: str, r: RelatedMemory, depth: int, base: float, max_degree: int) -> None:
    assert 1 <= len(r.path) <= depth
    assert r.path[0].from_id == start and r.path[-1].to_id == r.memory.id
    product = 1.0
    for prev, step in zip([None, *r.path], r.path, strict=False):
        if prev is not None:
            assert prev.to_id == step.from_id
        if step.via is Via.ASSOCIATED:
            assert g.associations[tuple(sorted((step.from_id, step.to_id)))] == pytest.approx(step.strength)  # type: ignore[index]
        else:
            members = g.mentions[step.entity or ""]
            assert {step.from_id, step.to_id} <= members
            assert step.strength == pytest.approx(entity_strength(len(members), base, max_degree))
        product *= step.strength
    assert product == pytest.approx(r.score, abs=1e-9)


@given(alice=user_graphs(), bob=user_graphs(), depth=st.integers(1, 4), min_strength=st.sampled_from([0.0, 0.05, 0.2]))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
def test_related_search_matches_the_networkx_reference(container: Container, alice: dict, bob: dict, depth: int,
                                                       min_strength: float) -> None:
    tenant = f"test-{uuid.uuid4().hex[:12]}"
    ga = build(container, tenant, "alice", alice)
    gb = build(container, tenant, "bob", bob)  # same entity names, another user: never reached
    rc = container.recall
    base, max_degree = rc.traversal.entity_base, rc.traversal.max_degree
    for start in ga.memories:
        found = rc.related(tenant, "alice", start, depth=depth, limit=100, min_strength=min_strength)
        expected = reference(ga, start, depth, min_strength, base, max_degree)
        got = {r.memory.id: r.score for r in found}
        assert got.keys() == expected.keys()
        for memory_id, score in expected.items():
            assert got[memory_id] == pytest.approx(score, abs=1e-9)
        assert all(r.memory.user_id == "alice" and r.memory.id not in gb.memories for r in found)
        for r in found:
            check_path(ga, start, r, depth, base, max_degree)
        scores = [r.score for r in found]
        assert scores == sorted(scores, reverse=True)


def test_limit_keeps_the_best(container: Container, tenant: str) -> None:
    g = build(container, tenant, "alice", {"n": 5, "assoc": {(0, 1): 0.9, (0, 2): 0.5, (0, 3): 0.7, (0, 4): 0.2},
                                           "triples": []})
    found = container.recall.related(tenant, "alice", g.memories[0], depth=1, limit=2)
    assert [r.memory.id for r in found] == [g.memories[1], g.memories[3]]


def test_a_hub_entity_is_never_crossed(container: Container, tenant: str) -> None:
    """An entity mentioned by more memories than max_entity_degree links nothing. Not the entity 'user' (it
    links nothing at any degree, below): an ordinary name, which links its memories up to the cap."""
    cap = container.recall.traversal.max_degree
    spec = {"n": cap + 1, "assoc": {}, "triples": [(i, "hub", f"thing{i}") for i in range(cap)]}
    g = build(container, tenant, "alice", spec)
    # at the cap it is still crossed: the degree is what the next mention changes
    assert len(container.recall.related(tenant, "alice", g.memories[0], depth=1, limit=100)) == cap - 1
    add_triple(container, Scope(tenant, "alice"), g.memories[cap], "hub", f"thing{cap}")
    assert container.recall.related(tenant, "alice", g.memories[0], depth=3) == []


def test_the_user_themself_links_nothing_even_below_the_hub_cap(container: Container, tenant: str) -> None:
    """Every "I ..." memory mentions the entity 'user': a hub from the first memories on, so it forms no
    association and makes no hop, whatever its degree; another entity the memories share still does."""
    spec = {"n": 3, "assoc": {}, "triples": [(0, "user", "tea"), (1, "user", "Chengdu"), (2, "user", "Chengdu")]}
    g = build(container, tenant, "alice", spec)
    scope = Scope(tenant, "alice")
    assert container.association_forming.form(scope, g.memories[0]) == []
    assert container.recall.related(tenant, "alice", g.memories[0], depth=3) == []
    formed = container.association_forming.form(scope, g.memories[1])
    assert {frozenset((a.memory_a, a.memory_b)) for a in formed} == {frozenset(g.memories[1:])}  # Chengdu
    assert [r.memory.id for r in container.recall.related(tenant, "alice", g.memories[2], depth=3)] == [
        g.memories[1]]


def test_another_users_memory_is_not_found(container: Container, tenant: str) -> None:
    g = build(container, tenant, "alice", {"n": 2, "assoc": {(0, 1): 0.9}, "triples": []})
    with pytest.raises(NotFound):
        container.recall.related(tenant, "mallory", g.memories[0])
    with pytest.raises(NotFound):
        container.recall.related("another-tenant", "alice", g.memories[0])
    with pytest.raises(NotFound):
        container.recall.related(tenant, "alice", "m_does_not_exist")


@pytest.mark.parametrize("depth", [0, -1, 6, 50])
def test_depth_outside_one_to_five_is_refused(container: Container, tenant: str, depth: int) -> None:
    g = build(container, tenant, "alice", {"n": 2, "assoc": {(0, 1): 0.9}, "triples": []})
    with pytest.raises(BadInput) as err:
        container.recall.related(tenant, "alice", g.memories[0], depth=depth)
    assert err.value.field == "depth"


def test_association_forming_links_memories_sharing_an_entity(container: Container, tenant: str) -> None:
    g = build(container, tenant, "alice", {"n": 3, "assoc": {}, "triples": [(0, "Biscuit", "dog"),
                                                                           (1, "Biscuit", "tennis ball")]})
    formed = container.association_forming.form(Scope(tenant, "alice"), g.memories[1])
    pair = {frozenset((a.memory_a, a.memory_b)): a.strength for a in formed}
    assert pair == {frozenset((g.memories[0], g.memories[1])): pytest.approx(0.5)}  # Biscuit: 2 mentions
    # the third memory mentions nothing it shares: no edge
    assert container.association_forming.form(Scope(tenant, "alice"), g.memories[2]) == []
    # forming again keeps the stronger strength, never a second edge
    container.memories.associate(tenant, "alice", g.memories[0], g.memories[1], 0.9)
    container.association_forming.form(Scope(tenant, "alice"), g.memories[1])
    assert [a.strength for a in container.memories.associations(tenant, "alice", g.memories[0])] == [
        pytest.approx(0.9)]


def test_episode_mates_are_associated(container: Container, tenant: str) -> None:
    g = build(container, tenant, "alice", {"n": 3, "assoc": {}, "triples": []})
    formed = container.association_forming.form(Scope(tenant, "alice"), g.memories[0],
                                                episode_mates=g.memories[1:])
    assert len(formed) == 2
    strength = container.settings.recall.same_episode_strength
    assert all(a.strength == pytest.approx(strength) for a in formed)


def test_memories_sharing_a_rare_word_are_associated(container: Container, tenant: str) -> None:
    """A name the extractor never saw still links two memories: the shared rare word is an implicit entity.
    A word many memories hold (here "today") links nothing."""
    c = container
    texts = [f"Note number {i} about {word}" for i, word in enumerate("abcdefghijklmnopqrst")]
    texts += ["Today I had soup", "Today I walked in the park", "Today it rained", "My best friend is Jack",
              "Jack has recently gotten into fly fishing", "Today I cleaned the flat"]
    ids = []
    for text in texts:
        m = c.memories.remember(tenant, RememberRequest(user_id="alice", text=text, type="FACTUAL"))
        c.association_forming.form(Scope(tenant, "alice"), m.id, text=text)
        ids.append(m.id)
    ids = ids[20:]
    linked = {frozenset((a.memory_a, a.memory_b)): a.strength for a in c.memories.associations(tenant, "alice", ids[4])}
    assert linked == {frozenset((ids[3], ids[4])): pytest.approx(0.5)}  # "jack": one other memory holds it
    assert c.memories.associations(tenant, "alice", ids[5]) == []  # "today": three others hold it
    assert ids[4] in {r.memory.id for r in c.recall.related(tenant, "alice", ids[3], depth=1)}


def test_graphql_related_search_takes_the_configured_defaults(container: Container, api_key: str,
                                                               api_tenant: str) -> None:
    """depth, limit and minStrength left out (or null) are the settings recall.related_*; given, they are used as
    before, and refused as before."""
    from typing import Any

    from starlette.testclient import TestClient

    from resolvers.app import create_app

    user = f"alice-{uuid.uuid4().hex[:8]}"
    # m0 -0.9- m1 -0.8- m3 (0.72 at depth 2); m0 -0.7- m4; m0 -0.3- m2 (below 0.6)
    g = build(container, api_tenant, user, {"n": 5, "assoc": {(0, 1): 0.9, (1, 3): 0.8, (0, 4): 0.7, (0, 2): 0.3},
                                           "triples": []})
    configured = container.settings.model_copy(deep=True)
    configured.recall.related_depth, configured.recall.related_limit = 1, 1
    configured.recall.related_min_strength = 0.6
    other = Container(configured)
    try:
        with TestClient(create_app(other, migrate=False, dev_key_enabled=False)) as http:
            def related(args: str) -> Any:
                doc = f'{{ relatedSearch(userId: "{user}", memoryId: "{g.memories[0]}"{args}) {{ memory {{ id }} }} }}'
                return http.post("/graphql", json={"query": doc}, headers={"X-API-Key": api_key}).json()

            def ids(args: str) -> list[str]:
                answer = related(args)
                assert "errors" not in answer, answer
                return [r["memory"]["id"] for r in answer["data"]["relatedSearch"]]

            m = g.memories
            assert ids("") == [m[1]]  # depth 1, limit 1, minStrength 0.6
            assert ids(", depth: null, limit: null, minStrength: null") == [m[1]]
            assert ids(", limit: 10") == [m[1], m[4]]  # depth 1; minStrength 0.6 leaves m2 out
            assert ids(", limit: 10, depth: 2") == [m[1], m[3], m[4]]
            assert ids(", limit: 10, depth: 2, minStrength: 0.05") == [m[1], m[3], m[4], m[2]]
            for args, name in ((", depth: 6", "depth"), (", limit: 0", "limit"), (", minStrength: 1.5", "minStrength")):
                error = related(args)["errors"][0]
                assert error["extensions"]["code"] == "BAD_USER_INPUT", error
                assert error["extensions"].get("field") == name, error
    finally:
        other.close()


def best_within(g: UserGraph, start: str, depth: int, min_strength: float) -> dict[str, float]:
    """Best product of association strengths over at most `depth` hops (hop-bounded Bellman-Ford: strengths are
    <= 1, so a walk is never better than the simple path inside it), for graphs too dense to enumerate."""
    adjacent: dict[str, list[tuple[str, float]]] = {m: [] for m in g.memories}
    for (a, b), s in g.associations.items():
        adjacent[a].append((b, s))
        adjacent[b].append((a, s))
    best = {start: 1.0}
    for _ in range(depth):
        reached = dict(best)
        for node, score in best.items():
            for other, s in adjacent[node]:
                if score * s > reached.get(other, 0.0):
                    reached[other] = score * s
        best = reached
    return {m: s for m, s in best.items() if m != start and s > 0.0 and s >= min_strength}


@pytest.fixture
def dense(container: Container, tenant: str) -> UserGraph:
    """60 memories of one user, every two associated (1,770 edges, random strengths): what an RDF import builds."""
    from bench.related_dense import load_dense

    ids, strengths = load_dense(container.store, Scope(tenant, "alice"), 60, container.vector_dimensions)
    return UserGraph(memories=ids, associations=dict(strengths))


@pytest.mark.parametrize("depth", [3, 5])
def test_a_dense_user_answers_the_best_paths_within_the_limit(container: Container, tenant: str, dense: UserGraph,
                                                              depth: int) -> None:
    """Each round keeps only the best `limit` memories, each expanded along its `limit` strongest hops: the answer
    is still the unbounded search's best `limit` (same memories, same scores), each a real path of the user's."""
    rc = container.recall
    start, limit, floor = dense.memories[0], 10, 0.05
    found = rc.related(tenant, "alice", start, depth=depth, limit=limit, min_strength=floor)
    assert len(found) == limit
    expected = sorted(best_within(dense, start, depth, floor).items(), key=lambda kv: -kv[1])[:limit]
    assert [r.memory.id for r in found] == [m for m, _ in expected]
    assert [r.score for r in found] == pytest.approx([s for _, s in expected], abs=1e-9)
    for r in found:
        assert r.memory.user_id == "alice" and r.memory.tenant == tenant
        check_path(dense, start, r, depth, rc.traversal.entity_base, rc.traversal.max_degree)


def test_a_narrower_bound_than_the_limit_still_answers_real_paths(container: Container, tenant: str,
                                                                  dense: UserGraph) -> None:
    """recall.related_width below the limit trades the later results for time: at most `width` hops from each
    memory, weaker or fewer results, yet each one a real path whose strengths multiply to its score, never the
    start."""
    start = dense.memories[0]
    traversal = container.recall.traversal
    found = RelatedRepository(container.store).search(Scope(tenant, "alice"), start, depth=3, limit=20,
                                                      min_strength=0.05, traversal=traversal, width=3)
    assert 3 <= len(found) <= 20
    assert all(r.memory.id != start for r in found)
    for r in found:
        check_path(dense, start, r, 3, traversal.entity_base, traversal.max_degree)
    exact = best_within(dense, start, 3, 0.05)
    assert all(r.score <= exact[r.memory.id] + 1e-9 for r in found)  # a path found, never better than the best


def test_a_transaction_past_its_timeout_is_a_timeout_not_an_outage(container: Container, tenant: str,
                                                                   dense: UserGraph) -> None:
    """A statement Neo4j stops at the transaction timeout (a cartesian product of the user's memories, minutes of
    work, under a 1 s timeout) is StoreTimeout, code TIMEOUT, naming the setting: sent again it would time out
    again, so it must not read as UNAVAILABLE (which says: retry later). GraphQL and the file routes say so too."""
    from gql.transport.exceptions import TransportServerError

    from bmam.client import _raise_from
    from resolvers.errors import coded
    from resolvers.export import _STATUS

    store = GraphStore(replace(container.store.config, tx_timeout_s=1.0))
    params = {"tenant": tenant, "user_id": "alice"}
    try:
        for run in (lambda: store.read("bench/memory_cross_product", params),
                    lambda: store.read_tx(lambda tx: tx.run("bench/memory_cross_product", params))):
            with pytest.raises(StoreTimeout) as stopped:
                run()
            assert stopped.value.code == "TIMEOUT"
            assert "BMAM_NEO4J__TX_TIMEOUT_S" in stopped.value.message and "1 s" in stopped.value.message
        assert store.read("meta/ping") == [{"ok": 1}]  # the store itself is fine
    finally:
        store.close()
    answered = coded(GraphQLError(stopped.value.message, path=["relatedSearch"], original_error=stopped.value))
    assert answered.extensions == {"code": "TIMEOUT"} and answered.message == stopped.value.message
    assert _STATUS["TIMEOUT"] == 504
    assert _raise_from(TransportServerError("Gateway Timeout", 504)).code == "TIMEOUT"
