"""The RDF model of a user's knowledge: IRIs, vocabulary, property-graph records <-> rdflib terms, the
streaming writers (Turtle, N-Triples, JSON-LD, RDF/XML) and the reader of an export (for import).

One model, documented in README "Knowledge out":
- Instances live under https://bmam.dev/t/{tenant}/u/{user}; each node kind has a path that does not
  depend on its Neo4j id where it can (entities by kind and name, sessions by their session id, episodes
  by session and turn), and on a portable key where it cannot (memories, conflicts: the id they were born
  with, kept as `origin_id` when an import had to give them a new one).
- The vocabulary is https://bmam.dev/ns# with the Neo4j names (labels as classes, relationship types in
  upper case, properties in snake case) and standard terms where they fit (schema.org, dcterms, PROV-O).
- A knowledge triple (Entity)-[:TRIPLE {predicate}]->(Entity) is asserted as a plain RDF triple with the
  predicate as an IRI under https://bmam.dev/p/ when it is current (affirmed, not expired, its memory
  not superseded), and always kept as an rdf:Statement (RDF reification) carrying its metadata and
  prov:wasDerivedFrom its memory. Reification keeps every format lossless (no named graphs needed).
- A relationship with properties (ASSOCIATED {strength}, SUPERSEDES {at}, ...) is a plain triple plus an
  rdf:Statement holding the properties.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any
from urllib.parse import unquote

import neo4j.time
import rdflib
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SDO, XSD

from graph.errors import BadInput
from graph.model import MemoryType, Scope

# Literals are kept exactly as written: rdflib's default normalisation would cut an xsd:dateTime to
# microseconds (Neo4j keeps nanoseconds) and rewrite lexical forms, so an import would not be exact.
rdflib.NORMALIZE_LITERALS = False

# ----- namespaces ------------------------------------------------------------------------------

BASE = "https://bmam.dev/"
BMAM = Namespace("https://bmam.dev/ns#")
PRED = Namespace("https://bmam.dev/p/")
RDF_JSON = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON")

PREFIXES: dict[str, str] = {
    "bmam": str(BMAM),
    "p": str(PRED),
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "xsd": str(XSD),
    "dcterms": str(DCTERMS),
    "prov": str(PROV),
    "schema": str(SDO),
}

# Properties never exported: identity and scope live in the IRI, embeddings are recomputed on import,
# and the store's own bookkeeping (the vector cache's: a memory's seq, the user's memory_seq and
# memory_epoch; the full-text index's scope_token) is made anew: an import numbers its memories anew
# and gives them the target user's token.
NODE_SKIPPED = frozenset({"id", "origin_id", "tenant", "user_id", "embedding", "seq", "memory_seq", "memory_epoch",
                          "scope_token"})
REL_SKIPPED = frozenset({"tenant", "user_id"})
TRIPLE_SKIPPED = frozenset({"id", "tenant", "user_id", "memory_id", "predicate"})

# Properties mapped to standard terms; every other property p is bmam:p.
PROP_TERMS: dict[str, URIRef] = {
    "text": SDO.text,
    "name": RDFS.label,
    "created_at": DCTERMS.created,
    "updated_at": DCTERMS.modified,
    "valid_from": SDO.validFrom,
    "valid_to": SDO.validThrough,
    "at": DCTERMS.date,
    "started_at": PROV.startedAtTime,
}
TERM_PROPS: dict[URIRef, str] = {v: k for k, v in PROP_TERMS.items()}

# Relationship types mapped to standard terms; every other type T is bmam:T.
REL_TERMS: dict[str, URIRef] = {
    "MENTIONS": SDO.mentions,
    "DERIVED_FROM": PROV.wasDerivedFrom,
    "SUPERSEDES": DCTERMS.replaces,
    "HAS_EPISODE": DCTERMS.hasPart,
}
TERM_RELS: dict[URIRef, str] = {v: k for k, v in REL_TERMS.items()}
# Written for readers' convenience, ignored on import (the forward edge is the record).
REL_INVERSES: dict[str, URIRef] = {"SUPERSEDES": DCTERMS.isReplacedBy}
# A knowledge triple's statement points at the memory that asserts it.
ASSERTED_BY = PROV.wasDerivedFrom

# Undirected relationships: written in one canonical direction (by node path), so an export does not
# depend on which internal id happened to be smaller.
UNDIRECTED = frozenset({"ASSOCIATED"})

_PROP_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_REL_TYPE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_LABEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_HEX32 = re.compile(r"^[0-9a-f]{32}$")


class NodeKind(StrEnum):
    """The node kinds of a user's subgraph that the export carries (their Neo4j label)."""

    USER = "User"
    MEMORY = "Memory"
    ENTITY = "Entity"
    SESSION = "Session"
    EPISODE = "Episode"
    CONFLICT = "Conflict"


KIND_LABELS = frozenset(k.value for k in NodeKind)
# The kinds paged from Neo4j (the user is one node of its own).
PAGED_KINDS: tuple[NodeKind, ...] = (
    NodeKind.MEMORY, NodeKind.ENTITY, NodeKind.SESSION, NodeKind.EPISODE, NodeKind.CONFLICT,
)
# Properties holding the id of another node of the user: exported as that node's IRI, so the
# reference survives an import that gives the node a new id.
REF_PROPS: dict[tuple[str, str], NodeKind] = {
    ("Memory", "episode_id"): NodeKind.EPISODE,
    ("Conflict", "new_id"): NodeKind.MEMORY,
    ("Conflict", "old_id"): NodeKind.MEMORY,
    ("Conflict", "winner_id"): NodeKind.MEMORY,
    ("Conflict", "loser_id"): NodeKind.MEMORY,
    ("SUPERSEDES", "conflict_id"): NodeKind.CONFLICT,
}
# Labels a node of one kind may not also carry (they would make it another kind).
_FOREIGN_LABELS = KIND_LABELS | {"SchemaMigration", "ApiKey"}


class RdfFormat(StrEnum):
    TURTLE = "ttl"
    NTRIPLES = "nt"
    JSONLD = "jsonld"
    RDFXML = "rdf"

    @property
    def media_type(self) -> str:
        return _MEDIA_TYPES[self]

    @property
    def rdflib_name(self) -> str:
        return {"ttl": "turtle", "nt": "nt", "jsonld": "json-ld", "rdf": "xml"}[self.value]

    @classmethod
    def parse(cls, value: str) -> RdfFormat:
        key = value.strip().lower().lstrip(".")
        aliases = {"turtle": "ttl", "ntriples": "nt", "n-triples": "nt", "json-ld": "jsonld", "json": "jsonld",
                   "rdfxml": "rdf", "rdf/xml": "rdf", "xml": "rdf", "owl": "rdf"}
        key = aliases.get(key, key)
        try:
            return cls(key)
        except ValueError as exc:
            raise BadInput(f"unknown RDF format {value!r}; one of ttl, nt, jsonld, rdf", field="format") from exc


_MEDIA_TYPES = {
    RdfFormat.TURTLE: "text/turtle; charset=utf-8",
    RdfFormat.NTRIPLES: "application/n-triples; charset=utf-8",
    RdfFormat.JSONLD: "application/ld+json; charset=utf-8",
    RdfFormat.RDFXML: "application/rdf+xml; charset=utf-8",
}

# ----- IRIs --------------------------------------------------------------------------------------

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _iri_char(c: str) -> bool:
    """Kept as is in an IRI path segment: ASCII unreserved, and Unicode letters, marks, numbers,
    punctuation and symbols (RFC 3987 ucschar). Spaces, controls and private use are encoded."""
    if c in _UNRESERVED:
        return True
    return _ucschar(ord(c)) and unicodedata.category(c)[0] not in "ZC"


def _ucschar(cp: int) -> bool:
    """RFC 3987 ucschar: A0-D7FF, F900-FDCF, FDF0-FFEF, then each plane up to xFFFD, except that plane
    14 starts at E1000 (its tags and variation selectors, which pass the category test, are not IRI
    characters)."""
    if cp < 0x10000:
        return 0xA0 <= cp <= 0xD7FF or 0xF900 <= cp <= 0xFDCF or 0xFDF0 <= cp <= 0xFFEF
    if cp >= 0xE0000:
        return 0xE1000 <= cp <= 0xEFFFD
    return (cp & 0xFFFF) <= 0xFFFD


def _percent(c: str) -> str:
    return "".join(f"%{b:02X}" for b in c.encode("utf-8"))


def iri_segment(text: str) -> str:
    """One IRI path segment holding `text`: Unicode (Chinese) kept readable, everything an IRI cannot
    hold (or that would end the segment: / ? # %) percent-encoded as UTF-8."""
    out = "".join(c if _iri_char(c) else _percent(c) for c in text)
    if out in (".", ".."):  # dot segments would be removed by IRI normalisation
        return "%2E" * len(out)
    return out


def decode_segment(segment: str) -> str:
    return unquote(segment, encoding="utf-8", errors="strict")


_NAME_START = frozenset({"Ll", "Lu", "Lo", "Lt", "Nl"})
_NAME_CHAR = _NAME_START | {"Lm", "Nd", "Mn", "Mc"}
_ESCAPE = re.compile(r"_x([0-9A-F]{1,6})_")


def predicate_local(predicate: str) -> str:
    """The local name of a predicate IRI: always an XML NCName, so RDF/XML can write it as an element.
    Letters (Chinese included) and digits that an IRI can hold are kept; other characters become _xHHHH_
    (the code point in hex, the XML name-escaping convention); a '_' that would start such a sequence is
    escaped too."""
    out: list[str] = []
    for i, c in enumerate(predicate):
        cat = unicodedata.category(c)
        if c == "_":
            keep = not predicate.startswith("x", i + 1)
        elif i == 0:
            keep = cat in _NAME_START
        else:
            keep = cat in _NAME_CHAR or c in "-."
        # An XML name character that an IRI cannot hold (a variation selector of plane 14) is escaped too.
        keep = keep and (ord(c) < 0x80 or _ucschar(ord(c)))
        out.append(c if keep else f"_x{ord(c):04X}_")
    return "".join(out)


def predicate_from_local(local: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), local)


def predicate_iri(predicate: str) -> URIRef:
    return URIRef(str(PRED) + predicate_local(predicate))


def user_iri(tenant: str, user_id: str) -> str:
    return f"{BASE}t/{iri_segment(tenant)}/u/{iri_segment(user_id)}"


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A node of one user, by what its IRI is made of (never by tenant or user: those are the prefix).

    MEMORY and CONFLICT: (key,); ENTITY: (kind, name); SESSION: (session_id,); EPISODE:
    (session_id, turn); USER: ()."""

    kind: NodeKind
    parts: tuple[str, ...] = ()

    @classmethod
    def memory(cls, key: str) -> NodeRef:
        return cls(NodeKind.MEMORY, (key,))

    @classmethod
    def entity(cls, kind: str, name: str) -> NodeRef:
        return cls(NodeKind.ENTITY, (kind, name))

    @classmethod
    def session(cls, session_id: str) -> NodeRef:
        return cls(NodeKind.SESSION, (session_id,))

    @classmethod
    def episode(cls, session_id: str, turn: int) -> NodeRef:
        return cls(NodeKind.EPISODE, (session_id, str(turn)))

    @classmethod
    def conflict(cls, key: str) -> NodeRef:
        return cls(NodeKind.CONFLICT, (key,))

    @property
    def path(self) -> str:
        """The IRI path below the user's IRI ('' for the user itself)."""
        seg = [iri_segment(p) for p in self.parts]
        match self.kind:
            case NodeKind.USER:
                return ""
            case NodeKind.MEMORY:
                return f"/memory/{seg[0]}"
            case NodeKind.ENTITY:
                return f"/entity/{seg[0]}/{seg[1]}"
            case NodeKind.SESSION:
                return f"/session/{seg[0]}"
            case NodeKind.EPISODE:
                return f"/session/{seg[0]}/turn/{seg[1]}"
            case NodeKind.CONFLICT:
                return f"/conflict/{seg[0]}"
        raise AssertionError(self.kind)

    def iri(self, base: str) -> URIRef:
        return URIRef(base + self.path)

    @property
    def sort_key(self) -> str:
        return self.path


USER_REF = NodeRef(NodeKind.USER)


def node_ref(labels: Sequence[str], props: Mapping[str, Any]) -> NodeRef | None:
    """The ref of a node read from Neo4j (labels and properties), None for a kind the export omits."""
    key = props.get("origin_id") or props.get("id")
    if "Memory" in labels:
        return NodeRef.memory(str(key))
    if "Entity" in labels:
        return NodeRef.entity(str(props["kind"]), str(props["name"]))
    if "Episode" in labels:
        if props.get("session_id") is None or props.get("turn") is None:
            raise ValueError(f"episode {props.get('id')} has no session_id/turn; it cannot be exported")
        return NodeRef.episode(str(props["session_id"]), int(props["turn"]))
    if "Session" in labels:
        if props.get("session_id") is None:
            raise ValueError(f"session {props.get('id')} has no session_id; it cannot be exported")
        return NodeRef.session(str(props["session_id"]))
    if "Conflict" in labels:
        return NodeRef.conflict(str(key))
    if "User" in labels:
        return USER_REF
    return None


def parse_path(path: str) -> tuple[str, NodeRef | None, list[str]]:
    """Split an IRI path below a user into (what, node, rest): what is 'node', 'triple' or 'rel'."""
    segs = path.split("/")[1:] if path else []
    if not segs:
        return "node", USER_REF, []
    # A relationship statement: <node path>/rel/<TYPE>/<digest>
    if len(segs) >= 3 and segs[-3] == "rel" and _REL_TYPE.match(segs[-2]) and _HEX32.match(segs[-1]):
        what, start, _ = parse_path("/" + "/".join(segs[:-3]) if len(segs) > 3 else "")
        if what == "node":
            return "rel", start, segs[-2:]
    d = [decode_segment(s) for s in segs]
    match d:
        case ["memory", key]:
            return "node", NodeRef.memory(key), []
        case ["memory", key, "triple", digest]:
            return "triple", NodeRef.memory(key), [digest]
        case ["entity", kind, name]:
            return "node", NodeRef.entity(kind, name), []
        case ["session", sid]:
            return "node", NodeRef.session(sid), []
        case ["session", sid, "turn", turn] if turn.lstrip("-").isdigit():
            return "node", NodeRef.episode(sid, int(turn)), []
        case ["conflict", key]:
            return "node", NodeRef.conflict(key), []
    return "unknown", None, []


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def triple_statement_iri(base: str, memory: NodeRef, subject: NodeRef, predicate: str, obj: NodeRef) -> URIRef:
    """One statement per (memory, subject, predicate, object), like the TRIPLE's own derived id."""
    s_kind, s_name = subject.parts
    o_kind, o_name = obj.parts
    digest = _digest(s_kind, s_name.strip().casefold(), predicate, o_kind, o_name.strip().casefold())
    return URIRef(f"{base}{memory.path}/triple/{digest}")


def rel_statement_iri(base: str, rel_type: str, start: NodeRef, end: NodeRef) -> URIRef:
    return URIRef(f"{base}{start.path}/rel/{rel_type}/{_digest(end.path)}")


# ----- literals ----------------------------------------------------------------------------------


class UnsupportedValue(ValueError):
    """A property value the RDF model does not carry (a spatial point, a map)."""


def _double(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "INF" if x > 0 else "-INF"
    return repr(x)


def _typed(lexical: str, datatype: URIRef) -> Literal:
    return Literal(lexical, datatype=datatype, normalize=False)


def to_literal(value: Any) -> Literal:
    """A property value as a typed literal whose lexical form reads back to the same value."""
    if isinstance(value, bool):
        return _typed("true" if value else "false", XSD.boolean)
    if isinstance(value, int):
        return _typed(str(value), XSD.integer)
    if isinstance(value, float):
        return _typed(_double(value), XSD.double)
    if isinstance(value, str):
        return Literal(value, normalize=False)
    if isinstance(value, neo4j.time.DateTime):
        return _typed(value.iso_format(), XSD.dateTime)
    if isinstance(value, neo4j.time.Date):
        return _typed(value.iso_format(), XSD.date)
    if isinstance(value, datetime):
        return _typed(value.isoformat(), XSD.dateTime)
    if isinstance(value, date):
        return _typed(value.isoformat(), XSD.date)
    if isinstance(value, list | tuple):
        items = list(value)
        if all(isinstance(v, str | int | float | bool) for v in items):
            return _typed(json.dumps(items, ensure_ascii=False, separators=(",", ":")), RDF_JSON)
    raise UnsupportedValue(f"a {type(value).__name__} value cannot be exported to RDF")


_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_INTEGER_TYPES = {XSD.integer, XSD.int, XSD.long, XSD.short, XSD.nonNegativeInteger}
_DOUBLE_TYPES = {XSD.double, XSD.float, XSD.decimal}


def from_literal(lit: Literal) -> Any:
    """The property value of a literal written by to_literal (or a compatible one)."""
    lex = str(lit)
    dt = lit.datatype
    try:
        if dt is None or dt == XSD.string:
            return lex
        if dt == XSD.boolean:
            return _BOOLEANS[lex.strip()]
        if dt in _INTEGER_TYPES:
            return int(lex)
        if dt in _DOUBLE_TYPES:
            return float({"INF": "inf", "-INF": "-inf"}.get(lex.strip(), lex))
        if dt == XSD.dateTime:
            # With an offset: a DateTime; without: a local date-time, as Neo4j keeps it.
            return neo4j.time.DateTime.from_iso_format(re.sub(r"Z$", "+00:00", lex.strip()))
        if dt == XSD.date:
            return neo4j.time.Date.from_iso_format(lex.strip())
        if dt == RDF_JSON:
            value = json.loads(lex)
            if isinstance(value, list):
                return value
    except (KeyError, ValueError, TypeError) as exc:
        raise BadInput(f"literal {lex[:60]!r} is not a valid {dt}") from exc
    raise BadInput(f"literal datatype {dt} is not part of the bmam model")


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


# ----- writers -----------------------------------------------------------------------------------


class RdfEncodingError(BadInput):
    """The data holds something the chosen format cannot represent."""


_NT_ESCAPES = {
    **{c: f"\\u{c:04X}" for c in (*range(0x20), 0x7F, 0xFFFE, 0xFFFF)},
    ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r",
}


def _nt_string(text: str) -> str:
    """The body of a quoted N-Triples / Turtle string: \\ " newline and return escaped, other controls as
    \\uXXXX, everything else (Chinese included) as is."""
    return text.translate(_NT_ESCAPES)


def nt_term(term: URIRef | Literal) -> str:
    if isinstance(term, URIRef):
        return f"<{term}>"
    body = f'"{_nt_string(str(term))}"'
    if term.language:
        return f"{body}@{term.language}"
    if term.datatype is not None and term.datatype != XSD.string:
        return f"{body}^^<{term.datatype}>"
    return body


class ChunkWriter:
    """Serializes an export chunk by chunk: begin(), chunk(triples) per page, end()."""

    def begin(self) -> str:
        return ""

    def chunk(self, triples: Iterable[Triple3]) -> str:
        raise NotImplementedError

    def end(self) -> str:
        return ""


class NTriplesWriter(ChunkWriter):
    def chunk(self, triples: Iterable[Triple3]) -> str:
        return "".join(f"{nt_term(s)} {nt_term(p)} {nt_term(o)} .\n" for s, p, o in triples)


def _is_ncname(local: str) -> bool:
    """An XML NCName as predicate_local builds them (also what RDF/XML element names need)."""
    if not local or not (local[0] == "_" or unicodedata.category(local[0]) in _NAME_START):
        return False
    return all(c in "-._" or unicodedata.category(c) in _NAME_CHAR for c in local[1:])


def _pn_char_base(c: str) -> bool:
    o = ord(c)
    return (c.isascii() and c.isalpha()) or any(lo <= o <= hi for lo, hi in _PN_CHARS_BASE)


_PN_CHARS_BASE = ((0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x2FF), (0x370, 0x37D), (0x37F, 0x1FFF), (0x200C, 0x200D),
                  (0x2070, 0x218F), (0x2C00, 0x2FEF), (0x3001, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFFD),
                  (0x10000, 0xEFFFF))


def _pn_local(local: str) -> bool:
    """Whether `local` can follow `prefix:` in Turtle as it is (no escapes needed)."""
    if not local or local.endswith("."):
        return False
    first = local[0]
    if not (_pn_char_base(first) or first == "_" or (first.isascii() and first.isdigit())):
        return False
    return all(_pn_char_base(c) or c in "_-." or (c.isascii() and c.isdigit()) or c == "\u00b7"
               or 0x300 <= ord(c) <= 0x36F or 0x203F <= ord(c) <= 0x2040 for c in local[1:])


def _turtle_iri(iri: str) -> str:
    for prefix, ns in PREFIXES.items():
        if iri.startswith(ns) and _pn_local(iri[len(ns):]):
            return f"{prefix}:{iri[len(ns):]}"
    return f"<{iri}>"


def _turtle_term(term: URIRef | Literal) -> str:
    if isinstance(term, URIRef):
        return _turtle_iri(str(term))
    body = f'"{_nt_string(str(term))}"'
    if term.language:
        return f"{body}@{term.language}"
    if term.datatype is not None and term.datatype != XSD.string:
        return f"{body}^^{_turtle_iri(str(term.datatype))}"
    return body


class TurtleWriter(ChunkWriter):
    """Turtle, one block per subject and chunk (a subject seen in an earlier chunk simply gets another
    block). Every literal is written with its lexical form and datatype as stored: rdflib's own Turtle
    serializer would print an xsd:double as 1.234568e-01, losing digits."""

    def begin(self) -> str:
        return "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in PREFIXES.items()) + "\n"

    def chunk(self, triples: Iterable[Triple3]) -> str:
        by_subject: dict[str, list[tuple[URIRef, URIRef | Literal]]] = defaultdict(list)
        for s, p, o in triples:
            by_subject[str(s)].append((p, o))
        out: list[str] = []
        for subject, pairs in by_subject.items():
            objects: dict[URIRef, list[str]] = {}
            for p, o in pairs:
                objects.setdefault(p, []).append(_turtle_term(o))
            lines = [("a" if p == RDF.type else _turtle_iri(str(p))) + " " + ", ".join(terms)
                     for p, terms in objects.items()]
            out.append(f"{_turtle_iri(subject)}\n    " + " ;\n    ".join(lines) + " .\n\n")
        return "".join(out)


def _compact(iri: str) -> str:
    """A compact IRI (prefix:local) for JSON-LD keys and types where the local part is plain."""
    for prefix, ns in PREFIXES.items():
        if iri.startswith(ns) and _pn_local(iri[len(ns):]):
            return f"{prefix}:{iri[len(ns):]}"
    return iri


class JsonLdWriter(ChunkWriter):
    """A JSON-LD document {"@context": prefixes, "@graph": [node objects]} written node object by node
    object. A subject met in two chunks gets two node objects with the same @id (JSON-LD merges them)."""

    def __init__(self) -> None:
        self._first = True

    def begin(self) -> str:
        return '{\n"@context": ' + json.dumps(PREFIXES, ensure_ascii=False) + ',\n"@graph": [\n'

    def chunk(self, triples: Iterable[Triple3]) -> str:
        nodes: dict[str, dict[str, Any]] = {}
        for s, p, o in triples:
            node = nodes.setdefault(str(s), {"@id": str(s)})
            if p == RDF.type and isinstance(o, URIRef):
                node.setdefault("@type", []).append(_compact(str(o)))
                continue
            if isinstance(o, URIRef):
                value: dict[str, str] = {"@id": str(o)}
            elif o.datatype is None or o.datatype == XSD.string:
                value = {"@value": str(o)}
            else:
                value = {"@value": str(o), "@type": _compact(str(o.datatype))}
            node.setdefault(_compact(str(p)), []).append(value)
        parts = []
        for node in nodes.values():
            parts.append(("" if self._first else ",\n") + json.dumps(node, ensure_ascii=False))
            self._first = False
        return "".join(parts)

    def end(self) -> str:
        return "\n]\n}\n"


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(text: str, where: str) -> str:
    bad = _XML_INVALID.search(text)
    if bad:
        raise RdfEncodingError(
            f"{where} holds the control character U+{ord(bad.group()):04X}, which XML 1.0 cannot carry; "
            "export as ttl, nt or jsonld instead", field="format")
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
            .replace('"', "&quot;"))


def _qname(iri: str) -> str:
    for prefix, ns in PREFIXES.items():
        local = iri[len(ns):]
        if iri.startswith(ns) and _is_ncname(local):
            return f"{prefix}:{local}"
    raise RdfEncodingError(f"the predicate {iri} cannot be written in RDF/XML", field="format")


class RdfXmlWriter(ChunkWriter):
    """RDF/XML with one rdf:Description per subject and chunk; every predicate is in a declared namespace
    with an NCName local part (predicate IRIs are built so), so chunks share the root's declarations."""

    def begin(self) -> str:
        decls = "".join(f'\n   xmlns:{p}="{ns}"' for p, ns in PREFIXES.items())
        return f'<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF{decls}>\n'

    def chunk(self, triples: Iterable[Triple3]) -> str:
        by_subject: dict[str, list[tuple[URIRef, URIRef | Literal]]] = defaultdict(list)
        for s, p, o in triples:
            by_subject[str(s)].append((p, o))
        out: list[str] = []
        for subject, pairs in by_subject.items():
            out.append(f'  <rdf:Description rdf:about="{_xml_text(subject, subject)}">\n')
            for p, o in pairs:
                q = _qname(str(p))
                if isinstance(o, URIRef):
                    out.append(f'    <{q} rdf:resource="{_xml_text(str(o), subject)}"/>\n')
                elif o.datatype is None or o.datatype == XSD.string:
                    out.append(f"    <{q}>{_xml_text(str(o), subject)}</{q}>\n")
                else:
                    out.append(f'    <{q} rdf:datatype="{o.datatype}">{_xml_text(str(o), subject)}</{q}>\n')
            out.append("  </rdf:Description>\n")
        return "".join(out)

    def end(self) -> str:
        return "</rdf:RDF>\n"


def writer_for(fmt: RdfFormat) -> ChunkWriter:
    return {
        RdfFormat.TURTLE: TurtleWriter,
        RdfFormat.NTRIPLES: NTriplesWriter,
        RdfFormat.JSONLD: JsonLdWriter,
        RdfFormat.RDFXML: RdfXmlWriter,
    }[fmt]()


def serialize(chunks: Iterable[Chunk], fmt: RdfFormat) -> Iterator[str]:
    """The document, piece by piece: only one chunk's triples are in memory at a time."""
    w = writer_for(fmt)
    yield w.begin()
    for chunk in chunks:
        text = w.chunk(chunk_triples(chunk))
        if text:
            yield text
    yield w.end()


# ----- parsing (import) --------------------------------------------------------------------------


def _nt_bad_line(text: str) -> int | None:
    """N-Triples errors from rdflib name the line's text, not its number: find it (error path only)."""
    from rdflib.plugins.parsers.ntriples import W3CNTriplesParser

    class _Sink:
        def triple(self, *_: Any) -> None:
            return None

    parser = W3CNTriplesParser(sink=_Sink())  # type: ignore[arg-type]
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            parser.parsestring(line)
        except Exception:
            return number
    return None


def parse_rdf(data: bytes, fmt: RdfFormat) -> Graph:
    """Parse a whole document before anything is written; a syntax error is BadInput naming the line."""
    g = Graph(bind_namespaces="none")
    try:
        g.parse(data=data, format=fmt.rdflib_name)
    except Exception as exc:
        raise BadInput(f"{fmt.value} syntax error: {describe_parse_error(exc, data, fmt)}", field="file") from exc
    return g


def describe_parse_error(exc: Exception, data: bytes, fmt: RdfFormat) -> str:
    """`line N: what the parser said`, whichever parser it was (SAX, notation3, json, ntriples)."""
    text = " ".join(str(exc).split())
    line: int | None = None
    getter = getattr(exc, "getLineNumber", None)
    if callable(getter):  # xml.sax: RDF/XML
        line, text = int(getter()), str(exc.getMessage()) if hasattr(exc, "getMessage") else text
    elif fmt is RdfFormat.TURTLE and (found := re.search(r"at line (\d+)", text)):
        line = int(found.group(1))
        why = re.search(r"Bad syntax \((.*?)\) at \^", text)
        text = f"bad syntax ({why.group(1)})" if why else text
    elif found := re.match(r"^\S*?:(\d+):\d+: (.*)$", text):  # rdflib's RDF/XML checks: "<id>:line:col: msg"
        line, text = int(found.group(1)), found.group(2)
    elif isinstance(getattr(exc, "lineno", None), int):  # json: JSON-LD
        line, text = int(getattr(exc, "lineno")), str(getattr(exc, "msg", text))  # noqa: B009
    elif fmt is RdfFormat.NTRIPLES:
        line = _nt_bad_line(data.decode("utf-8", errors="replace"))
    text = text[:300] or type(exc).__name__
    return f"line {line}: {text}" if line is not None else text


@dataclass(slots=True)
class ImportPlan:
    """An export read back: one user's nodes, relationships and triples, not yet written anywhere."""

    source: Scope
    user_props: dict[str, Any]
    nodes: list[NodeRecord]
    rels: list[RelRecord]
    triples: list[TripleRecord]
    ignored: int = 0

    def of_kind(self, kind: NodeKind) -> list[NodeRecord]:
        return [n for n in self.nodes if n.ref.kind is kind]


def _user_of(iri: str) -> tuple[str, str, str] | None:
    """(tenant, user, path below the user) of an instance IRI, or None."""
    if not iri.startswith(BASE + "t/"):
        return None
    rest = iri[len(BASE) + 2:]
    parts = rest.split("/", 3)
    if len(parts) < 3 or parts[1] != "u":
        return None
    path = "/" + parts[3] if len(parts) == 4 else ""
    return decode_segment(parts[0]), decode_segment(parts[2]), path


def _users(g: Graph) -> list[tuple[str, str]]:
    found = set()
    for s in g.subjects(RDF.type, BMAM.User):
        parsed = _user_of(str(s))
        if parsed and parsed[2] == "":
            found.add((parsed[0], parsed[1]))
    return sorted(found)


def _check_prop_name(name: str, where: str) -> str:
    if not _PROP_NAME.match(name) or name in NODE_SKIPPED:
        raise BadInput(f"{where}: {name!r} is not a property the bmam model accepts")
    return name


def read_export(g: Graph, *, source_user: str | None = None) -> ImportPlan:
    """The one user's knowledge in a parsed export. Everything is checked here, before any write:
    a file that is not a bmam export, or holds something the model does not accept, is BadInput."""
    users = _users(g)
    if source_user is not None:
        users = [u for u in users if u[1] == source_user]
        if not users:
            raise BadInput(f"the file holds no user {source_user!r}", field="sourceUser")
    if not users:
        raise BadInput("not a bmam export: no bmam:User in the file", field="file")
    if len(users) > 1:
        names = ", ".join(f"{u}@{t}" for t, u in users[:10])
        raise BadInput(f"the file holds {len(users)} users ({names}); choose one with --source-user",
                       field="sourceUser")
    tenant, user = users[0]
    base = user_iri(tenant, user)
    nodes: dict[NodeRef, NodeRecord] = {}
    rel_props: dict[tuple[str, NodeRef, NodeRef], dict[str, Any]] = {}
    rels: dict[tuple[str, NodeRef, NodeRef], RelRecord] = {}
    triples: list[TripleRecord] = []
    user_props: dict[str, Any] = {}
    ignored = 0

    def ref_of(term: Any, where: str) -> NodeRef:
        parsed = _user_of(str(term)) if isinstance(term, URIRef) else None
        if parsed is None or (parsed[0], parsed[1]) != (tenant, user):
            raise BadInput(f"{where}: {term} is not a node of {user}@{tenant}")
        what, ref, _ = parse_path(parsed[2])
        if what != "node" or ref is None:
            raise BadInput(f"{where}: {term} is not a node IRI of the bmam model")
        return ref

    subjects = {s for s in g.subjects() if isinstance(s, URIRef)}
    for s in sorted(subjects, key=str):
        parsed = _user_of(str(s))
        if parsed is None or (parsed[0], parsed[1]) != (tenant, user):
            ignored += sum(1 for _ in g.predicate_objects(s))
            continue
        what, ref, _ = parse_path(parsed[2])
        pairs = list(g.predicate_objects(s))
        if what == "node" and ref is not None:
            if ref.kind is NodeKind.USER:
                props, node_rels, skipped = _node_body(ref, pairs, ref_of, str(s))
                user_props = props
            else:
                props, node_rels, skipped = _node_body(ref, pairs, ref_of, str(s))
                labels = [str(o)[len(str(BMAM)):] for p, o in pairs
                          if p == RDF.type and str(o).startswith(str(BMAM))]
                nodes[ref] = NodeRecord(ref=ref, labels=_check_labels(ref, labels, props, str(s)), props=props)
            ignored += skipped
            for rel in node_rels:
                rels.setdefault((rel.type, rel.start, rel.end), rel)
        elif what == "triple" and ref is not None:
            triples.append(_triple_body(ref, pairs, ref_of, str(s)))
        elif what == "rel" and ref is not None:
            rel_type, rel = _rel_statement(pairs, ref_of, str(s))
            if ref not in (rel.start, rel.end):
                raise BadInput(f"{s}: the statement's IRI does not match its rdf:subject")
            rel_props[(rel.type, rel.start, rel.end)] = rel.props
            rels.setdefault((rel.type, rel.start, rel.end), RelRecord(rel.type, rel.start, rel.end))
        else:
            ignored += len(pairs)
    for key, props in rel_props.items():
        rels[key].props = props
    for (rel_type, start, end) in rels:
        if end.kind is NodeKind.USER:
            raise BadInput(f"a {rel_type} relationship ends at the user node; only the user's own edges start there")
        for ref in (start, end):
            if ref.kind is not NodeKind.USER and ref not in nodes:
                raise BadInput(f"a {rel_type} relationship reaches {ref.iri(base)}, which the file does not describe")
    for t in triples:
        for ref in (t.memory, t.subject, t.object):
            if ref not in nodes:
                raise BadInput(f"a triple of {t.memory.iri(base)} reaches {ref.iri(base)}, which the file does not "
                               "describe")
    return ImportPlan(source=Scope(tenant=tenant, user_id=user), user_props=user_props, nodes=list(nodes.values()),
                      rels=list(rels.values()), triples=triples, ignored=ignored)


def _literal_or_ref(owner: str, name: str, o: Any, ref_of: Any, where: str) -> Any:
    target = REF_PROPS.get((owner, name))
    if target is not None and isinstance(o, URIRef):
        ref = ref_of(o, where)
        if ref.kind is not target:
            raise BadInput(f"{where}: {name} must point at a {target}")
        return ref
    if not isinstance(o, Literal):
        raise BadInput(f"{where}: {name} must be a literal")
    return from_literal(o)


def _node_body(ref: NodeRef, pairs: list[tuple[Any, Any]], ref_of: Any, where: str,
               ) -> tuple[dict[str, Any], list[RelRecord], int]:
    props: dict[str, Any] = {}
    rels: list[RelRecord] = []
    ignored = 0
    owner = ref.kind.value
    for p, o in pairs:
        if p == RDF.type:
            continue
        if p in TERM_PROPS or (str(p).startswith(str(BMAM)) and _PROP_NAME.match(str(p)[len(str(BMAM)):])):
            name = TERM_PROPS.get(p) or _check_prop_name(str(p)[len(str(BMAM)):], where)
            props[name] = _literal_or_ref(owner, name, o, ref_of, where)
        elif p in TERM_RELS or (str(p).startswith(str(BMAM)) and _REL_TYPE.match(str(p)[len(str(BMAM)):])):
            rel_type = TERM_RELS.get(p) or str(p)[len(str(BMAM)):]
            rels.append(RelRecord(rel_type, ref, ref_of(o, where)))
        elif p in REL_INVERSES.values() or str(p).startswith(str(PRED)):
            continue  # derived: the inverse of a recorded edge, or a plain knowledge triple
        else:
            ignored += 1
    return props, rels, ignored


def _check_labels(ref: NodeRef, labels: list[str], props: dict[str, Any], where: str) -> list[str]:
    kind = ref.kind.value
    if kind not in labels:
        raise BadInput(f"{where}: a {kind} node must have rdf:type bmam:{kind}")
    extra = [label for label in labels if label != kind]
    for label in extra:
        if not _LABEL.match(label) or label in _FOREIGN_LABELS:
            raise BadInput(f"{where}: label {label!r} is not allowed on a {kind}")
    if ref.kind is NodeKind.MEMORY:
        _check_memory(props, extra, where)
    if ref.kind is NodeKind.ENTITY:
        props.setdefault("kind", ref.parts[0])
        props.setdefault("name", ref.parts[1])
    if ref.kind is NodeKind.SESSION:
        props.setdefault("session_id", ref.parts[0])
    if ref.kind is NodeKind.EPISODE:
        props.setdefault("session_id", ref.parts[0])
        props.setdefault("turn", int(ref.parts[1]))
    return sorted(extra)


def _check_memory(props: dict[str, Any], labels: list[str], where: str) -> None:
    from graph.records import memory_from_row

    try:
        memory = memory_from_row({**props, "id": "m_check", "tenant": "t", "user_id": "u"})
    except (KeyError, ValueError, TypeError) as exc:
        raise BadInput(f"{where}: not a valid memory ({exc})") from exc
    if memory.type is MemoryType.WORKING:
        raise BadInput(f"{where}: WORKING memory is never stored")
    if memory.type.label not in labels:
        raise BadInput(f"{where}: a {memory.type.value} memory must have rdf:type bmam:{memory.type.label}")


def _statement_parts(pairs: list[tuple[Any, Any]], where: str) -> tuple[Any, Any, Any, list[tuple[Any, Any]]]:
    found: dict[Any, Any] = {}
    rest = []
    for p, o in pairs:
        if p in (RDF.subject, RDF.predicate, RDF.object):
            if p in found and found[p] != o:
                raise BadInput(f"{where}: a statement has one rdf:subject, rdf:predicate and rdf:object")
            found[p] = o
        elif p != RDF.type:
            rest.append((p, o))
    if len(found) != 3:
        raise BadInput(f"{where}: a statement needs rdf:subject, rdf:predicate and rdf:object")
    return found[RDF.subject], found[RDF.predicate], found[RDF.object], rest


def _triple_body(memory: NodeRef, pairs: list[tuple[Any, Any]], ref_of: Any, where: str) -> TripleRecord:
    s, p, o, rest = _statement_parts(pairs, where)
    if not str(p).startswith(str(PRED)):
        raise BadInput(f"{where}: a knowledge triple's predicate must be under {PRED}")
    subject, obj = ref_of(s, where), ref_of(o, where)
    if subject.kind is not NodeKind.ENTITY or obj.kind is not NodeKind.ENTITY:
        raise BadInput(f"{where}: a knowledge triple links two entities")
    props: dict[str, Any] = {}
    asserted_by: NodeRef | None = None
    for pred, value in rest:
        if pred == ASSERTED_BY:
            asserted_by = ref_of(value, where)
        elif pred in TERM_PROPS or str(pred).startswith(str(BMAM)):
            name = TERM_PROPS.get(pred) or _check_prop_name(str(pred)[len(str(BMAM)):], where)
            if not isinstance(value, Literal):
                raise BadInput(f"{where}: {name} must be a literal")
            props[name] = from_literal(value)
    if asserted_by != memory:
        raise BadInput(f"{where}: the statement must be prov:wasDerivedFrom its memory {memory.path}")
    predicate = predicate_from_local(str(p)[len(str(PRED)):])
    if not predicate.strip():
        raise BadInput(f"{where}: empty predicate")
    return TripleRecord(memory=memory, subject=subject, predicate=predicate, object=obj, props=props)


def _rel_statement(pairs: list[tuple[Any, Any]], ref_of: Any, where: str) -> tuple[str, RelRecord]:
    s, p, o, rest = _statement_parts(pairs, where)
    rel_type = TERM_RELS.get(p) or (str(p)[len(str(BMAM)):] if str(p).startswith(str(BMAM)) else "")
    if not _REL_TYPE.match(rel_type) or rel_type == "TRIPLE":
        raise BadInput(f"{where}: {p} is not a relationship of the bmam model")
    start, end = ref_of(s, where), ref_of(o, where)
    props: dict[str, Any] = {}
    for pred, value in rest:
        if pred in TERM_PROPS or str(pred).startswith(str(BMAM)):
            name = TERM_PROPS.get(pred) or _check_prop_name(str(pred)[len(str(BMAM)):], where)
            props[name] = _literal_or_ref(rel_type, name, value, ref_of, where)
    return rel_type, RelRecord(rel_type, start, end, props)
