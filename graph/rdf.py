"""Reading an RDF export back, for import: parse_rdf (a syntax error names the line), and read_export,
which only parses: it reads the document's structure as the bmam model lays it out (one user, node IRIs,
statements, literals) into the ImportPlan (one user's nodes, relationships and triples), refusing what it
cannot read; read_exports reads every user of a tenant-wide export so. Whether the plan's values and labels
are acceptable is graph/rdf_checks.py check_plan's to decide, before any write."""

from __future__ import annotations

import json
import logging
import re
import warnings
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from graph.errors import BadInput
from graph.model import Scope
from graph.rdf_records import ImportPlan, NodeRecord, RelRecord, TripleRecord
from graph.rdf_terms import (
    ASSERTED_BY,
    BASE,
    BMAM,
    NODE_SKIPPED,
    PRED,
    REF_PROPS,
    REL_INVERSES,
    REL_TYPE,
    SAME_AS,
    TERM_PROPS,
    TERM_RELS,
    NodeKind,
    NodeRef,
    decode_segment,
    from_literal,
    is_user_entity,
    parse_path,
    predicate_from_local,
    predicate_local,
    show,
    user_iri,
)
from graph.rdf_writers import RdfFormat

_PROP_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


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
    if fmt is RdfFormat.JSONLD:
        _refuse_referenced_contexts(data)
    if fmt is RdfFormat.RDFXML and (b"<!DOCTYPE" in data or b"<!ENTITY" in data):
        # Entities nested in a DTD expand a few KB into minutes of parsing (expat stops them only after ~50 s of
        # rdflib's work); a bmam export declares none.
        raise BadInput("rdf: a DOCTYPE or an entity declaration is refused (a bmam export has none)", field="file")
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


def _refuse_referenced_contexts(data: bytes) -> None:
    """A JSON-LD context given by reference ("@context": "http://...", a list naming one, or "@import") would have
    rdflib fetch it (a URL or a file: a request from the server on the importer's behalf) while parsing: refused
    before the parser runs. A bmam export writes its context inline."""
    try:
        document = json.loads(data)
    except ValueError as exc:  # the parser's own words, its line as the parse names it
        raise BadInput(f"jsonld syntax error: {describe_parse_error(exc, data, RdfFormat.JSONLD)}",
                       field="file") from exc
    except RecursionError as exc:
        raise BadInput("jsonld syntax error: nested too deeply", field="file") from exc
    pending: list[Any] = [document]
    while pending:  # iterative: a deeply nested document must not exhaust the stack
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            context = node.get("@context")
            named = [context] if isinstance(context, str) else \
                [c for c in context if isinstance(c, str)] if isinstance(context, list) else []
            if isinstance(node.get("@import"), str):
                named.append(node["@import"])
            if named:
                raise BadInput(f"jsonld: a context given by reference ({named[0][:80]!r}) is not fetched; give the "
                               "context inline, as `bmam export` writes it", field="file")
            pending.extend(node.values())


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


# a subject IRI under a user, with its path below the user's IRI
_Subject = tuple[URIRef, str]


def _subjects_by_user(g: Graph) -> tuple[dict[tuple[str, str], list[_Subject]], list[URIRef]]:
    """The file's subject IRIs by the (tenant, user) whose IRI they are under, each list in IRI order; and those
    under no user."""
    by_user: dict[tuple[str, str], list[_Subject]] = defaultdict(list)
    stray: list[URIRef] = []
    for s in sorted({s for s in g.subjects() if isinstance(s, URIRef)}, key=str):
        parsed = _user_of(str(s))
        if parsed is None:
            stray.append(s)
        else:
            by_user[(parsed[0], parsed[1])].append((s, parsed[2]))
    return by_user, stray


def _statements_of(g: Graph, subjects: Iterable[URIRef]) -> int:
    """How many statements of the file these subjects have (what an import passes over, as ignored)."""
    return sum(1 for s in subjects for _ in g.predicate_objects(s))


def read_export(g: Graph, *, source_user: str | None = None) -> ImportPlan:
    """The one user's knowledge in a parsed export, not yet checked: a file that is not a bmam export, or
    that cannot be read as one (an IRI, a statement or a literal the model cannot read, a node described
    twice, a reference to a node the file does not describe), is BadInput. check_plan decides the rest.
    What the file holds of other users, or of none, is counted as ignored."""
    users = _users(g)
    if source_user is not None:
        users = [u for u in users if u[1] == source_user]
        if not users:
            raise BadInput(f"the file holds no user {source_user!r}", field="sourceUser")
    if not users:
        raise BadInput("not a bmam export: no bmam:User in the file", field="file")
    if len(users) > 1:
        names = ", ".join(f"{u}@{t}" for t, u in users[:10])
        raise BadInput(f"the file holds {len(users)} users ({names}); choose one (sourceUserId in the API and "
                       "POST /import, --source-user on the CLI), or import them all, each into the user of the "
                       "same id (importRdfAllUsers, POST /import.{ext}, bmam import --all-users)",
                       field="sourceUser")
    chosen = users[0]
    by_user, stray = _subjects_by_user(g)
    elsewhere = (s for key, subjects in by_user.items() if key != chosen for s, _ in subjects)
    return _read_user(g, *chosen, by_user.get(chosen, []), ignored=_statements_of(g, [*elsewhere, *stray]))


def read_exports(g: Graph) -> tuple[list[ImportPlan], int]:
    """Every user's knowledge in a parsed export (a tenant-wide one: `bmam export --all-users`), each read as
    read_export reads one, in user order; and how many statements of the file are under none of its users
    (ignored). A user id the file holds under two tenants is BadInput: each user is restored into the user of
    the same id, so the two would land in one."""
    users = _users(g)
    if not users:
        raise BadInput("not a bmam export: no bmam:User in the file", field="file")
    tenants: dict[str, str] = {}
    for tenant, user in users:
        if tenants.setdefault(user, tenant) != tenant:
            raise BadInput(f"the file holds user {user!r} of two tenants ({tenants[user]!r} and {tenant!r}); each "
                           "user is imported into the user of the same id: import them one at a time",
                           field="file")
    by_user, stray = _subjects_by_user(g)
    plans = [_read_user(g, tenant, user, by_user.pop((tenant, user), []), ignored=0) for tenant, user in users]
    # left in by_user: nodes under a user IRI that has no bmam:User node in the file
    return plans, _statements_of(g, [*stray, *(s for subjects in by_user.values() for s, _ in subjects)])


def _read_user(g: Graph, tenant: str, user: str, subjects: list[_Subject], *, ignored: int) -> ImportPlan:
    """One user's plan from the subjects under the user's IRI (in IRI order); ignored: what was passed over
    before (the file's other subjects), to which what this user's part holds that bmam does not read is added."""
    base = user_iri(tenant, user)
    nodes: dict[NodeRef, NodeRecord] = {}
    rel_props: dict[tuple[str, NodeRef, NodeRef], dict[str, Any]] = {}
    rels: dict[tuple[str, NodeRef, NodeRef], RelRecord] = {}
    triples: list[TripleRecord] = []
    triple_keys: set[tuple[NodeRef, NodeRef, str, NodeRef]] = set()
    described: dict[NodeRef, str] = {}  # node -> the IRI that describes it
    user_props: dict[str, Any] = {}
    plain: list[tuple[NodeRef, str, Any]] = []  # plain knowledge statements: the record is the reified triple

    def ref_of(term: Any, where: str) -> NodeRef:
        parsed = _user_of(str(term)) if isinstance(term, URIRef) else None
        if parsed is None or (parsed[0], parsed[1]) != (tenant, user):
            raise BadInput(f"{where}: {term} is not a node of {user}@{tenant}")
        what, ref, _ = _parse_path(str(term), parsed[2])
        if what != "node" or ref is None:
            raise BadInput(f"{where}: {term} is not a node IRI of the bmam model")
        return ref

    for s, path in subjects:
        what, ref, _ = _parse_path(str(s), path)
        pairs = list(g.predicate_objects(s))
        where = show(str(s))
        if what == "node" and ref is not None:
            if ref in described:  # e.g. .../turn/00 and .../turn/0: one node, which would replace the other
                raise BadInput(f"{where}: names the same node as {show(described[ref])}", field="file")
            described[ref] = str(s)
            props, node_rels, skipped = _node_body(ref, pairs, ref_of, where, URIRef(base))
            plain += [(ref, str(p), o) for p, o in pairs if str(p).startswith(str(PRED))]
            if ref.kind is NodeKind.USER:
                user_props = props
            else:
                labels = [str(o)[len(str(BMAM)):] for p, o in pairs
                          if p == RDF.type and str(o).startswith(str(BMAM))]
                nodes[ref] = NodeRecord(ref=ref, labels=_other_labels(ref, labels, props, where), props=props)
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
    # a plain statement without its reified triple (added by hand: "Portland p:near X") is not imported: counted
    recorded = {(t.subject, str(PRED) + predicate_local(t.predicate), t.object) for t in triples}

    def object_of(o: Any) -> NodeRef | None:
        try:
            return ref_of(o, "")
        except BadInput:
            return None

    ignored += sum(1 for ref, p, o in plain if (ref, p, object_of(o)) not in recorded)
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


def _node_body(ref: NodeRef, pairs: list[tuple[Any, Any]], ref_of: Any, where: str, user: URIRef,
               ) -> tuple[dict[str, Any], list[RelRecord], int]:
    props: dict[str, Any] = {}
    rels: list[RelRecord] = []
    ignored = 0
    owner = ref.kind.value
    for p, o in pairs:
        if p == RDF.type or (p == SAME_AS and o == user and is_user_entity(ref)):
            continue  # the type is the node's kind and labels; the user's own entity's link to the user is derived
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


def _other_labels(ref: NodeRef, labels: list[str], props: dict[str, Any], where: str) -> list[str]:
    """The node's labels but its kind's (the rdf:type its IRI says it has); the properties its IRI holds
    (an entity's kind and name, a session's id, an episode's session and turn) where the file leaves them
    out. Which labels and properties a node may have is check_plan's to decide."""
    kind = ref.kind.value
    if kind not in labels:
        raise BadInput(f"{where}: a {kind} node must have rdf:type bmam:{kind}")
    if ref.kind is NodeKind.ENTITY:
        props.setdefault("kind", ref.parts[0])
        props.setdefault("name", ref.parts[1])
    if ref.kind is NodeKind.SESSION:
        props.setdefault("session_id", ref.parts[0])
    if ref.kind is NodeKind.EPISODE:
        props.setdefault("session_id", ref.parts[0])
        props.setdefault("turn", int(ref.parts[1]))
    return sorted(label for label in labels if label != kind)


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
