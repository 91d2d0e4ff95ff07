"""Maintenance changesets: what a run changed, recorded so it can be undone exactly (cypher/maintenance/*).

    (:Changeset {id, seq, tenant, user_id, kind, status, created_at, finished_at, dry_run, undone,
                 undone_at, users_done, decayed, merged, purged, damped, lifted, indexes_rebuilt})
    (:ChangeEntry {changeset_id, tenant, user_id, memory_id, seq, op, reasons, before, embedding})

One ChangeEntry per memory a run changed, written in the same transaction as that user's changes:
- op "props": the memory was only reweighted (decay, damp, lift); `before` holds its properties.
- op "full": the memory was merged (survivor or loser) or purged; `before` holds its labels, properties,
  every relationship (type, direction, the other end: a restored memory by id, any other node by element
  id, properties) and the triples it asserted; `embedding` holds its vector.
Property values go through a JSON codec that keeps Neo4j's temporal types, ints and floats apart.
Undo restores each user's entries in one transaction: cut the relationships of the "full" memories,
re-create / reset the nodes, then re-create the recorded relationships and triples.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from enum import StrEnum
from typing import Any

import neo4j.time as neo4j_time

from graph.records import to_datetime
from graph.scope_token import scope_token
from graph.store import GraphStore, Tx


class MaintenanceKind(StrEnum):
    """DECAY: bring every weight up to now. REBALANCE (weekly): decay, damp, lift. FULL (monthly): decay,
    merge near-duplicates, purge weight < 0.1, verify and rebuild indexes. CHECK (daily): read-only."""

    DECAY = "DECAY"
    REBALANCE = "REBALANCE"
    FULL = "FULL"
    CHECK = "CHECK"


class ChangesetStatus(StrEnum):
    RUNNING = "RUNNING"  # still running, or interrupted: its finished users' entries are in place
    COMPLETE = "COMPLETE"


@dataclass(frozen=True, slots=True)
class MergeRecord:
    survivor_id: str
    merged_ids: list[str]


@dataclass(frozen=True, slots=True)
class Changeset:
    id: str
    tenant: str
    kind: MaintenanceKind
    created_at: datetime
    status: ChangesetStatus
    dry_run: bool = False
    undone: bool = False
    user_id: str | None = None
    seq: int = 0
    finished_at: datetime | None = None
    undone_at: datetime | None = None
    users_done: int = 0
    decayed: int = 0
    merged: list[MergeRecord] = field(default_factory=list)
    purged: list[str] = field(default_factory=list)
    damped: list[str] = field(default_factory=list)
    lifted: list[str] = field(default_factory=list)
    indexes_rebuilt: list[str] = field(default_factory=list)
    users: list[str] = field(default_factory=list)

    @property
    def reweighted(self) -> int:
        return self.decayed + len(self.damped) + len(self.lifted)


@dataclass(slots=True)
class Entry:
    """The before-image of one memory a run changed."""

    memory_id: str
    op: str  # "props" or "full"
    reasons: list[str]
    props: dict[str, Any]
    labels: list[str] = field(default_factory=list)
    rels: list[dict[str, Any]] = field(default_factory=list)
    triples: list[dict[str, Any]] = field(default_factory=list)
    embedding: list[float] | None = None


# ----- the JSON codec of property values -------------------------------------------------------------


def _offset_seconds(value: Any) -> int | None:
    tz = getattr(value, "tzinfo", None)
    if tz is None:
        return None
    off = value.utcoffset()
    return int(off.total_seconds()) if off is not None else None


def encode_value(value: Any) -> Any:
    """A Neo4j property value as JSON-safe data (temporal values tagged, lists element-wise)."""
    if isinstance(value, neo4j_time.DateTime):
        zone = getattr(value.tzinfo, "zone", None)
        naive = value.replace(tzinfo=None).iso_format()
        if value.tzinfo is None:
            return {"$t": "localdatetime", "v": naive}
        if zone and zone != "UTC":
            return {"$t": "datetime", "v": naive, "zone": zone}
        return {"$t": "datetime", "v": naive, "off": _offset_seconds(value)}
    if isinstance(value, datetime):
        return encode_value(neo4j_time.DateTime.from_native(value))
    if isinstance(value, neo4j_time.Date):
        return {"$t": "date", "v": value.iso_format()}
    if isinstance(value, date):
        return {"$t": "date", "v": value.isoformat()}
    if isinstance(value, neo4j_time.Duration):
        return {"$t": "duration", "v": [value.months, value.days, value.seconds, value.nanoseconds]}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$t": "float", "v": repr(value)}
    if isinstance(value, list | tuple):
        return [encode_value(v) for v in value]
    return value


def decode_value(value: Any) -> Any:
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict) and "$t" in value:
        tag = value["$t"]
        if tag == "datetime":
            naive = neo4j_time.DateTime.from_iso_format(value["v"])
            if value.get("zone"):
                import pytz  # the driver's own zone type

                return pytz.timezone(value["zone"]).localize(naive)
            return naive.replace(tzinfo=timezone(timedelta(seconds=int(value.get("off") or 0))))
        if tag == "localdatetime":
            return neo4j_time.DateTime.from_iso_format(value["v"])
        if tag == "date":
            return neo4j_time.Date.from_iso_format(value["v"])
        if tag == "duration":
            months, days, seconds, nanos = value["v"]
            return neo4j_time.Duration(months=months, days=days, seconds=seconds, nanoseconds=nanos)
        if tag == "float":
            return float(value["v"])
    return value


def encode_props(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: encode_value(v) for k, v in props.items() if v is not None}


def decode_props(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: decode_value(v) for k, v in props.items()}


def entry_json(entry: Entry) -> str:
    body: dict[str, Any] = {"props": encode_props(entry.props)}
    if entry.op == "full":
        body["labels"] = entry.labels
        body["rels"] = [{**r, "props": encode_props(r["props"])} for r in entry.rels]
        body["triples"] = [{**t, "props": encode_props(t["props"])} for t in entry.triples]
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def entry_from_row(row: Mapping[str, Any]) -> Entry:
    body = json.loads(row["before"])
    return Entry(
        memory_id=row["memory_id"],
        op=row["op"],
        reasons=list(row.get("reasons") or []),
        props=decode_props(body["props"]),
        labels=list(body.get("labels", [])),
        rels=[{**r, "props": decode_props(r["props"])} for r in body.get("rels", [])],
        triples=[{**t, "props": decode_props(t["props"])} for t in body.get("triples", [])],
        embedding=[float(x) for x in row["embedding"]] if row.get("embedding") is not None else None,
    )


def _is_float32(values: Sequence[float]) -> bool:
    import numpy as np

    arr = np.asarray(values, dtype=np.float64)
    return bool(np.array_equal(arr.astype(np.float32).astype(np.float64), arr))


# ----- rows ----------------------------------------------------------------------------------------------


def _changeset(row: Mapping[str, Any], users: Sequence[str] = ()) -> Changeset:
    c = row
    created = to_datetime(c["created_at"])
    assert created is not None
    merged = [MergeRecord(survivor_id=m["survivor"], merged_ids=list(m["merged"]))
              for m in (json.loads(x) for x in c.get("merged") or [])]
    return Changeset(
        id=c["id"], tenant=c["tenant"], kind=MaintenanceKind(c["kind"]), created_at=created,
        status=ChangesetStatus(c["status"]), dry_run=bool(c.get("dry_run", False)),
        undone=bool(c.get("undone", False)), user_id=c.get("user_id"), seq=int(c.get("seq") or 0),
        finished_at=to_datetime(c.get("finished_at")), undone_at=to_datetime(c.get("undone_at")),
        users_done=int(c.get("users_done") or 0), decayed=int(c.get("decayed") or 0), merged=merged,
        purged=list(c.get("purged") or []), damped=list(c.get("damped") or []),
        lifted=list(c.get("lifted") or []), indexes_rebuilt=list(c.get("indexes_rebuilt") or []),
        users=sorted(u for u in users if u is not None),
    )


def merged_json(record: MergeRecord) -> str:
    return json.dumps({"survivor": record.survivor_id, "merged": record.merged_ids}, separators=(",", ":"))


class ChangesetRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    # ----- the changeset node -------------------------------------------------------------------

    def create(self, *, changeset_id: str, tenant: str, user_id: str | None, kind: MaintenanceKind,
               now: datetime) -> Changeset:
        rows = self._store.write("maintenance/changeset_create", {
            "id": changeset_id, "tenant": tenant, "user_id": user_id, "kind": kind.value, "now": now})
        return _changeset(rows[0]["changeset"])

    def progress(self, tx: Tx, *, changeset_id: str, tenant: str, run_user_id: str | None, decayed: int,
                 merged: Sequence[MergeRecord], purged: Sequence[str], damped: Sequence[str],
                 lifted: Sequence[str]) -> None:
        tx.run("maintenance/changeset_progress", {
            "id": changeset_id, "tenant": tenant, "run_user_id": run_user_id, "decayed": decayed,
            "merged": [merged_json(m) for m in merged], "purged": list(purged), "damped": list(damped),
            "lifted": list(lifted)})

    def finish(self, *, changeset_id: str, tenant: str, run_user_id: str | None, indexes_rebuilt: Sequence[str],
               now: datetime) -> Changeset | None:
        rows = self._store.write("maintenance/changeset_finish", {
            "id": changeset_id, "tenant": tenant, "run_user_id": run_user_id,
            "indexes_rebuilt": list(indexes_rebuilt), "now": now})
        return _changeset(rows[0]["changeset"]) if rows else None

    def get(self, tenant: str, changeset_id: str, *, user_id: str | None = None) -> Changeset | None:
        rows = self._store.read("maintenance/changeset_get", {"tenant": tenant, "id": changeset_id,
                                                              "user_id": user_id})
        return _changeset(rows[0]["changeset"], rows[0]["users"]) if rows else None

    def recent(self, tenant: str, *, user_id: str | None, limit: int) -> list[Changeset]:
        rows = self._store.read("maintenance/changeset_list", {"tenant": tenant, "user_id": user_id,
                                                               "limit": limit})
        return [_changeset(r["changeset"]) for r in rows]

    def mark_undone(self, tenant: str, changeset_id: str, now: datetime) -> Changeset | None:
        rows = self._store.write("maintenance/changeset_undone", {"tenant": tenant, "id": changeset_id, "now": now})
        return _changeset(rows[0]["changeset"]) if rows else None

    # ----- entries ----------------------------------------------------------------------------------

    @staticmethod
    def write_entries(tx: Tx, *, changeset_id: str, tenant: str, user_id: str, entries: Sequence[Entry],
                      now: datetime) -> None:
        if not entries:
            return
        payload = [{"memory_id": e.memory_id, "seq": i, "op": e.op, "reasons": e.reasons,
                    "before": entry_json(e), "embedding": e.embedding} for i, e in enumerate(entries)]
        for start in range(0, len(payload), 2000):
            tx.run("maintenance/entries_write", {"changeset_id": changeset_id, "tenant": tenant, "user_id": user_id,
                                                 "entries": payload[start:start + 2000], "now": now})

    def entries(self, tenant: str, user_id: str, changeset_id: str) -> list[Entry]:
        rows = self._store.read("maintenance/entries_for_user", {"tenant": tenant, "user_id": user_id,
                                                                 "changeset_id": changeset_id})
        return [entry_from_row(r) for r in rows]

    def later_changesets(self, tenant: str, user_id: str, changeset: Changeset, memory_ids: Sequence[str]) -> list[str]:
        rows = self._store.read("maintenance/entries_later", {
            "tenant": tenant, "user_id": user_id, "memory_ids": list(memory_ids), "changeset_id": changeset.id,
            "seq": changeset.seq})
        return [r["changeset_id"] for r in rows]

    # ----- undo -------------------------------------------------------------------------------------

    def restore(self, tenant: str, user_id: str, entries: Sequence[Entry]) -> int:
        """Put one user's memories back to their before-images, in one transaction."""
        scope = {"tenant": tenant, "user_id": user_id}
        full = [e for e in entries if e.op == "full"]
        props_only = [e for e in entries if e.op != "full"]
        full_ids = [e.memory_id for e in full]
        nodes = [{"id": e.memory_id, "props": e.props, "labels": e.labels, "embedding": e.embedding,
                  "float32": e.embedding is not None and _is_float32(e.embedding)} for e in full]
        rels: dict[str, dict[str, Any]] = {}
        triples: dict[str, dict[str, Any]] = {}
        for e in full:
            for r in e.rels:
                rels.setdefault(r["eid"], {"memory_id": e.memory_id, "type": r["type"], "out": bool(r["out"]),
                                           "other_memory": r.get("other_memory"), "other_eid": r["other_eid"],
                                           "props": r["props"]})
            for t in e.triples:
                triples.setdefault(t["eid"], {"s": t["s"], "o": t["o"], "props": t["props"]})

        def work(tx: Tx) -> int:
            tx.run("weights/lock", {**scope, "ids": [e.memory_id for e in entries]})
            if full_ids:
                tx.run("maintenance/restore_detach", {**scope, "ids": full_ids})
                tx.run("maintenance/restore_nodes", {**scope, "nodes": nodes,
                                                     "scope_token": scope_token(tenant, user_id)})
                if rels:
                    tx.run("maintenance/restore_rels", {**scope, "rels": list(rels.values())})
                if triples:
                    tx.run("maintenance/restore_triples", {**scope, "triples": list(triples.values())})
            if props_only:
                tx.run("maintenance/restore_props", {
                    **scope, "nodes": [{"id": e.memory_id, "props": e.props} for e in props_only]})
            return len(entries)

        return self._store.write_tx(work)
