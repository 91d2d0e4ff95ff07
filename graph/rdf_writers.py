"""The RDF formats (RdfFormat: names, media types) and the streaming writers of an export: N-Triples,
Turtle, JSON-LD and RDF/XML, written chunk by chunk (serialize), with the prefixes they declare."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SDO, XSD

from graph.errors import BadInput
from graph.graph_export import xml_safe
from graph.rdf_records import Chunk, Triple3, chunk_triples
from graph.rdf_terms import BMAM, PRED, is_ncname

# The prefixes every document declares (Turtle @prefix, the JSON-LD @context, RDF/XML xmlns).
PREFIXES: dict[str, str] = {
    "bmam": str(BMAM),
    "p": str(PRED),
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "xsd": str(XSD),
    "dcterms": str(DCTERMS),
    "prov": str(PROV),
    "schema": str(SDO),
    "owl": str(OWL),
}


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


def _bracketed(iri: str) -> str:
    return f"<{iri}>"


def _term(term: URIRef | Literal, iri: Callable[[str], str]) -> str:
    """An IRI or a literal (quoted, with its language or a datatype other than xsd:string) in N-Triples /
    Turtle syntax; `iri` writes IRIs (in full, or as a Turtle prefixed name where one fits)."""
    if isinstance(term, URIRef):
        return iri(str(term))
    body = f'"{_nt_string(str(term))}"'
    if term.language:
        return f"{body}@{term.language}"
    if term.datatype is not None and term.datatype != XSD.string:
        return f"{body}^^{iri(str(term.datatype))}"
    return body


def nt_term(term: URIRef | Literal) -> str:
    return _term(term, _bracketed)


def _by_subject(triples: Iterable[Triple3]) -> dict[str, list[tuple[URIRef, URIRef | Literal]]]:
    """A chunk's (predicate, object) pairs grouped by subject, subjects in first-seen order (a block each)."""
    grouped: dict[str, list[tuple[URIRef, URIRef | Literal]]] = defaultdict(list)
    for s, p, o in triples:
        grouped[str(s)].append((p, o))
    return grouped


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
    return _term(term, _turtle_iri)


class TurtleWriter(ChunkWriter):
    """Turtle, one block per subject and chunk (a subject seen in an earlier chunk simply gets another
    block). Every literal is written with its lexical form and datatype as stored: rdflib's own Turtle
    serializer would print an xsd:double as 1.234568e-01, losing digits."""

    def begin(self) -> str:
        return "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in PREFIXES.items()) + "\n"

    def chunk(self, triples: Iterable[Triple3]) -> str:
        out: list[str] = []
        for subject, pairs in _by_subject(triples).items():
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


def _xml_text(text: str) -> str:
    """Text as XML 1.0 carries it; a character it cannot hold (one input refuses, kept from before) as U+FFFD, as
    the GraphML and GEXF writers do (xml_safe): refused here, it broke a download already under way (ttl, nt and
    jsonld keep it exactly)."""
    text = xml_safe(text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
            .replace('"', "&quot;"))


def _qname(iri: str) -> str:
    for prefix, ns in PREFIXES.items():
        local = iri[len(ns):]
        if iri.startswith(ns) and is_ncname(local):
            return f"{prefix}:{local}"
    raise RdfEncodingError(f"the predicate {iri} cannot be written in RDF/XML", field="format")


class RdfXmlWriter(ChunkWriter):
    """RDF/XML with one rdf:Description per subject and chunk; every predicate is in a declared namespace
    with an NCName local part (predicate IRIs are built so), so chunks share the root's declarations."""

    def begin(self) -> str:
        decls = "".join(f'\n   xmlns:{p}="{ns}"' for p, ns in PREFIXES.items())
        return f'<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF{decls}>\n'

    def chunk(self, triples: Iterable[Triple3]) -> str:
        out: list[str] = []
        for subject, pairs in _by_subject(triples).items():
            out.append(f'  <rdf:Description rdf:about="{_xml_text(subject)}">\n')
            for p, o in pairs:
                q = _qname(str(p))
                if isinstance(o, URIRef):
                    out.append(f'    <{q} rdf:resource="{_xml_text(str(o))}"/>\n')
                elif o.datatype is None or o.datatype == XSD.string:
                    out.append(f"    <{q}>{_xml_text(str(o))}</{q}>\n")
                else:
                    out.append(f'    <{q} rdf:datatype="{o.datatype}">{_xml_text(str(o))}</{q}>\n')
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
