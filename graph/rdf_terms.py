"""The RDF model of a user's knowledge: namespaces, vocabulary, node kinds, IRIs (NodeRef, predicate and
statement IRIs) and literals (property values <-> typed rdflib literals). Records and their triples are in
graph/rdf_records.py, the writers in graph/rdf_writers.py, the reader of an export in graph/rdf.py.

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

import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from enum import StrEnum
from typing import Any
from urllib.parse import unquote

import neo4j.time
import rdflib
from rdflib import Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDFS, SDO, XSD

from graph.errors import BadInput
from graph.ids import digest
from graph.model import USER_ENTITY_KINDS, USER_ENTITY_NAME

# Literals are kept exactly as written: rdflib's default normalisation would cut an xsd:dateTime to
# microseconds (Neo4j keeps nanoseconds) and rewrite lexical forms, so an import would not be exact.
rdflib.NORMALIZE_LITERALS = False

# ----- namespaces ------------------------------------------------------------------------------

BASE = "https://bmam.dev/"
BMAM = Namespace("https://bmam.dev/ns#")
PRED = Namespace("https://bmam.dev/p/")
RDF_JSON = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON")

# Properties never exported: identity and scope live in the IRI, embeddings are recomputed on import,
# and the store's own bookkeeping (the vector cache's: the user's memory_seq and memory_epoch; the full-text
# index's scope_token; the repeat check's text_key) is made anew: an import gives the memories the target
# user's token and their texts' keys. A memory's seq and a remains' said_seq are exported: they break ties of
# times (bmam/usecases/conflicts.py _newer), so an import numbers the memories anew in their order
# (graph/knowledge_io.py).
NODE_SKIPPED = frozenset({"id", "origin_id", "tenant", "user_id", "embedding", "memory_seq",
                          "memory_epoch", "scope_token", "text_key", "hooks_pending_at"})
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
# The user's own entity (the subject of "I live in ...") is the user: it is owl:sameAs the user's IRI. Written for
# readers, derived on import from the entity's kind and name (is_user_entity).
SAME_AS = OWL.sameAs

# Undirected relationships: written in one canonical direction (by node path), so an export does not
# depend on which internal id happened to be smaller.
UNDIRECTED = frozenset({"ASSOCIATED"})

REL_TYPE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_HEX32 = re.compile(r"^[0-9a-f]{32}$")


class NodeKind(StrEnum):
    """The node kinds of a user's subgraph that the export carries (their Neo4j label)."""

    USER = "User"
    MEMORY = "Memory"
    ENTITY = "Entity"
    SESSION = "Session"
    EPISODE = "Episode"
    CONFLICT = "Conflict"


# The kinds paged from Neo4j (the user is one node of its own).
PAGED_KINDS: tuple[NodeKind, ...] = (
    NodeKind.MEMORY, NodeKind.ENTITY, NodeKind.SESSION, NodeKind.EPISODE, NodeKind.CONFLICT,
)
# Properties holding the id of another node of the user: exported as that node's IRI, so the
# reference survives an import that gives the node a new id.
REF_PROPS: dict[tuple[str, str], NodeKind] = {
    ("Memory", "episode_id"): NodeKind.EPISODE,
    ("Memory", "remains_of"): NodeKind.MEMORY,
    ("Conflict", "new_id"): NodeKind.MEMORY,
    ("Conflict", "old_id"): NodeKind.MEMORY,
    ("Conflict", "winner_id"): NodeKind.MEMORY,
    ("Conflict", "loser_id"): NodeKind.MEMORY,
    ("SUPERSEDES", "conflict_id"): NodeKind.CONFLICT,
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


def is_ncname(local: str) -> bool:
    """An XML NCName as predicate_local builds them (also what RDF/XML element names need)."""
    if not local or not (local[0] == "_" or unicodedata.category(local[0]) in _NAME_START):
        return False
    return all(c in "-._" or unicodedata.category(c) in _NAME_CHAR for c in local[1:])


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


def is_user_entity(ref: NodeRef) -> bool:
    """Whether the node is the user's own entity (graph/model.py USER_ENTITY_KINDS): linked to the user (SAME_AS)."""
    return ref.kind is NodeKind.ENTITY and ref.parts[1] == USER_ENTITY_NAME and ref.parts[0] in USER_ENTITY_KINDS


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


_TURN_IN_IRI = re.compile(r"-?[0-9]{1,20}")


def parse_path(path: str) -> tuple[str, NodeRef | None, list[str]]:
    """Split an IRI path below a user into (what, node, rest): what is 'node', 'triple' or 'rel'."""
    segs = path.split("/")[1:] if path else []
    if not segs:
        return "node", USER_REF, []
    # A relationship statement: <node path>/rel/<TYPE>/<digest>
    if len(segs) >= 3 and segs[-3] == "rel" and REL_TYPE.match(segs[-2]) and _HEX32.match(segs[-1]):
        what, start, _ = parse_path("/" + "/".join(segs[:-3]) if len(segs) > 3 else "")
        if what == "node":
            return "rel", start, segs[-2:]
    d = [decode_segment(s) for s in segs]
    match d:
        case ["memory", key]:
            return "node", NodeRef.memory(key), []
        case ["memory", key, "triple", statement]:
            return "triple", NodeRef.memory(key), [statement]
        case ["entity", kind, name]:
            return "node", NodeRef.entity(kind, name), []
        case ["session", sid]:
            return "node", NodeRef.session(sid), []
        # ASCII digits only, at most 20 ("²".isdigit() holds, and a 5000-digit turn is beyond int()'s limit);
        # a turn out of range is refused by graph/rdf_checks.py, naming the IRI
        case ["session", sid, "turn", turn] if _TURN_IN_IRI.fullmatch(turn):
            return "node", NodeRef.episode(sid, int(turn)), []
        case ["conflict", key]:
            return "node", NodeRef.conflict(key), []
    return "unknown", None, []


def triple_statement_iri(base: str, memory: NodeRef, subject: NodeRef, predicate: str, obj: NodeRef) -> URIRef:
    """One statement per (memory, subject, predicate, object), like the TRIPLE's own derived id."""
    s_kind, s_name = subject.parts
    o_kind, o_name = obj.parts
    key = digest(s_kind, s_name.strip().casefold(), predicate, o_kind, o_name.strip().casefold())
    return URIRef(f"{base}{memory.path}/triple/{key}")


def rel_statement_iri(base: str, rel_type: str, start: NodeRef, end: NodeRef) -> URIRef:
    return URIRef(f"{base}{start.path}/rel/{rel_type}/{digest(end.path)}")


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
            # With an offset: a DateTime at that fixed offset (the driver's parse gives pytz zones, which it
            # would store as the named zone 'UTC': toString then reads ...Z[UTC]); without: a local date-time,
            # as Neo4j keeps it.
            parsed = neo4j.time.DateTime.from_iso_format(re.sub(r"Z$", "+00:00", lex.strip()))
            offset = parsed.utcoffset()
            return parsed if offset is None else parsed.replace(tzinfo=timezone(offset))
        if dt == XSD.date:
            return neo4j.time.Date.from_iso_format(lex.strip())
        if dt == RDF_JSON:
            value = json.loads(lex)
            if isinstance(value, list):
                return value
    except (KeyError, ValueError, TypeError) as exc:
        raise BadInput(f"literal {lex[:60]!r} is not a valid {dt}") from exc
    raise BadInput(f"literal datatype {dt} is not part of the bmam model")


def show(text: str) -> str:
    """Text for an error message: a lone surrogate (which no terminal can print) as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
