"""Turns rows read from Neo4j into domain objects (the one place that knows property names)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from neo4j.time import DateTime as Neo4jDateTime

from graph.model import (
    ClassifierLevel,
    Entity,
    Memory,
    MemoryType,
    PresetKind,
    Provenance,
    Tier,
    Triple,
    WeightParts,
)


def to_datetime(value: Any) -> datetime | None:
    """Neo4j DateTime, or its ISO string (hot statements return toString(dt): hydrating a Neo4j DateTime
    in the driver costs ~0.2 ms), or None, to an aware Python datetime (UTC when it carries no zone)."""
    if value is None:
        return None
    if isinstance(value, str):
        # toString of a DateTime in a named zone appends the zone id ("...Z[UTC]"): the offset says it all
        value = datetime.fromisoformat(value.split("[", 1)[0])
    if isinstance(value, Neo4jDateTime):
        value = value.to_native()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    raise TypeError(f"not a datetime: {value!r}")


class Floats(list[float]):
    """A list of floats as a statement parameter (an embedding) whose repr is short. The driver (neo4j 6.4)
    formats every RUN's parameters for a debug log line whether or not debug logging is on: the repr of a
    batch's embeddings (38 x 512 floats) took ~8 ms of a ~9 ms memory/remember round trip. Sent as a list."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} floats>"


def time_param(value: datetime | None) -> str | None:
    """A time as a statement parameter for Cypher's datetime(): ISO 8601 in UTC (a naive time is UTC). The
    driver's packing of a Python datetime costs ~33 us (a batch of ingest sends ~1,700 of them); datetime() on
    the text stores the same zoned DateTime (offset Z) in a few."""
    if value is None:
        return None
    return (value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()


def _required_datetime(value: Any) -> datetime:
    result = to_datetime(value)
    if result is None:
        raise ValueError("missing timestamp")
    return result


def present_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """The properties a node holds: a map projection lists removed keys as null, and a stored property is
    never null."""
    return {k: v for k, v in props.items() if v is not None}


def memory_from_row(props: dict[str, Any]) -> Memory:
    return Memory(
        id=props["id"],
        tenant=props["tenant"],
        user_id=props["user_id"],
        text=props["text"],
        type=MemoryType(props["type"]),
        tier=Tier(props["tier"]),
        weight=WeightParts(
            passive=float(props.get("passive", 0.0)),
            active=float(props.get("active", 0.0)),
            preset=float(props.get("preset", 0.0)),
            final=float(props.get("weight", 0.0)),
        ),
        preset_kind=PresetKind(props.get("preset_kind", PresetKind.DEFAULT)),
        locked=bool(props.get("locked", False)),
        created_at=_required_datetime(props["created_at"]),
        last_recalled_at=to_datetime(props.get("last_recalled_at")),
        last_mentioned_at=to_datetime(props.get("last_mentioned_at")),
        recall_count=int(props.get("recall_count", 0)),
        mention_count=int(props.get("mention_count", 0)),
        classified_by=ClassifierLevel(props.get("classified_by", ClassifierLevel.USER)),
        confidence=float(props.get("confidence", 1.0)),
        provenance=Provenance(
            session_id=props.get("session_id"),
            turn=props.get("turn"),
            device_id=props.get("device_id"),
            episode_id=props.get("episode_id"),
        ),
        valid_from=_required_datetime(props.get("valid_from") or props["created_at"]),
        valid_to=to_datetime(props.get("valid_to")),
        seq=props.get("seq"),
        remains_of=props.get("remains_of"),
        said_seq=props.get("said_seq"),
    )


def triple_from_row(row: dict[str, Any]) -> Triple:
    s, o = row["subject"], row["object"]
    return Triple(
        id=row["id"],
        subject=Entity(id=s["id"], name=s["name"], kind=s["kind"]),
        predicate=row["predicate"],
        object=Entity(id=o["id"], name=o["name"], kind=o["kind"]),
        memory_id=row["memory_id"],
        polarity=int(row["polarity"]),
        created_at=to_datetime(row.get("created_at")),
        valid_to=to_datetime(row.get("valid_to")),
    )
