"""Reading an RDF export back, for import: parse_rdf (a syntax error names the line), and read_export,
which checks everything against the bmam model before any write and gives the ImportPlan (one user's
nodes, relationships and triples)."""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import Any

import neo4j.time
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from graph.conflicts import ConflictKind, ConflictStatus, ConflictStrategy
from graph.errors import BadInput, BmamError
from graph.model import STORED_TYPES, ClassifierLevel, MemoryType, PresetKind, Scope, Tier
from graph.rdf_records import NodeRecord, RelRecord, TripleRecord
from graph.rdf_terms import (
    ASSERTED_BY,
    BASE,
    BMAM,
    KIND_LABELS,
    NODE_SKIPPED,
    PRED,
    REF_PROPS,
    REL_INVERSES,
    REL_TYPE,
    TERM_PROPS,
    TERM_RELS,
    UNDIRECTED,
    NodeKind,
    NodeRef,
    decode_segment,
    from_literal,
    parse_path,
    predicate_from_local,
    triple_statement_iri,
    user_iri,
)
from graph.rdf_writers import RdfFormat

_PROP_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_LABEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
# Labels a node of one kind may not also carry (they would make it another kind).
_FOREIGN_LABELS = KIND_LABELS | {"SchemaMigration", "ApiKey"}


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
    # rdflib logs an ill-typed literal ("abc"^^xsd:double) with a traceback, or warns: read_export refuses
    # such a literal with one line of its own, so neither reaches the caller's terminal.
    term_log = logging.getLogger("rdflib.term")
    level = term_log.level
    term_log.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g.parse(data=data, format=fmt.rdflib_name)
    except Exception as exc:
        raise BadInput(f"{fmt.value} syntax error: {describe_parse_error(exc, data, fmt)}", field="file") from exc
    finally:
        term_log.setLevel(level)
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
    # Set by check_plan once every value is one the service holds; KnowledgeRepository.write refuses a
    # plan that was not checked (a bad file writes nothing, not even the user node).
    checked: bool = False

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
    try:
        return decode_segment(parts[0]), decode_segment(parts[2]), path
    except UnicodeDecodeError as exc:
        raise BadInput(f"{show(iri)}: the IRI holds percent-encoding that is not UTF-8", field="file") from exc


def _parse_path(iri: str, path: str) -> tuple[str, NodeRef | None, list[str]]:
    try:
        return parse_path(path)
    except UnicodeDecodeError as exc:
        raise BadInput(f"{show(iri)}: the IRI holds percent-encoding that is not UTF-8", field="file") from exc


def show(text: str) -> str:
    """Text for an error message: a lone surrogate (which no terminal can print) as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


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
    triple_keys: set[tuple[NodeRef, NodeRef, str, NodeRef]] = set()
    described: dict[NodeRef, str] = {}  # node -> the IRI that describes it
    user_props: dict[str, Any] = {}
    ignored = 0

    def ref_of(term: Any, where: str) -> NodeRef:
        parsed = _user_of(str(term)) if isinstance(term, URIRef) else None
        if parsed is None or (parsed[0], parsed[1]) != (tenant, user):
            raise BadInput(f"{where}: {term} is not a node of {user}@{tenant}")
        what, ref, _ = _parse_path(str(term), parsed[2])
        if what != "node" or ref is None:
            raise BadInput(f"{where}: {term} is not a node IRI of the bmam model")
        return ref

    subjects = {s for s in g.subjects() if isinstance(s, URIRef)}
    for s in sorted(subjects, key=str):
        parsed = _user_of(str(s))
        if parsed is None or (parsed[0], parsed[1]) != (tenant, user):
            ignored += sum(1 for _ in g.predicate_objects(s))
            continue
        what, ref, _ = _parse_path(str(s), parsed[2])
        pairs = list(g.predicate_objects(s))
        where = show(str(s))
        if what == "node" and ref is not None:
            if ref in described:  # e.g. .../turn/00 and .../turn/0: one node, which would replace the other
                raise BadInput(f"{where}: names the same node as {show(described[ref])}", field="file")
            described[ref] = str(s)
            props, node_rels, skipped = _node_body(ref, pairs, ref_of, where)
            if ref.kind is NodeKind.USER:
                user_props = props
            else:
                labels = [str(o)[len(str(BMAM)):] for p, o in pairs
                          if p == RDF.type and str(o).startswith(str(BMAM))]
                nodes[ref] = NodeRecord(ref=ref, labels=_check_labels(ref, labels, props, where), props=props)
            ignored += skipped
            for rel in node_rels:
                rels.setdefault((rel.type, rel.start, rel.end), rel)
        elif what == "triple" and ref is not None:
            triple = _triple_body(ref, pairs, ref_of, where)
            same = (triple.memory, triple.subject, triple.predicate, triple.object)
            if same in triple_keys:
                raise BadInput(f"{where}: a second statement of the same knowledge triple", field="file")
            triple_keys.add(same)
            triples.append(triple)
        elif what == "rel" and ref is not None:
            rel_type, rel = _rel_statement(pairs, ref_of, where)
            if ref not in (rel.start, rel.end):
                raise BadInput(f"{where}: the statement's IRI does not match its rdf:subject")
            if (rel.type, rel.start, rel.end) in rel_props:
                raise BadInput(f"{where}: a second statement of the same {rel.type} relationship", field="file")
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


def _one_value(props: dict[str, Any], name: str, where: str) -> None:
    """Every property holds one value (a list is one rdf:JSON literal): a second one is refused, not chosen."""
    if name in props:
        raise BadInput(f"{where}: {name} has more than one value; a property holds one value", field="file")


def _literal_or_ref(owner: str, name: str, o: Any, ref_of: Any, where: str) -> Any:
    target = REF_PROPS.get((owner, name))
    if target is not None and isinstance(o, URIRef):
        ref = ref_of(o, where)
        if ref.kind is not target:
            raise BadInput(f"{where}: {name} must point at a {target}")
        return ref
    if not isinstance(o, Literal):
        raise BadInput(f"{where}: {name} must be a literal")
    return _value(o, name, where)


def _value(o: Literal, name: str, where: str) -> Any:
    try:
        return from_literal(o)
    except BadInput as exc:
        raise BadInput(f"{where}: {name}: {show(exc.message)}", field="file") from exc


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
            _one_value(props, name, where)
            props[name] = _literal_or_ref(owner, name, o, ref_of, where)
        elif p in TERM_RELS or (str(p).startswith(str(BMAM)) and REL_TYPE.match(str(p)[len(str(BMAM)):])):
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


# What a stored memory holds, checked before anything is written (a value the model cannot hold would break
# the user's recall afterwards, not the import). check_plan then checks every property of every node.
_UNIT_PROPS = ("passive", "active", "preset", "weight", "confidence")
_COUNT_PROPS = ("recall_count", "mention_count", "feedback_count")
_TIME_PROPS = ("created_at", "valid_from", "valid_to", "last_mentioned_at", "last_recalled_at", "last_feedback_at",
               "decayed_at", "merged_at")


def _check_memory(props: dict[str, Any], labels: list[str], where: str) -> None:
    from graph.records import memory_from_row

    for name, values in (("type", [t.value for t in MemoryType]), ("tier", list(Tier)),
                         ("preset_kind", list(PresetKind)), ("classified_by", list(ClassifierLevel))):
        value = props.get(name)
        if value is not None and value not in values:
            raise BadInput(f"{where}: not a valid memory: {name} must be one of {', '.join(sorted(values))}, "
                           f"got {_got(value)}", field="file")
    if "text" in props and (not isinstance(props["text"], str) or not props["text"].strip()):
        raise BadInput(f"{where}: a memory's text must be a non-empty string", field="file")
    try:
        for names, check in ((_UNIT_PROPS, _unit), (_COUNT_PROPS, _count), (_TIME_PROPS, _time)):
            for name in names:
                if props.get(name) is not None:
                    props[name] = check(props[name], name)
    except _Refused as why:
        raise _refuse(where, why) from None
    try:
        memory = memory_from_row({**props, "id": "m_check", "tenant": "t", "user_id": "u"})
    except (KeyError, ValueError, TypeError) as exc:
        raise BadInput(f"{where}: not a valid memory (missing or wrong {exc})", field="file") from exc
    if memory.type is MemoryType.WORKING:
        raise BadInput(f"{where}: WORKING memory is never stored", field="file")
    if memory.type.label not in labels:
        raise BadInput(f"{where}: a {memory.type.value} memory must have rdf:type bmam:{memory.type.label}",
                       field="file")


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
            _one_value(props, name, where)
            props[name] = _value(value, name, where)
    if asserted_by != memory:
        raise BadInput(f"{where}: the statement must be prov:wasDerivedFrom its memory {memory.path}")
    predicate = predicate_from_local(str(p)[len(str(PRED)):])
    if not predicate.strip():
        raise BadInput(f"{where}: empty predicate")
    return TripleRecord(memory=memory, subject=subject, predicate=predicate, object=obj, props=props)


def _rel_statement(pairs: list[tuple[Any, Any]], ref_of: Any, where: str) -> tuple[str, RelRecord]:
    s, p, o, rest = _statement_parts(pairs, where)
    rel_type = TERM_RELS.get(p) or (str(p)[len(str(BMAM)):] if str(p).startswith(str(BMAM)) else "")
    if not REL_TYPE.match(rel_type) or rel_type == "TRIPLE":
        raise BadInput(f"{where}: {p} is not a relationship of the bmam model")
    start, end = ref_of(s, where), ref_of(o, where)
    props: dict[str, Any] = {}
    for pred, value in rest:
        if pred in TERM_PROPS or str(pred).startswith(str(BMAM)):
            name = TERM_PROPS.get(pred) or _check_prop_name(str(pred)[len(str(BMAM)):], where)
            _one_value(props, name, where)
            props[name] = _literal_or_ref(rel_type, name, value, ref_of, where)
    return rel_type, RelRecord(rel_type, start, end, props)


# ----- the import checks: every value against the type and the rules the service holds ----------------


@dataclass(frozen=True, slots=True)
class ValueRules:
    """How the service validates what callers send, passed in by the import use case (graph does not depend
    on bmam): `text(value, field)` is the API's text validation with its size limit (bmam.validate.text),
    `identifier(value, field)` its id validation (bmam.validate.identifier). Each raises a BmamError whose
    message starts with the field it was given."""

    text: Callable[[str, str], object]
    identifier: Callable[[str, str], object]


class _Refused(Exception):
    """Why one value is refused (its message starts with the property); check_plan adds whose it is."""


# A value check: (value, property name, rules) -> the value to store, or _Refused.
Check = Callable[[Any, str, ValueRules], Any]

_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # C0 controls but tab, line feed and carriage return
_INT64_MAX = 2**63 - 1  # Neo4j's integers are 64-bit
_TURN_MAX = 2**31 - 1  # ingest's bound on a turn index
_MAX_OFFSET = timedelta(hours=18)  # Neo4j's bound on a zone offset


def _got(value: Any) -> str:
    if value is None or isinstance(value, str | int | float | bool):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, NodeRef):
        return f"a {value.kind} IRI"
    if isinstance(value, neo4j.time.DateTime | neo4j.time.Date):
        return f"{'xsd:dateTime' if isinstance(value, neo4j.time.DateTime) else 'xsd:date'} {value.iso_format()}"
    return f"a {type(value).__name__}"


def _validated(check: Callable[[str, str], object], value: str, name: str) -> None:
    try:
        check(value, name)
    except BmamError as exc:
        raise _Refused(exc.message) from exc


def _string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise _Refused(f"{name} must be a string, got {_got(value)}")
    return value


def _no_controls(value: str, name: str) -> None:
    # bmam.validate.text refuses NUL; the other C0 controls but tab, line feed and carriage return are
    # refused here as well, whether or not validate.text does it too (a memory's text is shown, searched
    # and tokenised: a terminal escape or a backspace has no place in it).
    found = _C0.search(value)
    if found:
        raise _Refused(f"{name} must not contain control characters (U+{ord(found.group()):04X})")


def _text(value: Any, name: str, rules: ValueRules) -> str:
    """Text as the API takes it: non-empty, valid Unicode, within the size limit, no NUL or other controls."""
    _validated(rules.text, _string(value, name), name)
    _no_controls(value, name)
    return str(value)


def _note(value: Any, name: str, rules: ValueRules) -> str:
    """Text that may be empty (a conflict's reason)."""
    if _string(value, name).strip():
        return _text(value, name, rules)
    return str(value)


def _identifier(value: Any, name: str, rules: ValueRules) -> str:
    _validated(rules.identifier, _string(value, name), name)
    return str(value)


def _boolean(value: Any, name: str, rules: ValueRules | None = None) -> bool:
    if not isinstance(value, bool):
        raise _Refused(f"{name} must be a boolean (xsd:boolean true or false), got {_got(value)}")
    return value


def _count(value: Any, name: str, rules: ValueRules | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _INT64_MAX:
        raise _Refused(f"{name} must be a count, an integer from 0 to 2^63 - 1, got {_got(value)}")
    return value


def _turn(value: Any, name: str, rules: ValueRules | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _TURN_MAX:
        raise _Refused(f"{name} must be an integer from 0 to 2^31 - 1, got {_got(value)}")
    return value


def _polarity(value: Any, name: str, rules: ValueRules | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in (1, -1):
        raise _Refused(f"{name} must be 1 or -1, got {_got(value)}")
    return value


def _unit(value: Any, name: str, rules: ValueRules | None = None) -> float:
    """A weight, a weight part, a confidence or a strength: a number in [0, 1], stored as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise _Refused(f"{name} must be a number in [0, 1], got {_got(value)}")
    return float(value)


def _time(value: Any, name: str, rules: ValueRules | None = None) -> neo4j.time.DateTime:
    """An xsd:dateTime with an offset Neo4j holds (within +-18:00, whole minutes), in years 1 to 9999 in UTC
    (Neo4j stores the instant: 9999-12-31T23:59:59-05:00 is in year 10000)."""
    if not isinstance(value, neo4j.time.DateTime):
        raise _Refused(f"{name} must be an xsd:dateTime, got {_got(value)}")
    offset = value.utcoffset()
    if offset is None:
        raise _Refused(f"{name} has no time zone offset ({value.iso_format()})")
    if abs(offset) > _MAX_OFFSET or offset % timedelta(minutes=1):
        raise _Refused(f"{name} has an offset Neo4j cannot hold ({value.iso_format()}): whole minutes "
                       "within -18:00..+18:00")
    try:
        value.to_native().astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise _Refused(f"{name} is out of range ({value.iso_format()}): years 1 to 9999 in UTC") from exc
    return value


def _one_of(*values: str) -> Check:
    allowed = frozenset(values)

    def check(value: Any, name: str, rules: ValueRules) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise _Refused(f"{name} must be one of {', '.join(sorted(allowed))}, got {_got(value)}")
        return value

    return check


def _ref(kind: NodeKind) -> Check:
    """A reference to another node of the user: its IRI, or (a node the export could not resolve) its id."""
    def check(value: Any, name: str, rules: ValueRules) -> Any:
        if isinstance(value, NodeRef) and value.kind is kind:
            _check_ref(value, rules, f"{name}'s IRI")
            return value
        if isinstance(value, str):
            return _identifier(value, name, rules)
        raise _Refused(f"{name} must be the IRI of a {kind} (or its id), got {_got(value)}")

    return check


def _list(item: Check) -> Check:
    def check(value: Any, name: str, rules: ValueRules) -> list[Any]:
        if not isinstance(value, list):
            raise _Refused(f"{name} must be a list (an rdf:JSON array), got {_got(value)}")
        return [item(v, f"{name}[{i}]", rules) for i, v in enumerate(value)]

    return check


_TIME: Check = _time
# The properties each node kind, relationship type and knowledge triple holds, as bmam writes them (cypher/:
# memory/remember, triple/add, episode/write_batch, conflict/*, association/*, weights/*, maintenance/merge),
# with their types. A property not listed is refused: the import writes what the service would have written.
NODE_PROPS: dict[NodeKind, dict[str, Check]] = {
    NodeKind.USER: {"created_at": _TIME},
    NodeKind.MEMORY: {
        "text": _text, "type": _one_of(*(t.value for t in STORED_TYPES)), "tier": _one_of(*Tier),
        "locked": _boolean, "passive": _unit, "active": _unit, "preset": _unit, "weight": _unit,
        "confidence": _unit, "preset_kind": _one_of(*PresetKind), "classified_by": _one_of(*ClassifierLevel),
        "created_at": _TIME, "valid_from": _TIME, "valid_to": _TIME, "last_mentioned_at": _TIME,
        "last_recalled_at": _TIME, "last_feedback_at": _TIME, "decayed_at": _TIME, "merged_at": _TIME,
        "recall_count": _count, "mention_count": _count, "feedback_count": _count,
        "session_id": _identifier, "turn": _turn, "device_id": _identifier, "episode_id": _ref(NodeKind.EPISODE),
        "merged_ids": _list(_identifier), "merged_texts": _list(_text), "merged_session_ids": _list(_identifier),
        "merged_device_ids": _list(_identifier), "merged_episode_ids": _list(_identifier),
    },
    NodeKind.ENTITY: {"kind": _identifier, "name": _text, "created_at": _TIME},
    NodeKind.SESSION: {"session_id": _identifier, "started_at": _TIME, "last_at": _TIME},
    NodeKind.EPISODE: {"session_id": _identifier, "turn": _turn, "speaker": _one_of("user", "assistant", "system"),
                       "text": _text, "at": _TIME, "device_id": _identifier},
    NodeKind.CONFLICT: {
        "kind": _one_of(*ConflictKind), "status": _one_of(*ConflictStatus), "strategy": _one_of(*ConflictStrategy),
        "reason": _note, "new_id": _ref(NodeKind.MEMORY), "old_id": _ref(NodeKind.MEMORY),
        "winner_id": _ref(NodeKind.MEMORY), "loser_id": _ref(NodeKind.MEMORY), "created_at": _TIME,
        "resolved_at": _TIME, "resolved_by": _identifier,
    },
}
# What the service reads of every node without a default (graph/records.py memory_from_row, graph/conflicts.py
# _conflict, graph/episodes.py episode_from_row): a node without it would break the user's reads.
NODE_REQUIRED: dict[NodeKind, tuple[str, ...]] = {
    NodeKind.USER: (), NodeKind.MEMORY: ("text", "type", "tier", "created_at"), NodeKind.ENTITY: ("kind", "name"),
    NodeKind.SESSION: ("session_id",), NodeKind.EPISODE: ("session_id", "turn", "speaker", "text", "at"),
    NodeKind.CONFLICT: ("kind", "status", "strategy", "new_id", "old_id", "created_at"),
}
# The relationships of a user's subgraph: type -> (start kind, end kind), their properties and what they need.
REL_ENDS: dict[str, tuple[NodeKind, NodeKind]] = {
    "HAS_MEMORY": (NodeKind.USER, NodeKind.MEMORY), "HAS_SESSION": (NodeKind.USER, NodeKind.SESSION),
    "HAS_EPISODE": (NodeKind.SESSION, NodeKind.EPISODE), "NEXT": (NodeKind.EPISODE, NodeKind.EPISODE),
    "DERIVED_FROM": (NodeKind.MEMORY, NodeKind.EPISODE), "MENTIONS": (NodeKind.MEMORY, NodeKind.ENTITY),
    "ASSOCIATED": (NodeKind.MEMORY, NodeKind.MEMORY), "SUPERSEDES": (NodeKind.MEMORY, NodeKind.MEMORY),
    "BETWEEN": (NodeKind.CONFLICT, NodeKind.MEMORY),
}
REL_PROPS: dict[str, dict[str, Check]] = {
    "ASSOCIATED": {"strength": _unit, "created_at": _TIME, "updated_at": _TIME, "co_recalled": _count,
                   "formed_by": _one_of("user", "stored", "terms", "recalled")},
    "SUPERSEDES": {"at": _TIME, "conflict_id": _ref(NodeKind.CONFLICT)},
    "BETWEEN": {"role": _one_of("new", "old")},
}
REL_REQUIRED: dict[str, tuple[str, ...]] = {"ASSOCIATED": ("strength",), "BETWEEN": ("role",)}
_NO_LOOPS = frozenset({"NEXT", "ASSOCIATED", "SUPERSEDES"})
TRIPLE_PROPS: dict[str, Check] = {"polarity": _polarity, "created_at": _TIME, "valid_to": _TIME}
TRIPLE_REQUIRED = ("polarity",)


def _a(word: str) -> str:
    return f"an {word}" if word[:1].upper() in "AEIO" else f"a {word}"  # a User, an Entity


def _check_ref(ref: NodeRef, rules: ValueRules, what: str = "its IRI") -> None:
    """The parts of a node's IRI, which become its ids and properties: ids as the API takes ids, an entity's
    name as text, an episode's turn within ingest's bound."""
    match ref.kind:
        case NodeKind.MEMORY | NodeKind.CONFLICT:
            _identifier(ref.parts[0], f"{what}'s key", rules)
        case NodeKind.ENTITY:
            _identifier(ref.parts[0], f"{what}'s entity kind", rules)
            _text(ref.parts[1], f"{what}'s entity name", rules)
        case NodeKind.SESSION:
            _identifier(ref.parts[0], f"{what}'s session id", rules)
        case NodeKind.EPISODE:
            _identifier(ref.parts[0], f"{what}'s session id", rules)
            _turn(int(ref.parts[1]), f"{what}'s turn", rules)


def _check_props(where: str, owner: str, props: dict[str, Any], allowed: dict[str, Check],
                 required: tuple[str, ...], rules: ValueRules) -> None:
    """Each property known to the owner and of its type (the checked value replaces it: a weight written as
    an integer is stored as a float); what the service needs is there."""
    for name in required:
        if props.get(name) is None:
            raise BadInput(f"{where}: {_a(owner)} needs {name}", field="file")
    for name, value in list(props.items()):
        check = allowed.get(name)
        if check is None:
            raise BadInput(f"{where}: {name} is not a property of {_a(owner)}", field="file")
        try:
            props[name] = check(value, name, rules)
        except _Refused as why:
            raise _refuse(where, why) from None


def _refuse(where: str, why: _Refused) -> BadInput:
    return BadInput(f"{where}: {show(str(why))}", field="file")


def _check_node(node: NodeRecord, where: str, rules: ValueRules) -> None:
    kind, props = node.ref.kind, node.props
    try:
        _check_ref(node.ref, rules)
    except _Refused as why:
        raise _refuse(where, why) from None
    _check_props(where, kind.value, props, NODE_PROPS[kind], NODE_REQUIRED[kind], rules)
    # Labels: a memory carries exactly the label of its type, the other kinds none but their own.
    wanted = [MemoryType(props["type"]).label] if kind is NodeKind.MEMORY else []
    for label in node.labels:
        if label not in wanted:
            raise BadInput(f"{where}: label {label!r} is not allowed on {_a(kind.value)}"
                           + (f" of type {props['type']}" if kind is NodeKind.MEMORY else ""), field="file")
    # What the IRI says and what the properties say are one thing (ids are derived from the properties).
    parts: dict[str, Any] = {}
    match kind:
        case NodeKind.ENTITY:
            parts = {"kind": node.ref.parts[0], "name": node.ref.parts[1]}
        case NodeKind.SESSION:
            parts = {"session_id": node.ref.parts[0]}
        case NodeKind.EPISODE:
            parts = {"session_id": node.ref.parts[0], "turn": int(node.ref.parts[1])}
    for name, value in parts.items():
        if props.get(name) != value:
            raise BadInput(f"{where}: {name} is {_got(props.get(name))} but the IRI says {_got(value)}", field="file")
    if kind is NodeKind.MEMORY:
        # core is locked, and only core (memory/remember, tier/update, tier/unlock all keep it so)
        core = props["tier"] == Tier.CORE
        locked = props.setdefault("locked", core)
        if locked != core:
            raise BadInput(f"{where}: tier {props['tier']} with locked {str(locked).lower()}: a core memory is "
                           "locked, and only a core memory", field="file")


def check_plan(plan: ImportPlan, rules: ValueRules) -> None:
    """Check every property of every node, relationship and knowledge triple of a plan against the type and
    the rules the service holds, before anything is written; the first value refused is BadInput naming the
    node's IRI (or the relationship, or the triple's statement) and the property. Marks the plan checked."""
    base = user_iri(plan.source.tenant, plan.source.user_id)
    _check_props(show(base), "User", plan.user_props, NODE_PROPS[NodeKind.USER], (), rules)
    for node in plan.nodes:
        _check_node(node, show(str(node.ref.iri(base))), rules)
    present = {(r.type, r.start, r.end) for r in plan.rels}
    for rel in plan.rels:
        where = show(f"{rel.start.iri(base)} {rel.type} {rel.end.iri(base)}")
        ends = REL_ENDS.get(rel.type)
        if ends is None:
            raise BadInput(f"{where}: {rel.type} is not a relationship of the bmam model", field="file")
        if (rel.start.kind, rel.end.kind) != ends:
            raise BadInput(f"{where}: {_a(rel.type)} relationship goes from {_a(ends[0].value)} to "
                           f"{_a(ends[1].value)}", field="file")
        if rel.type in _NO_LOOPS and rel.start == rel.end:
            raise BadInput(f"{where}: {_a(rel.type)} relationship from a node to itself", field="file")
        if rel.type in ("HAS_EPISODE", "NEXT") and rel.start.parts[0] != rel.end.parts[0]:
            raise BadInput(f"{where}: {_a(rel.type)} relationship stays in one session", field="file")
        if rel.type in UNDIRECTED and rel.start.sort_key > rel.end.sort_key \
                and (rel.type, rel.end, rel.start) in present:
            raise BadInput(f"{where}: {rel.type} is undirected and the file holds it both ways", field="file")
        _check_props(where, f"{rel.type} relationship", rel.props, REL_PROPS.get(rel.type, {}),
                     REL_REQUIRED.get(rel.type, ()), rules)
    for t in plan.triples:
        where = show(str(triple_statement_iri(base, t.memory, t.subject, t.predicate, t.object)))
        try:
            _text(t.predicate, "predicate", rules)
        except _Refused as why:
            raise _refuse(where, why) from None
        _check_props(where, "knowledge triple", t.props, TRIPLE_PROPS, TRIPLE_REQUIRED, rules)
    plan.checked = True
