"""Graph export for visualisation tools (Gephi, Cytoscape, yEd): one user's subgraph as a networkx
MultiDiGraph written as GraphML or GEXF. Embeddings are left out; every other property becomes a node
or edge attribute (times as ISO text, lists as JSON). Built from the same pages as the RDF export, but
held in memory whole: the bound is the user's subgraph without embeddings."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

import neo4j.time
import networkx as nx

from graph.errors import BadInput
from graph.rdf_records import Chunk
from graph.rdf_terms import NodeKind, NodeRef

LABEL_CHARS = 80  # a memory's text is its display label, cut to this many characters


class GraphFormat(StrEnum):
    GRAPHML = "graphml"
    GEXF = "gexf"

    @property
    def media_type(self) -> str:
        return {"graphml": "application/graphml+xml", "gexf": "application/gexf+xml"}[self.value]

    @classmethod
    def parse(cls, value: str) -> GraphFormat:
        try:
            return cls(value.strip().lower().lstrip("."))
        except ValueError as exc:
            raise BadInput(f"unknown graph format {value!r}; one of graphml, gexf", field="format") from exc


# What XML 1.0 cannot hold (C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF): input refuses
# them now (bmam/validate.py), but a store may hold them from before, and one such character made the whole
# file unreadable. Each is written as U+FFFD, the replacement character; the rest of the text is kept.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def node_key(ref: NodeRef) -> str:
    """A node's id in the exported graph: its IRI path below the user ('user' for the user)."""
    return xml_safe(ref.path.lstrip("/") or "user")


def _attr(value: Any) -> str | int | float | bool | None:
    if isinstance(value, str):
        return xml_safe(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, NodeRef):
        return node_key(value)
    if isinstance(value, neo4j.time.DateTime | neo4j.time.Date):
        return value.iso_format()
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    if isinstance(value, list | tuple):
        return xml_safe(json.dumps([_attr(v) for v in value], ensure_ascii=False))
    return xml_safe(str(value))


# scope_token: the full-text index's word for the user; text_key: a digest of the text (graph/text_key.py);
# hooks_pending_at: ingest's transient mark
_NODE_SKIPPED = frozenset({"embedding", "tenant", "user_id", "scope_token", "text_key", "hooks_pending_at"})
_REL_SKIPPED = frozenset({"tenant", "user_id"})


def _attrs(props: Mapping[str, Any], skipped: frozenset[str]) -> dict[str, Any]:
    out = {}
    for name, value in props.items():
        if name in skipped:
            continue
        converted = _attr(value)
        if converted is not None:
            out[name] = converted
    return out


def _display(ref: NodeRef, props: Mapping[str, Any]) -> str:
    return xml_safe(_label(ref, props))


def _label(ref: NodeRef, props: Mapping[str, Any]) -> str:
    if ref.kind is NodeKind.MEMORY:
        text = str(props.get("text", ""))
        return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"
    if ref.kind is NodeKind.ENTITY:
        return str(props.get("name", ref.parts[1]))
    if ref.kind is NodeKind.EPISODE:
        return f"{ref.parts[0]} #{ref.parts[1]}"
    if ref.kind is NodeKind.USER:
        return "user"
    return ref.parts[0] if ref.parts else ref.kind.value


def build_graph(chunks: Iterable[Chunk]) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for chunk in chunks:
        for node in chunk.nodes:
            attrs = _attrs(node.props, _NODE_SKIPPED)
            attrs.update(node_type=node.ref.kind.value, labels=xml_safe(":".join(sorted(node.labels))),
                         label=_display(node.ref, node.props))
            g.add_node(node_key(node.ref), **attrs)
        for rel in chunk.rels:
            attrs = _attrs(rel.props, _REL_SKIPPED)
            attrs["rel_type"] = rel.type
            g.add_edge(node_key(rel.start), node_key(rel.end), key=rel.type, **attrs)
        for t in chunk.triples:
            attrs = _attrs(t.props, _REL_SKIPPED | {"id", "memory_id"})
            attrs.update(rel_type="TRIPLE", memory=node_key(t.memory), current=t.current, label=xml_safe(t.predicate))
            key = f"TRIPLE {xml_safe(t.predicate)} {node_key(t.memory)}"
            g.add_edge(node_key(t.subject), node_key(t.object), key=key, **attrs)
    _unify_types(g)
    return g


def _unify_types(g: nx.MultiDiGraph) -> None:
    """GraphML and GEXF declare one type per attribute: ints become floats where a float shares the
    name, and anything shares a name with text becomes text."""
    for items in (list(g.nodes(data=True)), [(None, d) for _, _, d in g.edges(data=True)]):
        kinds: dict[str, set[type]] = {}
        for _, data in items:
            for name, value in data.items():
                kinds.setdefault(name, set()).add(type(value))
        for _, data in items:
            for name, value in list(data.items()):
                seen = kinds[name]
                if str in seen and not isinstance(value, str):
                    data[name] = json.dumps(value) if isinstance(value, bool) else str(value)
                elif float in seen and isinstance(value, int) and not isinstance(value, bool):
                    data[name] = float(value)
                elif bool in seen and len(seen) > 1 and isinstance(value, bool):
                    data[name] = int(value) if float not in seen else float(value)


def write_graph(g: nx.MultiDiGraph, fmt: GraphFormat) -> bytes:
    buffer = io.BytesIO()
    if fmt is GraphFormat.GRAPHML:
        nx.write_graphml(g, buffer, encoding="utf-8", prettyprint=True)
        # networkx writes a CR raw, and every XML parser reads it back as LF ("a\r\nb" came back "a\nb"); the
        # document itself holds none (its line ends are LF), so each one is a text's and goes as a reference
        return buffer.getvalue().replace(b"\r", b"&#13;")
    nx.write_gexf(g, buffer, encoding="utf-8", prettyprint=True)
    return buffer.getvalue()
