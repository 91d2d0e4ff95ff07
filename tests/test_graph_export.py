"""GraphML and GEXF of a user's subgraph with networkx: readable back, embeddings left out, every node and
edge of the user there (counted against the RDF export of the same user), Chinese intact."""

from __future__ import annotations

import io
import uuid

import networkx as nx
import pytest

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import BadInput, NotFound
from graph.graph_export import GraphFormat, build_graph, node_key, write_graph
from tests.knowledge_fixture import USER, Conversation, load


@pytest.fixture(scope="module")
def conversation(container: Container) -> Conversation:
    return load(container, f"test-{uuid.uuid4().hex[:12]}")


@pytest.fixture(scope="module")
def reference(container: Container, conversation: Conversation) -> nx.MultiDiGraph:
    return build_graph(container.export.chunks(conversation.tenant, USER))


def _read(data: bytes, fmt: GraphFormat) -> nx.MultiDiGraph:
    if fmt is GraphFormat.GRAPHML:
        return nx.read_graphml(io.BytesIO(data), force_multigraph=True)
    return nx.read_gexf(io.BytesIO(data))


@pytest.mark.parametrize("fmt", list(GraphFormat))
def test_written_graph_reads_back_whole(container: Container, conversation: Conversation,
                                        reference: nx.MultiDiGraph, fmt: GraphFormat) -> None:
    data = container.export.export_graph(conversation.tenant, USER, fmt)
    g = _read(data, fmt)
    assert g.number_of_nodes() == reference.number_of_nodes()
    assert g.number_of_edges() == reference.number_of_edges()
    assert b"embedding" not in data
    labels = {d.get("label") for _, d in g.nodes(data=True)}
    assert "我不吃辣。" in labels and "花生" in labels
    predicates = {d.get("predicate") for _, _, d in g.edges(data=True)}
    assert {"is allergic to", "eats"} <= predicates
    assert nx.is_weakly_connected(g)  # everything hangs off the user


def test_the_graph_holds_every_node_and_edge_of_the_user(container: Container, conversation: Conversation,
                                                         reference: nx.MultiDiGraph) -> None:
    chunks = list(container.export.chunks(conversation.tenant, USER))
    nodes = sum(len(c.nodes) for c in chunks)
    edges = sum(len(c.rels) + len(c.triples) for c in chunks)
    assert reference.number_of_nodes() == nodes and reference.number_of_edges() == edges
    kinds = {d["node_type"] for _, d in reference.nodes(data=True)}
    assert kinds == {"User", "Memory", "Entity", "Session", "Episode", "Conflict"}
    rel_types = {d["rel_type"] for _, _, d in reference.edges(data=True)}
    assert {"HAS_MEMORY", "MENTIONS", "TRIPLE", "ASSOCIATED", "SUPERSEDES", "DERIVED_FROM", "HAS_EPISODE",
            "NEXT", "BETWEEN"} <= rel_types
    core = reference.nodes[f"memory/{conversation.core_id}"]
    assert core["tier"] == "core" and core["locked"] is True and "embedding" not in core
    # The (undirected) association edge is there once, with its strength.
    pair = [d for u, v, d in reference.edges(data=True) if d["rel_type"] == "ASSOCIATED"
            and {u, v} == {node_key_of(conversation.core_id), node_key_of(conversation.pork_no_id)}]
    assert [d["strength"] for d in pair] == [pytest.approx(0.8)]


def node_key_of(memory_id: str) -> str:
    from graph.rdf_terms import NodeRef
    return node_key(NodeRef.memory(memory_id))


def test_attributes_have_one_type_each(reference: nx.MultiDiGraph) -> None:
    for items in ([d for _, d in reference.nodes(data=True)], [d for _, _, d in reference.edges(data=True)]):
        types: dict[str, set[type]] = {}
        for data in items:
            for k, v in data.items():
                types.setdefault(k, set()).add(type(v))
        assert all(len(t) == 1 for t in types.values()), {k: t for k, t in types.items() if len(t) > 1}


def test_bad_format_and_unknown_user(container: Container, conversation: Conversation) -> None:
    with pytest.raises(BadInput):
        container.export.export_graph(conversation.tenant, USER, "dot")
    with pytest.raises(NotFound):
        container.export.export_graph(conversation.tenant, "nobody", "graphml")
    assert write_graph(nx.MultiDiGraph(), GraphFormat.GEXF).startswith(b"<?xml")
    # the refusals above are the format's and the unknown user's: the fixture user exports in a known format
    assert _read(container.export.export_graph(conversation.tenant, USER, "graphml"), GraphFormat.GRAPHML)


@pytest.mark.parametrize("fmt", list(GraphFormat))
def test_a_carriage_return_in_a_text_reads_back(container: Container, tenant: str, fmt: GraphFormat) -> None:
    """GraphML wrote a CR raw and every parser read "Line one\\r\\nLine two" back as "Line one\\nLine two"."""
    text = "Line one\r\nLine two: my sister lives in Lyon"
    made = container.memories.remember(tenant, RememberRequest(user_id="cr", text=text, type="FACTUAL"))
    g = _read(container.export.export_graph(tenant, "cr", fmt), fmt)
    assert [d.get("text") for _, d in g.nodes(data=True) if d.get("id", made.id) == made.id
            and d.get("node_type") == "Memory"] == [text]
