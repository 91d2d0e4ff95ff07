"""The property-graph records of a user's knowledge (what graph/knowledge_io reads from Neo4j and writes
back) and their RDF triples: nodes, relationships (canonical direction, rdf:Statement for properties),
knowledge triples (asserted when current, always reified), a page of the export (Chunk), and the
ImportPlan an import reads (graph/rdf.py), checks (graph/rdf_checks.py) and writes (graph/knowledge_io.py)."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import RDF

from graph.model import Scope
from graph.rdf_terms import (
    ASSERTED_BY,
    BMAM,
    NODE_SKIPPED,
    PROP_TERMS,
    REL_INVERSES,
    REL_SKIPPED,
    REL_TERMS,
    SAME_AS,
    TRIPLE_SKIPPED,
    UNDIRECTED,
    USER_REF,
    NodeKind,
    NodeRef,
    UnsupportedValue,
    is_user_entity,
    predicate_iri,
    rel_statement_iri,
    to_literal,
    triple_statement_iri,
)

# ----- records (what graph/knowledge_io reads from Neo4j and writes back) ------------------------


@dataclass(slots=True)
class NodeRecord:
    """A node: its kind, its labels, its properties. A property in REF_PROPS holds a NodeRef."""

    ref: NodeRef
    labels: list[str]
    props: dict[str, Any]


@dataclass(slots=True)
class RelRecord:
    """A relationship between two nodes of one user (TRIPLE aside). A REF_PROPS value is a NodeRef."""

    type: str
    start: NodeRef
    end: NodeRef
    props: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class TripleRecord:
    """A knowledge triple asserted by a memory; `current` when it is still believed."""

    memory: NodeRef
    subject: NodeRef
    predicate: str
    object: NodeRef
    props: dict[str, Any]
    current: bool = True


@dataclass(slots=True)
class Chunk:
    """What one page of the export holds, serialized and written before the next page is read."""

    base: str
    nodes: list[NodeRecord] = field(default_factory=list)
    rels: list[RelRecord] = field(default_factory=list)
    triples: list[TripleRecord] = field(default_factory=list)


# ----- records -> RDF ----------------------------------------------------------------------------

Triple3 = tuple[URIRef, URIRef, URIRef | Literal]


@functools.cache
def _prop_term(name: str) -> URIRef:
    return PROP_TERMS.get(name) or BMAM[name]


@functools.cache
def _rel_term(rel_type: str) -> URIRef:
    return REL_TERMS.get(rel_type) or BMAM[rel_type]


@functools.cache
def _class(label: str) -> URIRef:
    return BMAM[label]


def _value(base: str, value: Any) -> URIRef | Literal:
    return value.iri(base) if isinstance(value, NodeRef) else to_literal(value)


def _props(base: str, subject: URIRef, props: Mapping[str, Any], skipped: frozenset[str], where: str,
           ) -> Iterator[Triple3]:
    for name in sorted(props):
        value = props[name]
        if name in skipped or value is None:
            continue
        try:
            yield subject, _prop_term(name), _value(base, value)
        except UnsupportedValue as exc:
            raise UnsupportedValue(f"{where}, property {name}: {exc}") from exc


def node_triples(base: str, node: NodeRecord) -> Iterator[Triple3]:
    subject = node.ref.iri(base)
    for label in sorted(set(node.labels)):
        yield subject, RDF.type, _class(label)
    if is_user_entity(node.ref):
        yield subject, SAME_AS, USER_REF.iri(base)
    yield from _props(base, subject, node.props, NODE_SKIPPED, f"{node.ref.kind} {subject}")


def canonical(rel: RelRecord) -> RelRecord:
    """An undirected relationship pointed from the smaller node path to the larger."""
    if rel.type in UNDIRECTED and rel.end.sort_key < rel.start.sort_key:
        return RelRecord(rel.type, rel.end, rel.start, rel.props)
    return rel


def rel_triples(base: str, rel: RelRecord) -> Iterator[Triple3]:
    rel = canonical(rel)
    start, end, term = rel.start.iri(base), rel.end.iri(base), _rel_term(rel.type)
    yield start, term, end
    inverse = REL_INVERSES.get(rel.type)
    if inverse is not None:
        yield end, inverse, start
    kept = {k: v for k, v in rel.props.items() if k not in REL_SKIPPED and v is not None}
    if kept:
        statement = rel_statement_iri(base, rel.type, rel.start, rel.end)
        yield statement, RDF.type, RDF.Statement
        yield statement, RDF.subject, start
        yield statement, RDF.predicate, term
        yield statement, RDF.object, end
        yield from _props(base, statement, kept, REL_SKIPPED, f"{rel.type} {statement}")


def triple_triples(base: str, t: TripleRecord) -> Iterator[Triple3]:
    s, o, p = t.subject.iri(base), t.object.iri(base), predicate_iri(t.predicate)
    if t.current:
        yield s, p, o
    statement = triple_statement_iri(base, t.memory, t.subject, t.predicate, t.object)
    yield statement, RDF.type, RDF.Statement
    yield statement, RDF.subject, s
    yield statement, RDF.predicate, p
    yield statement, RDF.object, o
    yield statement, ASSERTED_BY, t.memory.iri(base)
    yield from _props(base, statement, t.props, TRIPLE_SKIPPED, f"triple {statement}")


def chunk_triples(chunk: Chunk) -> Iterator[Triple3]:
    for node in chunk.nodes:
        yield from node_triples(chunk.base, node)
    for rel in chunk.rels:
        yield from rel_triples(chunk.base, rel)
    for t in chunk.triples:
        yield from triple_triples(chunk.base, t)


@dataclass(slots=True)
class ImportPlan:
    """An export read back: one user's nodes, relationships and triples, not yet written anywhere."""

    source: Scope
    user_props: dict[str, Any]
    nodes: list[NodeRecord]
    rels: list[RelRecord]
    triples: list[TripleRecord]
    ignored: int = 0
    # Set by check_plan once every value is one the service holds; KnowledgeRepository.write refuses a
    # plan that was not checked (a bad file writes nothing, not even the user node).
    checked: bool = False

    def of_kind(self, kind: NodeKind) -> list[NodeRecord]:
        return [n for n in self.nodes if n.ref.kind is kind]
