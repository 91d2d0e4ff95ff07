"""The import checks (graph/rdf.py reads the file, this checks it), the one place that decides whether what
an import holds is acceptable: every property and label of every node, relationship and knowledge triple of
an ImportPlan against an allow-list of what bmam itself writes, typed, and the service's own rules (texts and
ids as the API validates them, through ValueRules), before any write; check_plan marks the plan checked
(graph/knowledge_io.py writes no other)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import neo4j.time

from graph.conflicts import ConflictKind, ConflictStatus, ConflictStrategy
from graph.errors import BadInput, BmamError, LimitExceeded
from graph.model import MAX_TURN, STORED_TYPES, ClassifierLevel, MemoryType, PresetKind, Tier
from graph.rdf_records import ImportPlan, NodeRecord
from graph.rdf_terms import UNDIRECTED, NodeKind, NodeRef, show, triple_statement_iri, user_iri

# ----- the import checks: every value against the type and the rules the service holds ----------------


@dataclass(frozen=True, slots=True)
class ValueRules:
    """How the service validates what callers send, passed in by the import use case (graph does not depend
    on bmam): `text(value, field)` is the API's text validation with its size limit (bmam.validate.text),
    `identifier(value, field)` its id validation (bmam.validate.identifier). Each raises a BmamError whose
    message starts with the field it was given. `when(value, field)`, if given, is its check of a time that says
    when something happened (bmam.validate.past_moment: not later than the server's clock plus the allowed
    skew), which every time of a file goes through."""

    text: Callable[[str, str], object]
    identifier: Callable[[str, str], object]
    when: Callable[[datetime, str], object] | None = None
    # The deployment's final weight from a memory's parts (passive, active, preset: ingest/weights.py final_weight).
    weight_of: Callable[[float, float, float], float] | None = None


class Refused(Exception):
    """Why one value is refused (its message starts with the property); check_plan adds whose it is."""


# A value check: (value, property name, rules) -> the value to store, or Refused.
Check = Callable[[Any, str, ValueRules], Any]

_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # C0 controls but tab, line feed and carriage return
_INT64_MAX = 2**63 - 1  # Neo4j's integers are 64-bit
_MAX_OFFSET = timedelta(hours=18)  # Neo4j's bound on a zone offset


def _described(value: Any) -> str:
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
        raise Refused(exc.message) from exc


def _string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise Refused(f"{name} must be a string, got {_described(value)}")
    return value


def _no_controls(value: str, name: str) -> None:
    # The C0 controls but tab, line feed and carriage return, as bmam.validate.text refuses them, for every
    # string of the file (names, predicates, reasons), not only the texts the rules check (graph cannot
    # call bmam.validate itself).
    found = _C0.search(value)
    if found:
        raise Refused(f"{name} must not contain control characters (U+{ord(found.group()):04X})")


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
        raise Refused(f"{name} must be a boolean (xsd:boolean true or false), got {_described(value)}")
    return value


def _count(value: Any, name: str, rules: ValueRules | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _INT64_MAX:
        raise Refused(f"{name} must be a count, an integer from 0 to 2^63 - 1, got {_described(value)}")
    return value


def _turn(value: Any, name: str, rules: ValueRules | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TURN:
        raise Refused(f"{name} must be an integer from 0 to {MAX_TURN}, got {_described(value)}")
    return value


def _polarity(value: Any, name: str, rules: ValueRules | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in (1, -1):
        raise Refused(f"{name} must be 1 or -1, got {_described(value)}")
    return value


def _unit(value: Any, name: str, rules: ValueRules | None = None) -> float:
    """A weight, a weight part, a confidence or a strength: a number in [0, 1], stored as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise Refused(f"{name} must be a number in [0, 1], got {_described(value)}")
    return float(value)


def _time(value: Any, name: str, rules: ValueRules | None = None) -> neo4j.time.DateTime:
    """An xsd:dateTime with an offset Neo4j holds (within +-18:00, whole minutes), in years 1 to 9999 in UTC
    (Neo4j stores the instant: 9999-12-31T23:59:59-05:00 is in year 10000)."""
    if not isinstance(value, neo4j.time.DateTime):
        raise Refused(f"{name} must be an xsd:dateTime, got {_described(value)}")
    offset = value.utcoffset()
    if offset is None:
        raise Refused(f"{name} has no time zone offset ({value.iso_format()})")
    if abs(offset) > _MAX_OFFSET or offset % timedelta(minutes=1):
        raise Refused(f"{name} has an offset Neo4j cannot hold ({value.iso_format()}): whole minutes "
                       "within -18:00..+18:00")
    try:
        native = value.to_native().astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise Refused(f"{name} is out of range ({value.iso_format()}): years 1 to 9999 in UTC") from exc
    if rules is not None and rules.when is not None:
        try:  # a memory "said" in the future would never go stale, decay or be evicted first
            rules.when(native, name)
        except BmamError as exc:
            raise Refused(exc.message) from exc
    return value


def _one_of(*values: str) -> Check:
    allowed = frozenset(values)

    def check(value: Any, name: str, rules: ValueRules) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise Refused(f"{name} must be one of {', '.join(sorted(allowed))}, got {_described(value)}")
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
        raise Refused(f"{name} must be the IRI of a {kind} (or its id), got {_described(value)}")

    return check


def _list(item: Check) -> Check:
    def check(value: Any, name: str, rules: ValueRules) -> list[Any]:
        if not isinstance(value, list):
            raise Refused(f"{name} must be a list (an rdf:JSON array), got {_described(value)}")
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
        "remains_of": _ref(NodeKind.MEMORY), "remains_checked_at": _TIME, "tier_since": _TIME,
        "merged_ids": _list(_identifier), "merged_texts": _list(_text), "merged_session_ids": _list(_identifier),
        "merged_device_ids": _list(_identifier), "merged_episode_ids": _list(_identifier),
        # the order stored and said in the source user, renumbered on import (graph/knowledge_io.py)
        "seq": _count, "said_seq": _count,
    },
    NodeKind.ENTITY: {"kind": _identifier, "name": _text, "created_at": _TIME},
    NodeKind.SESSION: {"session_id": _identifier, "started_at": _TIME, "last_at": _TIME},
    # speaker: ingest/turns.py Speaker's values (graph/ may not import ingest/)
    NodeKind.EPISODE: {"session_id": _identifier, "turn": _turn,
                       "speaker": _one_of("user", "assistant", "system", "tool"),
                       "text": _text, "at": _TIME, "device_id": _identifier},
    NodeKind.CONFLICT: {
        "kind": _one_of(*ConflictKind), "status": _one_of(*ConflictStatus), "strategy": _one_of(*ConflictStrategy),
        "reason": _note, "new_id": _ref(NodeKind.MEMORY), "old_id": _ref(NodeKind.MEMORY),
        "winner_id": _ref(NodeKind.MEMORY), "loser_id": _ref(NodeKind.MEMORY), "created_at": _TIME,
        "resolved_at": _TIME, "resolved_by": _identifier,
    },
}
# What the service reads of every node without a default (graph/records.py memory_from_row, graph/conflicts.py
# _conflict, graph/episodes.py episode_from_row): a node without it would break the user's reads. A memory's
# weight parts, preset kind and lock too: the statements that weigh, decay, damp, purge or evict read them as
# stored (a null weight part makes a null weight, a null lock or preset kind a memory no rule ever selects, and
# maintenance's planning refused such a memory with a TypeError).
NODE_REQUIRED: dict[NodeKind, tuple[str, ...]] = {
    NodeKind.USER: (),
    NodeKind.MEMORY: ("text", "type", "tier", "created_at", "passive", "active", "preset", "weight", "preset_kind",
                      "locked"),
    NodeKind.ENTITY: ("kind", "name"),
    NodeKind.SESSION: ("session_id",), NodeKind.EPISODE: ("session_id", "turn", "speaker", "text", "at"),
    NodeKind.CONFLICT: ("kind", "status", "strategy", "new_id", "old_id", "created_at"),
}
# The relationships of a user's subgraph: type -> (start kind, end kind), their properties and what they need.
REL_ENDS: dict[str, tuple[NodeKind, NodeKind]] = {
    "HAS_MEMORY": (NodeKind.USER, NodeKind.MEMORY), "HAS_SESSION": (NodeKind.USER, NodeKind.SESSION),
    "HAS_EPISODE": (NodeKind.SESSION, NodeKind.EPISODE), "NEXT": (NodeKind.EPISODE, NodeKind.EPISODE),
    "DERIVED_FROM": (NodeKind.MEMORY, NodeKind.EPISODE), "MENTIONS": (NodeKind.MEMORY, NodeKind.ENTITY),
    "ASSOCIATED": (NodeKind.MEMORY, NodeKind.MEMORY), "SUPERSEDES": (NodeKind.MEMORY, NodeKind.MEMORY),
    "REMAINS_OF": (NodeKind.MEMORY, NodeKind.MEMORY), "BETWEEN": (NodeKind.CONFLICT, NodeKind.MEMORY),
}
REL_PROPS: dict[str, dict[str, Check]] = {
    "ASSOCIATED": {"strength": _unit, "created_at": _TIME, "updated_at": _TIME, "co_recalled": _count,
                   "formed_by": _one_of("user", "stored", "terms", "recalled")},
    "SUPERSEDES": {"at": _TIME, "conflict_id": _ref(NodeKind.CONFLICT), "penalty": _unit},
    "REMAINS_OF": {"at": _TIME},
    "BETWEEN": {"role": _one_of("new", "old")},
}
REL_REQUIRED: dict[str, tuple[str, ...]] = {"ASSOCIATED": ("strength",), "BETWEEN": ("role",)}
_NO_LOOPS = frozenset({"NEXT", "ASSOCIATED", "SUPERSEDES", "REMAINS_OF"})
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
        except Refused as why:
            raise _refusal(where, why) from None


def _refusal(where: str, why: Refused) -> BadInput | LimitExceeded:
    """BadInput, or LimitExceeded when a size limit refused the value: a text over the limit is LIMIT_EXCEEDED in a
    file as in remember and ingest (it answered BAD_USER_INPUT here)."""
    kind = LimitExceeded if isinstance(why.__cause__, LimitExceeded) else BadInput
    return kind(f"{where}: {show(str(why))}", field="file")


def _check_node(node: NodeRecord, where: str, rules: ValueRules) -> None:
    kind, props = node.ref.kind, node.props
    try:
        _check_ref(node.ref, rules)
    except Refused as why:
        raise _refusal(where, why) from None
    _check_props(where, kind.value, props, NODE_PROPS[kind], NODE_REQUIRED[kind], rules)
    if kind is NodeKind.MEMORY and rules.weight_of is not None:
        # The weight is its parts' (DESIGN.md "Weights"): a file saying another (0.95 beside parts giving 0.31) was
        # ranked on until a decay recomputed it. Within rounding the file's own value stays (a round trip is exact).
        computed = rules.weight_of(props["passive"], props["active"], props["preset"])
        if abs(props["weight"] - computed) > 1e-6:
            props["weight"] = computed
    # Labels: a memory carries exactly the label of its type, the other kinds none but their own.
    wanted = [MemoryType(props["type"]).label] if kind is NodeKind.MEMORY else []
    for label in wanted:
        if label not in node.labels:
            raise BadInput(f"{where}: a {props['type']} memory must have rdf:type bmam:{label}", field="file")
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
            raise BadInput(f"{where}: {name} is {_described(props.get(name))} but the IRI says {_described(value)}",
                           field="file")
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
        except Refused as why:
            raise _refusal(where, why) from None
        _check_props(where, "knowledge triple", t.props, TRIPLE_PROPS, TRIPLE_REQUIRED, rules)
    plan.checked = True
