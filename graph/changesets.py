"""Maintenance changesets: what a run changed, recorded so it can be undone exactly (cypher/maintenance/*).

    (:Changeset {id, seq, tenant, user_id, kind, status, created_at, finished_at, dry_run, undone,
                 undone_at, users_done, decayed, merged, purged, damped, lifted, indexes_rebuilt})
    (:ChangeEntry {changeset_id, tenant, user_id, memory_id, seq, op, reasons, before, after, applied,
                   embedding})
    (:Changeset:ChangesetCounter {id, tenant, last_seq, last_applied})   per tenant: the lock behind both

One ChangeEntry per memory a run changed, written in the same transaction as that user's changes:
- op "props": the memory was only reweighted (decay, damp, lift); `before` holds its properties.
- op "full": the memory was merged (survivor or loser) or purged; `before` holds its labels, properties,
  every relationship (type, direction, the other end: a restored memory by id, any other node by element
  id, properties) and the triples it asserted; `embedding` holds its vector.
- `after`: what the run left: whether the memory still exists, the keys it changed and their new values,
  and for a full one still there, its relationships and triples. `applied`: the tenant-wide stamp of the
  user's transaction (taken under the tenant counter's lock, so it orders runs over the same memories).
Property values go through a JSON codec that keeps Neo4j's temporal types, ints and floats apart.

Undo restores exactly what the run changed, every user of the changeset in one transaction, and refuses
(Conflict, nothing changed) when that was changed since: a later changeset not undone touched the memory,
the memory is gone or locked now, a key the run changed no longer holds the run's value, or a relationship
or triple the run added is no longer there; a memory the run deleted is re-created only while absent.
Keys, relationships and triples the run did not change are left as they are now. One exception, as decay
is path independent: a memory only decayed by the run and decayed again since (a recall, feedback) is
already where it would be without the run, so undo leaves it as it is. Changesets written before
after-images existed are refused (undo could not tell what changed since).

A run may be undone while it runs (or after it was interrupted): undo marks the changeset undone first, under
its lock, and reads the entries after; each user transaction of the run takes the same lock (guard) once its
changes are made and before it records them, so it either committed before undo (its entries are read and
undone) or finds the changeset undone (RunUndone: that user's transaction rolls back and the run stops).
Undo takes no tenant lock: a run holds its memories' locks when it asks for the tenant's, so undo asking for
memories' locks while holding the tenant's would close a cycle.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from enum import StrEnum
from typing import Any

import neo4j.time as neo4j_time

from graph.errors import Conflict
from graph.records import present_props, to_datetime
from graph.scope_token import scope_token
from graph.store import GraphStore, Row, Tx
from graph.text_key import text_key


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
class After:
    """What a run left of one memory: whether it still exists, the keys it changed (added, changed or
    removed) with the new values of those still present, and for a full entry still there, every
    relationship and triple as the run left them."""

    exists: bool
    changed: list[str] = field(default_factory=list)
    props: dict[str, Any] = field(default_factory=dict)
    rels: list[dict[str, Any]] = field(default_factory=list)
    triples: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Entry:
    """The before-image of one memory a run changed, and its after-image (None in entries written before
    after-images existed)."""

    memory_id: str
    op: str  # "props" or "full"
    reasons: list[str]
    props: dict[str, Any]
    labels: list[str] = field(default_factory=list)
    rels: list[dict[str, Any]] = field(default_factory=list)
    triples: list[dict[str, Any]] = field(default_factory=list)
    embedding: list[float] | None = None
    after: After | None = None
    applied: int | None = None


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


def after_json(after: After) -> str:
    body: dict[str, Any] = {"exists": after.exists, "changed": after.changed, "props": encode_props(after.props),
                            "rels": [{**r, "props": encode_props(r["props"])} for r in after.rels],
                            "triples": [{**t, "props": encode_props(t["props"])} for t in after.triples]}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def after_from_json(text: str) -> After:
    body = json.loads(text)
    return After(exists=bool(body["exists"]), changed=list(body["changed"]), props=decode_props(body["props"]),
                 rels=[{**r, "props": decode_props(r["props"])} for r in body["rels"]],
                 triples=[{**t, "props": decode_props(t["props"])} for t in body["triples"]])


def _same(a: Any, b: Any) -> bool:
    # Compared encoded: a decoded value and one read from Neo4j may differ in type but not in meaning.
    return bool(encode_value(a) == encode_value(b))


def after_image(entry: Entry, now: Mapping[str, Any] | None) -> After:
    """The after-image of an entry from the memory as the run leaves it (None: the run deleted it)."""
    if now is None:
        return After(exists=False)
    props = present_props(now["props"])
    changed = sorted(k for k in set(entry.props) | set(props) if not _same(entry.props.get(k), props.get(k)))
    after = After(exists=True, changed=changed, props={k: props[k] for k in changed if k in props})
    if entry.op == "full":
        after.rels = [{**r, "props": dict(r["props"])} for r in now.get("rels") or [] if r]
        after.triples = [{**t, "props": dict(t["props"])} for t in now.get("triples") or [] if t]
    return after


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
        after=after_from_json(row["after"]) if row.get("after") is not None else None,
        applied=int(row["applied"]) if row.get("applied") is not None else None,
    )


def _is_float32(values: Sequence[float]) -> bool:
    import numpy as np

    arr = np.asarray(values, dtype=np.float64)
    return bool(np.array_equal(arr.astype(np.float32).astype(np.float64), arr))


# ----- undo, planned (pure) -----------------------------------------------------------------------------


@dataclass(slots=True)
class UserUndo:
    """What undoing one user's entries writes: relationships and triples the run added to delete (element
    ids as read now), memories to re-create, relationships and triples to re-create, keys to put back."""

    delete_eids: list[str] = field(default_factory=list)
    recreate: list[Entry] = field(default_factory=list)
    rels: list[dict[str, Any]] = field(default_factory=list)
    triples: list[dict[str, Any]] = field(default_factory=list)
    keys: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)  # only decayed, decayed again since: left as it is


class UndoRefused(Conflict):
    """Undo found what the run changed changed since; `problems` names each memory and why."""

    def __init__(self, problems: Sequence[str]) -> None:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        super().__init__(shown)
        self.problems = list(problems)


def _rel_key(r: Mapping[str, Any]) -> str:
    other = f"m:{r['other_memory']}" if r.get("other_memory") else f"e:{r['other_eid']}"
    return json.dumps([r["type"], bool(r["out"]), other, encode_props(r["props"])], sort_keys=True,
                      ensure_ascii=False)


def _triple_key(t: Mapping[str, Any]) -> str:
    return json.dumps([t["s"], t["o"], encode_props(t["props"])], sort_keys=True, ensure_ascii=False)


def _minus(items: Sequence[dict[str, Any]], others: Sequence[dict[str, Any]], key: Any) -> list[dict[str, Any]]:
    """items without others, as multisets by key (two identical relationships count twice)."""
    left = Counter(key(x) for x in others)
    out: list[dict[str, Any]] = []
    for x in items:
        k = key(x)
        if left[k] > 0:
            left[k] -= 1
        else:
            out.append(x)
    return out


def _take(added: Sequence[dict[str, Any]], now: Sequence[dict[str, Any] | None],
          key: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """The element ids of the relationships (or triples) there now that match what the run added, as
    multisets by key, and the added ones no longer there as the run left them."""
    have: dict[str, list[str]] = {}
    for x in now:
        if x:
            have.setdefault(key(x), []).append(x["eid"])
    eids: list[str] = []
    missing: list[dict[str, Any]] = []
    for x in added:
        found = have.get(key(x))
        if found:
            eids.append(found.pop())
        else:
            missing.append(x)
    return eids, missing


def _rel_text(r: Mapping[str, Any]) -> str:
    other = r.get("other_memory") or "a node"
    return f"{r['type']} {'to' if r['out'] else 'from'} {other}"


def _why(current: Mapping[str, Any], after: Mapping[str, Any], run_at: datetime) -> list[str]:
    """What changed a memory since the run, as far as its own timestamps tell."""
    hints: list[str] = []
    for key, what in (("last_feedback_at", "feedback"), ("last_recalled_at", "a recall"),
                      ("last_mentioned_at", "a mention"), ("merged_at", "a merge")):
        at = to_datetime(current.get(key))
        if at is not None and at > run_at and not _same(current.get(key), after.get(key)):
            hints.append(f"{what} at {at.isoformat()}")
    if current.get("valid_to") is not None and after.get("valid_to") is None:
        hints.append("a conflict it lost")
    return hints


def plan_user_undo(run_at: datetime, entries: Sequence[Entry], current: Mapping[str, Mapping[str, Any]],
                   later: Mapping[str, Sequence[str]]) -> UserUndo:
    """What undoing one user's entries must write, given each memory as it is now (`current`: id -> row of
    maintenance/current_props, or of maintenance/capture for a full entry; absent: no such memory) and
    the later changesets, not undone, that changed each memory (`later`). Raises UndoRefused naming every
    memory that changed since the run."""
    plan = UserUndo()
    problems: list[str] = []
    rels: dict[str, dict[str, Any]] = {}
    triples: dict[str, dict[str, Any]] = {}

    def restore_rels(memory_id: str, items: Sequence[Mapping[str, Any]]) -> None:
        for r in items:
            rels.setdefault(r["eid"], {"memory_id": memory_id, "type": r["type"], "out": bool(r["out"]),
                                       "other_memory": r.get("other_memory"), "other_eid": r["other_eid"],
                                       "props": r["props"]})

    def restore_triples(items: Sequence[Mapping[str, Any]]) -> None:
        for t in items:
            triples.setdefault(t["eid"], {"s": t["s"], "o": t["o"], "props": t["props"]})

    for e in entries:
        after, now, mid = e.after, current.get(e.memory_id), e.memory_id
        assert after is not None  # changesets without after-images are refused before
        if mid in later:
            problems.append(f"memory {mid} was changed again by changeset {', '.join(later[mid])}, not undone: "
                            f"undo that first")
            continue
        if not after.exists:  # merged away or purged by the run
            if now is not None:
                problems.append(f"memory {mid}, which the run removed, exists again")
                continue
            plan.recreate.append(e)
            restore_rels(mid, e.rels)
            restore_triples(e.triples)
            continue
        if now is None:
            problems.append(f"memory {mid} was deleted since (forgotten, evicted or purged); undo never brings "
                            f"back a deleted memory")
            continue
        if now.get("locked"):
            problems.append(f"memory {mid} was locked by the user since; the system never changes a locked memory")
            continue
        props = present_props(now["props"])
        if e.reasons == ["decay"]:
            # Decay is path independent: decayed again since (a recall, feedback), the memory is where it
            # would be without the run, and putting back its older parts would undo that later change.
            was, is_ = to_datetime(after.props.get("decayed_at")), to_datetime(props.get("decayed_at"))
            if was is not None and is_ is not None and is_ > was:
                plan.superseded.append(mid)
                continue
        differing = [k for k in after.changed if not _same(props.get(k), after.props.get(k))]
        if differing:
            hints = _why(props, after.props, run_at)
            problems.append(f"memory {mid} was changed since ({', '.join(differing)}"
                            f"{': by ' + ', '.join(hints) if hints else ''})")
            continue
        if e.op == "full":
            rel_eids, lost_rels = _take(_minus(after.rels, e.rels, _rel_key), now.get("rels") or [], _rel_key)
            triple_eids, lost_triples = _take(_minus(after.triples, e.triples, _triple_key),
                                              now.get("triples") or [], _triple_key)
            if lost_rels or lost_triples:
                lost = [_rel_text(r) for r in lost_rels]
                lost += [f"triple {t['props'].get('predicate')}" for t in lost_triples]
                problems.append(f"memory {mid}: what the run gave it was changed or removed since "
                                f"({', '.join(lost[:3])})")
                continue
            plan.delete_eids += rel_eids + triple_eids
            restore_rels(mid, _minus(e.rels, after.rels, _rel_key))
            restore_triples(_minus(e.triples, after.triples, _triple_key))
        plan.keys.append({"id": mid, "set": {k: e.props[k] for k in after.changed if k in e.props},
                          "remove": [k for k in after.changed if k not in e.props]})
    if problems:
        raise UndoRefused(problems)
    plan.delete_eids = sorted(set(plan.delete_eids))
    plan.rels = list(rels.values())
    plan.triples = list(triples.values())
    return plan


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
        """Open a changeset; its seq is unique and increasing in the tenant (taken under the tenant's lock)."""

        def work(tx: Tx) -> Changeset:
            tx.run("maintenance/tenant_lock", _counter(tenant))
            rows = tx.run("maintenance/changeset_create", {
                **_counter(tenant), "id": changeset_id, "user_id": user_id, "kind": kind.value, "now": now})
            return _changeset(rows[0]["changeset"])

        return self._store.write_tx(work)

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
        return [_changeset(r["changeset"], r["users"]) for r in rows]

    # ----- entries ----------------------------------------------------------------------------------

    @staticmethod
    def record_after(tx: Tx, *, tenant: str, user_id: str, entries: Sequence[Entry]) -> None:
        """Give each entry its after-image: the memory as the run's transaction leaves it (call last)."""
        scope = {"tenant": tenant, "user_id": user_id}
        props_ids = [e.memory_id for e in entries if e.op != "full"]
        full_ids = [e.memory_id for e in entries if e.op == "full"]
        now: dict[str, Row] = {}
        if props_ids:
            now.update((r["id"], r) for r in tx.run("maintenance/current_props", {**scope, "ids": props_ids}))
        if full_ids:
            now.update((r["id"], r) for r in tx.run("maintenance/capture", {**scope, "ids": full_ids}))
        for e in entries:
            e.after = after_image(e, now.get(e.memory_id))

    @staticmethod
    def guard(tx: Tx, *, changeset_id: str, tenant: str) -> None:
        """Under the changeset's lock (held to the end of the run's user transaction): RunUndone when it was
        undone meanwhile. Called by each user transaction of a run after its changes, before it records them."""
        tx.run("maintenance/changeset_lock", {"tenant": tenant, "id": changeset_id})
        if tx.run("maintenance/changeset_is_undone", {"tenant": tenant, "id": changeset_id})[0]["undone"]:
            raise RunUndone(changeset_id)

    @staticmethod
    def write_entries(tx: Tx, *, changeset_id: str, tenant: str, user_id: str, entries: Sequence[Entry],
                      now: datetime) -> None:
        if not entries:
            return
        # The stamp is taken last, under the tenant's lock: this transaction already holds its memories'
        # locks, so a later run over them stamps after this one commits.
        tx.run("maintenance/tenant_lock", _counter(tenant))
        applied = tx.run("maintenance/applied_next", _counter(tenant))[0]["applied"]
        payload = [{"memory_id": e.memory_id, "seq": i, "op": e.op, "reasons": e.reasons,
                    "before": entry_json(e), "after": after_json(e.after) if e.after is not None else None,
                    "embedding": e.embedding} for i, e in enumerate(entries)]
        for start in range(0, len(payload), 2000):
            tx.run("maintenance/entries_write", {"changeset_id": changeset_id, "tenant": tenant, "user_id": user_id,
                                                 "entries": payload[start:start + 2000], "applied": applied,
                                                 "now": now})

    # ----- undo -------------------------------------------------------------------------------------

    def undo(self, changeset: Changeset, now: datetime) -> Changeset:
        """Undo a changeset, every user in one transaction: all of it, or (UndoRefused, or Conflict when it
        is undone already) nothing. A run still running stops at its next user (RunUndone there)."""
        tenant = changeset.tenant

        def work(tx: Tx) -> Changeset:
            # First: marks it undone and holds its lock, so a second undo waits, then finds it undone.
            rows = tx.run("maintenance/changeset_undone", {"tenant": tenant, "id": changeset.id, "now": now})
            if not rows:
                raise Conflict(f"changeset {changeset.id} was already undone")
            # Then the entries: a running run's users have recorded theirs (all of them are read here) or will
            # find the changeset undone (guard, under the lock this holds now), none in between.
            users = tx.run("maintenance/changeset_get", {"tenant": tenant, "id": changeset.id,
                                                         "user_id": None})[0]["users"]
            per_user = {u: [entry_from_row(r) for r in tx.run("maintenance/entries_for_user", {
                "tenant": tenant, "user_id": u, "changeset_id": changeset.id})] for u in users}
            if any(e.after is None for entries in per_user.values() for e in entries):
                raise Conflict(f"changeset {changeset.id} was recorded before bmam kept after-images of what a "
                               f"run changed, so undo cannot tell what changed since; it cannot be undone")
            # memory/forget deleted what undo would need of a run of that user alone: refused, as for any memory
            # deleted since. A tenant-wide run (user_id null) is left undoable for the other users: forget drops
            # that user's entries of it, as forgetUser does (a mark from before that is ignored the same way).
            forgotten = list(rows[0]["changeset"].get("forgotten") or [])
            if forgotten and rows[0]["changeset"].get("user_id") is not None:
                raise UndoRefused([f"changeset {changeset.id} cannot be undone, nothing was changed: memory "
                                   f"{', '.join(forgotten)} was forgotten since, with what the run kept of it "
                                   f"(undo never brings back a forgotten memory)"])
            problems: list[str] = []
            plans: list[tuple[str, UserUndo]] = []
            for user_id, entries in sorted(per_user.items()):
                try:
                    plans.append((user_id, self._plan_user(tx, changeset, user_id, entries)))
                except UndoRefused as refused:
                    problems += refused.problems
            if problems:
                raise UndoRefused([f"changeset {changeset.id} cannot be undone, nothing was changed: {problems[0]}",
                                   *problems[1:]])
            for user_id, plan in plans:
                self._apply_user(tx, tenant, user_id, plan)
            return _changeset(rows[0]["changeset"])

        return self._store.write_tx(work)

    @staticmethod
    def _plan_user(tx: Tx, changeset: Changeset, user_id: str, entries: Sequence[Entry]) -> UserUndo:
        scope = {"tenant": changeset.tenant, "user_id": user_id}
        ids = [e.memory_id for e in entries]
        # Locked before they are read: what is compared below is what the writes then change.
        tx.run("weights/lock", {**scope, "ids": ids})
        stamps = [e.applied for e in entries if e.applied is not None]
        later: dict[str, list[str]] = {}
        if stamps:
            for r in tx.run("maintenance/entries_later", {**scope, "memory_ids": ids, "changeset_id": changeset.id,
                                                          "applied": min(stamps)}):
                for mid in r["memory_ids"]:
                    later.setdefault(mid, []).append(f"{r['changeset_id']} ({r['kind']})")
        current: dict[str, Row] = {r["id"]: r for r in tx.run("maintenance/current_props", {**scope, "ids": ids})}
        full_ids = [e.memory_id for e in entries if e.op == "full" and e.memory_id in current]
        if full_ids:
            current.update((r["id"], r) for r in tx.run("maintenance/capture", {**scope, "ids": full_ids}))
        return plan_user_undo(changeset.created_at, entries, current, later)

    @staticmethod
    def _apply_user(tx: Tx, tenant: str, user_id: str, plan: UserUndo) -> None:
        scope = {"tenant": tenant, "user_id": user_id}
        if plan.delete_eids:
            deleted = tx.run("maintenance/delete_rels", {**scope, "eids": plan.delete_eids})[0]["deleted"]
            if deleted != len(plan.delete_eids):  # the memories are locked, so this is not expected
                raise Conflict(f"relationships of user {user_id}'s memories changed during the undo; try again")
        if plan.recreate:
            nodes = [{"id": e.memory_id, "props": e.props, "labels": e.labels, "embedding": e.embedding,
                      "text_key": text_key(str(e.props.get("text") or "")),
                      "float32": e.embedding is not None and _is_float32(e.embedding)} for e in plan.recreate]
            created = tx.run("maintenance/restore_nodes", {**scope, "nodes": nodes,
                                                           "scope_token": scope_token(tenant, user_id)})[0]["created"]
            if created != len(nodes):  # re-created by someone else after undo looked (it cannot be locked)
                raise Conflict(f"a memory of user {user_id} the run removed was created again during the undo")
        if plan.rels:
            tx.run("maintenance/restore_rels", {**scope, "rels": plan.rels})
        if plan.triples:
            tx.run("maintenance/restore_triples", {**scope, "triples": plan.triples})
        if plan.keys:
            tx.run("maintenance/restore_keys", {**scope, "nodes": plan.keys})


class RunUndone(Exception):
    """The run's changeset was undone while it ran: the user being recorded is rolled back, the run stops."""

    def __init__(self, changeset_id: str) -> None:
        super().__init__(f"changeset {changeset_id} was undone while it ran")
        self.changeset_id = changeset_id


def _counter(tenant: str) -> dict[str, str]:
    """The tenant's changeset counter (maintenance/tenant_lock): its id cannot be a changeset's (cs_ + hex)."""
    return {"tenant": tenant, "counter_id": f"counter:{tenant}"}
