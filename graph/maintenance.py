"""Maintenance in the store (cypher/maintenance/*): the reads a plan needs, the per-user transaction that
applies a plan and records its changeset entries, the quick-check queries and the index rebuild.

A user's maintenance is one write transaction: lock the user's unlocked memories, capture the
before-images of those about to be merged or purged, decay, merge, purge, damp, lift, read the
after-images, write the entries and the changeset progress. A dry run runs the very same transaction and
rolls it back, so it reports exactly what the real run would do and changes nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from graph.changesets import ChangesetRepository, Entry, MergeRecord
from graph.cypher_library import runnable, statement, statements
from graph.migrations import apply_schema, index_states, missing_migrations, schema_names
from graph.model import Scope, scope_params
from graph.records import present_props, to_datetime
from graph.store import GraphStore, Row, Tx
from graph.weights import decay

# Slack for "weight above the damping line" (ingest/weights.py DAMP_EPSILON).
DAMP_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class PlanMemory:
    """A live, unlocked memory as maintenance planning sees it."""

    id: str
    text: str
    type: str
    tier: str
    preset_kind: str
    passive: float
    active: float
    preset: float
    weight: float
    decayed_at: datetime
    created_at: datetime
    mention_count: int
    in_open_conflict: bool
    durable: bool = False  # it states a live triple with one of the durable predicates asked for


@dataclass(frozen=True, slots=True)
class PlanFact:
    memory_id: str
    subject: str
    predicate: str
    object: str
    polarity: int


@dataclass(frozen=True, slots=True)
class UserPlan:
    """What to do for one user; rebalance and decay need no plan (they are computed in Cypher)."""

    merges: list[tuple[str, list[str]]] = field(default_factory=list)  # (survivor, losers)
    purge: list[str] = field(default_factory=list)


@dataclass(slots=True)
class UserResult:
    """What one user's transaction changed."""

    user_id: str
    decayed: int = 0
    merged: list[MergeRecord] = field(default_factory=list)
    purged: list[str] = field(default_factory=list)
    damped: list[str] = field(default_factory=list)
    lifted: list[str] = field(default_factory=list)
    entries: int = 0


class DryRunRollback(Exception):
    """Raised at the end of a dry-run transaction so the driver rolls it back; carries the result."""

    def __init__(self, result: UserResult) -> None:
        super().__init__("dry run")
        self.result = result


@dataclass(frozen=True, slots=True)
class IndexReport:
    states: dict[str, str]
    expected: list[str]
    missing: list[str]
    not_online: list[str]
    pending_migrations: list[str]

    @property
    def healthy(self) -> bool:
        return not self.missing and not self.not_online and not self.pending_migrations


class RawTx(Tx):
    """Rows as the driver decodes them (maps, lists, scalars), without Record.data()'s walk over every list
    element: maintenance reads thousands of 512-float embeddings, for which that walk costs more than the
    rest of the read. Only for statements that return no node, relationship or path values (all of
    cypher/maintenance, cypher/weights and cypher/meta)."""

    def run(self, name: str, params: dict[str, Any] | None = None, **splices: object) -> list[Row]:
        text = runnable(name, **splices)
        started = time.perf_counter()
        result = self._tx.run(text, params or {})
        keys = result.keys()
        rows = [dict(zip(keys, record.values(), strict=True)) for record in result]
        self._timer.add(name, time.perf_counter() - started)
        return rows


class MaintenanceStore(GraphStore):
    """The connection maintenance runs on: the same database, its own (long) transaction timeout, raw rows."""

    def _tx(self, tx: ManagedTransaction) -> Tx:
        return RawTx(tx, self.timer)


_SCHEMA_NAME = re.compile(r"CREATE\s+(?:(?:FULLTEXT|VECTOR|RANGE|TEXT|POINT|LOOKUP)\s+)?(INDEX|CONSTRAINT)\s+(\w+)",
                          re.IGNORECASE)


def expected_indexes(vector_dimensions: int) -> dict[str, str]:
    """Name -> INDEX or CONSTRAINT of everything cypher/schema/ creates (a constraint has an index of its name)."""
    found: dict[str, str] = {}
    for name in schema_names():
        for text in statements(name, dimensions=vector_dimensions):
            m = _SCHEMA_NAME.search(text)
            if m:
                found[m.group(2)] = m.group(1).upper()
    return found


class MaintenanceRepository:
    def __init__(self, store: GraphStore, changesets: ChangesetRepository, vector_dimensions: int) -> None:
        self._store = store
        self._changesets = changesets
        self._dimensions = vector_dimensions

    # ----- whom to maintain ---------------------------------------------------------------------

    def users(self, tenant: str | None, user_id: str | None = None) -> list[Scope]:
        rows = self._store.read("maintenance/users", {"tenant": tenant, "user_id": user_id})
        return [Scope(tenant=r["tenant"], user_id=r["user_id"]) for r in rows]

    def tenants(self, tenant: str | None = None) -> list[str]:
        return [r["tenant"] for r in self._store.read("maintenance/tenants", {"tenant": tenant})]

    # ----- planning reads -------------------------------------------------------------------------

    def plan_memories(self, scope: Scope, *, page: int = 1000,
                      durable_predicates: Iterable[str] = ()) -> Iterator[tuple[list[PlanMemory], np.ndarray]]:
        """Pages of live unlocked memories with their embeddings as float32 rows (memory stays bounded), each
        marked durable when it states a live triple with one of durable_predicates."""
        after: str | None = None
        while True:
            rows = self._store.read("maintenance/plan_memories",
                                    {**scope_params(scope), "after_id": after, "limit": page,
                                     "durable_predicates": sorted(durable_predicates)})
            if not rows:
                return
            items: list[PlanMemory] = []
            vectors: list[np.ndarray] = []
            for r in rows:
                decayed_at = to_datetime(r["decayed_at"])
                created_at = to_datetime(r["created_at"])
                assert decayed_at is not None and created_at is not None
                items.append(PlanMemory(
                    id=r["id"], text=r["text"], type=r["type"], tier=r["tier"],
                    preset_kind=r["preset_kind"] or "default",
                    passive=float(r["passive"]), active=float(r["active"]), preset=float(r["preset"]),
                    weight=float(r["weight"]), decayed_at=decayed_at, created_at=created_at,
                    mention_count=int(r["mention_count"]), in_open_conflict=bool(r["in_open_conflict"]),
                    durable=bool(r["durable"])))
                emb = r["embedding"]
                vectors.append(np.asarray(emb, dtype=np.float32) if emb is not None else np.zeros(0, np.float32))
            width = max((v.shape[0] for v in vectors), default=0)
            matrix = np.zeros((len(vectors), width), dtype=np.float32)
            for i, v in enumerate(vectors):
                if v.shape[0] == width:
                    matrix[i] = v
            yield items, matrix
            after = items[-1].id
            if len(rows) < page:
                return

    def plan_facts(self, scope: Scope) -> list[PlanFact]:
        rows = self._store.read("maintenance/plan_facts", scope_params(scope))
        return [PlanFact(r["memory_id"], r["subject"], r["predicate"], r["object"], int(r["polarity"])) for r in rows]

    # ----- one user's transaction -------------------------------------------------------------------

    def apply_user(
        self,
        scope: Scope,
        *,
        decay_step: bool,
        rebalance: bool,
        plan: UserPlan,
        weight_params: Mapping[str, float],
        rebalance_params: Mapping[str, float | int],
        purge_below: float,
        changeset_id: str,
        run_user_id: str | None,
        dry_run: bool,
        now: datetime,
    ) -> UserResult:
        """Apply one user's maintenance atomically (or, for a dry run, apply it and roll it back)."""

        def work(tx: Tx) -> UserResult:
            result = UserResult(user_id=scope.user_id)
            tx.run("maintenance/lock_user", scope_params(scope))
            images: dict[str, Entry] = {}
            full_ids = sorted({mid for s, losers in plan.merges for mid in (s, *losers)} | set(plan.purge))
            if full_ids:
                for e in self._capture(tx, scope, full_ids):
                    images[e.memory_id] = e
            reweighted: dict[str, Entry] = {}

            def note(memory_id: str, before: Mapping[str, Any], reason: str) -> None:
                if memory_id in images:
                    if reason not in images[memory_id].reasons:
                        images[memory_id].reasons.append(reason)
                    return
                if memory_id in reweighted:
                    if reason not in reweighted[memory_id].reasons:
                        reweighted[memory_id].reasons.append(reason)
                    return
                reweighted[memory_id] = Entry(memory_id=memory_id, op="props", reasons=[reason],
                                              props=present_props(before))

            if decay_step:
                for d in decay(tx, scope, weight_params, now):
                    note(d.id, d.before, "decay")
                    result.decayed += 1
            for survivor, losers in plan.merges:
                merged: list[str] = []
                for loser in losers:
                    rows = tx.run("maintenance/merge", {**scope_params(scope), **weight_params, "survivor_id": survivor,
                                                        "loser_id": loser, "now": now})
                    if rows:
                        merged.append(loser)
                if merged:
                    result.merged.append(MergeRecord(survivor_id=survivor, merged_ids=merged))
                    images[survivor].reasons.append("merge:survivor")
                    for loser in merged:
                        images[loser].reasons.append(f"merge:into:{survivor}")
            if plan.purge:
                rows = tx.run("maintenance/purge",
                              {**scope_params(scope), "ids": plan.purge, "purge_below": purge_below})
                result.purged = [r["id"] for r in rows]
                for mid in result.purged:
                    images[mid].reasons.append("purge")
            if rebalance:
                params = {**scope_params(scope), **weight_params, **rebalance_params, "epsilon": DAMP_EPSILON}
                for r in tx.run("maintenance/damp", params):
                    note(r["id"], r["before"], "damp")
                    result.damped.append(r["id"])
                for r in tx.run("maintenance/lift", params):
                    note(r["id"], r["before"], "lift")
                    result.lifted.append(r["id"])
            # Images captured for a planned change that did not happen (a guard refused it) are kept only
            # when something else (decay) changed the memory; then the image's properties are its before.
            touched = {mid for rec in result.merged for mid in (rec.survivor_id, *rec.merged_ids)} | set(result.purged)
            entries = [e for mid, e in sorted(images.items()) if mid in touched or e.reasons]
            entries += [e for mid, e in sorted(reweighted.items()) if mid not in images]
            result.entries = len(entries)
            if not dry_run:
                self._changesets.guard(tx, changeset_id=changeset_id, tenant=scope.tenant)  # undone meanwhile?
                self._changesets.record_after(tx, tenant=scope.tenant, user_id=scope.user_id, entries=entries)
                self._changesets.write_entries(tx, changeset_id=changeset_id, tenant=scope.tenant,
                                               user_id=scope.user_id, entries=entries, now=now)
                self._changesets.progress(tx, changeset_id=changeset_id, tenant=scope.tenant,
                                          run_user_id=run_user_id, decayed=result.decayed, merged=result.merged,
                                          purged=result.purged, damped=result.damped, lifted=result.lifted)
                return result
            raise DryRunRollback(result)

        try:
            return self._store.write_tx(work)
        except DryRunRollback as done:
            return done.result

    @staticmethod
    def _capture(tx: Tx, scope: Scope, ids: Sequence[str]) -> list[Entry]:
        rows = tx.run("maintenance/capture", {**scope_params(scope), "ids": list(ids)})
        return [Entry(memory_id=r["id"], op="full", reasons=[], props=present_props(r["props"]),
                      labels=sorted(r["labels"]),
                      rels=[{**x, "props": dict(x["props"])} for x in r["rels"]],
                      triples=[{**t, "props": dict(t["props"])} for t in r["triples"]],
                      embedding=[float(v) for v in r["embedding"]] if r["embedding"] is not None else None)
                for r in rows]

    # ----- checks and indexes ----------------------------------------------------------------------

    def unreachable_core(self, tenant: str, user_id: str | None, *, limit: int = 100) -> list[dict[str, Any]]:
        return self._store.read("maintenance/unreachable_core", {"tenant": tenant, "user_id": user_id, "limit": limit})

    def count_core(self, tenant: str, user_id: str | None) -> int:
        return int(self._store.read("maintenance/count_core", {"tenant": tenant, "user_id": user_id})[0]["n"])

    def index_report(self) -> IndexReport:
        states = index_states(self._store)
        expected = expected_indexes(self._dimensions)
        missing = sorted(n for n in expected if n not in states)
        not_online = sorted(n for n in expected if n in states and states[n] != "ONLINE")
        return IndexReport(states=states, expected=sorted(expected), missing=missing, not_online=not_online,
                           pending_migrations=missing_migrations(self._store))

    def rebuild_indexes(self, now: datetime) -> list[str]:
        """Drop every expected index that FAILED, re-apply the schema (re-creating dropped and missing ones),
        wait until they are online and refresh outdated index statistics. Returns what was rebuilt."""
        report = self.index_report()
        expected = expected_indexes(self._dimensions)
        failed = [n for n in report.not_online if report.states.get(n) == "FAILED"]
        for name in failed:
            kind = "maintenance/drop_constraint" if expected[name] == "CONSTRAINT" else "maintenance/drop_index"
            self._store.run_schema(statement(kind, index_name=name))
        rebuilt = sorted(set(failed) | set(report.missing))
        if rebuilt or report.pending_migrations:
            apply_schema(self._store, vector_dimensions=self._dimensions, now=now)
        self._store.read("meta/await_indexes")
        self._store.read("maintenance/resample_indexes")
        return rebuilt
