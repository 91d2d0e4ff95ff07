"""Conflicts between memories of one user, stored as (:Conflict)-[:BETWEEN {role}]->(:Memory) (cypher/conflict/*).

A conflict node records the pair (new, old), how it was found (kind), how it is settled (strategy), its
status (OPEN while held for review, RESOLVED once settled) and, when resolved, the winner and the loser.
Resolving it is one transaction: lock both memories, decay both to now, then conflict/resolve.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from graph.ids import derived_id
from graph.model import Memory, Scope
from graph.records import memory_from_row, to_datetime
from graph.store import GraphStore, Tx
from graph.weights import decay, lock


class ConflictKind(StrEnum):
    """Which rule found the conflict (ingest/conflict_rules.py)."""

    SINGLE_VALUED = "SINGLE_VALUED"  # same subject, single-valued predicate, another value
    POLARITY = "POLARITY"  # opposite polarity on the same (or an overlapping) object
    NEGATION = "NEGATION"  # embedding similarity >= threshold with one side negated


class ConflictStatus(StrEnum):
    OPEN = "OPEN"  # held for review
    RESOLVED = "RESOLVED"


class ConflictStrategy(StrEnum):
    """How a conflict is settled: the newer memory wins, the heavier one wins, or a person decides."""

    LATEST = "LATEST"
    STRONGER = "STRONGER"
    REVIEW = "REVIEW"


@dataclass(frozen=True, slots=True)
class Conflict:
    id: str
    kind: ConflictKind
    status: ConflictStatus
    strategy: ConflictStrategy
    reason: str
    new_memory_id: str
    old_memory_id: str
    created_at: datetime
    resolved_at: datetime | None = None
    winner_id: str | None = None
    loser_id: str | None = None
    resolved_by: str | None = None
    new_memory: Memory | None = None
    old_memory: Memory | None = None

    @property
    def memory_ids(self) -> tuple[str, str]:
        return (self.new_memory_id, self.old_memory_id)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A memory in the history of the user's knowledge, with its supersession links (validity on memory)."""

    memory: Memory
    supersedes: list[str]
    superseded_by: list[str]


@dataclass(frozen=True, slots=True)
class CandidateFact:
    memory_id: str
    subject: str
    predicate: str
    object: str
    polarity: int


@dataclass(frozen=True, slots=True)
class SimilarMemory:
    memory_id: str
    text: str
    cosine: float


@dataclass(frozen=True, slots=True)
class ScreenItem:
    """A stored memory to screen for conflicts: its subjects and predicates (no fact is read when either is
    empty) and its embedding (no similar memory is read when empty)."""

    memory_id: str
    subjects: Sequence[str]
    predicates: Sequence[str]
    embedding: Sequence[float]


@dataclass(frozen=True, slots=True)
class Screening:
    """What conflict detection reads for one stored memory: whether it exists and is live, its text, the
    candidate facts (conflict/candidate_facts_many) and the similar memories (conflict/similar_many)."""

    memory_id: str
    exists: bool
    live: bool
    text: str
    facts: list[CandidateFact]
    similar: list[SimilarMemory]


FACT_LIMIT = 500
SIMILAR_LIMIT = 20


def conflict_id(scope: Scope, new_id: str, old_id: str) -> str:
    return derived_id("c", scope, new_id, old_id)


def _scope(scope: Scope) -> dict[str, str]:
    return {"tenant": scope.tenant, "user_id": scope.user_id}


def _conflict(row: Mapping[str, Any]) -> Conflict:
    c = row["conflict"]
    created = to_datetime(c["created_at"])
    assert created is not None
    return Conflict(
        id=c["id"],
        kind=ConflictKind(c["kind"]),
        status=ConflictStatus(c["status"]),
        strategy=ConflictStrategy(c["strategy"]),
        reason=c.get("reason") or "",
        new_memory_id=c["new_id"],
        old_memory_id=c["old_id"],
        created_at=created,
        resolved_at=to_datetime(c.get("resolved_at")),
        winner_id=c.get("winner_id"),
        loser_id=c.get("loser_id"),
        resolved_by=c.get("resolved_by"),
        new_memory=memory_from_row(row["new_memory"]) if row.get("new_memory") else None,
        old_memory=memory_from_row(row["old_memory"]) if row.get("old_memory") else None,
    )


class ConflictRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def embedding(self, scope: Scope, memory_id: str) -> list[float]:
        rows = self._store.read("conflict/embedding", {**_scope(scope), "id": memory_id})
        return [float(x) for x in rows[0]["embedding"]] if rows and rows[0]["embedding"] is not None else []

    def screen(self, scope: Scope, items: Sequence[ScreenItem], *, threshold: float, fact_limit: int = FACT_LIMIT,
               similar_limit: int = SIMILAR_LIMIT) -> dict[str, Screening]:
        """The reads of conflict detection for several stored memories of one user in one read transaction
        (three UNWIND statements): per memory id, whether it exists and is live, its text, the live facts
        of other live memories about its subjects with its predicates, and the live memories similar to it."""
        if not items:
            return {}
        fact_items = [{"memory_id": i.memory_id, "subjects": sorted({x.casefold() for x in i.subjects}),
                       "predicates": sorted(set(i.predicates))} for i in items if i.subjects and i.predicates]
        similar_items = [{"memory_id": i.memory_id, "embedding": [float(x) for x in i.embedding]}
                         for i in items if i.embedding]

        def work(tx: Tx) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
            current = tx.run("conflict/current_many", {**_scope(scope), "ids": [i.memory_id for i in items]})
            facts = tx.run("conflict/candidate_facts_many", {**_scope(scope), "items": fact_items,
                                                            "limit": fact_limit}) if fact_items else []
            similar = tx.run("conflict/similar_many", {**_scope(scope), "items": similar_items,
                                                       "threshold": threshold, "limit": similar_limit}
                             ) if similar_items else []
            return current, facts, similar

        current, fact_rows, similar_rows = self._store.read_tx(work)
        facts: dict[str, list[tuple[str, str, CandidateFact]]] = {}
        for r in fact_rows:
            facts.setdefault(r["new_id"], []).append((r["memory_id"], r["triple_id"] or "", CandidateFact(
                r["memory_id"], r["subject"], r["predicate"], r["object"], int(r["polarity"]))))
        similar: dict[str, list[SimilarMemory]] = {}
        for r in similar_rows:
            similar.setdefault(r["new_id"], []).append(SimilarMemory(r["memory_id"], r["text"], float(r["cosine"])))
        found = {r["id"]: r for r in current}
        out: dict[str, Screening] = {}
        for i in items:
            row = found.get(i.memory_id)
            out[i.memory_id] = Screening(
                memory_id=i.memory_id, exists=row is not None, live=bool(row and row["live"]),
                text=row["text"] if row else "",
                facts=[f for _, _, f in sorted(facts.get(i.memory_id, []), key=lambda x: (x[0], x[1]))],
                similar=sorted(similar.get(i.memory_id, []), key=lambda x: (-x.cosine, x.memory_id)))
        return out

    def record(self, scope: Scope, *, new_id: str, old_id: str, kind: ConflictKind, strategy: ConflictStrategy,
               reason: str, now: datetime) -> tuple[Conflict, bool] | None:
        """Record (or find) the conflict of a pair; (conflict, created) or None when a memory is gone."""
        return self._store.write_tx(lambda tx: _record_in(tx, scope, new_id=new_id, old_id=old_id, kind=kind,
                                                          strategy=strategy, reason=reason, now=now))

    def record_and_settle(self, scope: Scope, new_id: str, findings: Sequence[tuple[str, ConflictKind, str]], *,
                          strategy: ConflictStrategy, choose: Callable[[Memory, Memory], str | None] | None,
                          params: Mapping[str, float], winner_bonus: float, loser_penalty: float,
                          resolved_by: str, now: datetime) -> list[tuple[Conflict, bool]]:
        """Record the conflicts of a new memory with old ones ((old_id, kind, reason) each, in order) and
        settle each one found OPEN (unless choose is None: held for review), one after the other exactly as
        record then resolve one by one would, all in one write transaction; stops after a conflict the new
        memory lost. (conflict as it stands, settled by this call) for each one recorded."""

        def work(tx: Tx) -> list[tuple[Conflict, bool]]:
            out: list[tuple[Conflict, bool]] = []
            for old_id, kind, reason in findings:
                recorded = _record_in(tx, scope, new_id=new_id, old_id=old_id, kind=kind, strategy=strategy,
                                      reason=reason, now=now)
                if recorded is None:
                    continue
                conflict, _ = recorded
                settled_now = False
                if conflict.status is ConflictStatus.OPEN and choose is not None:
                    settled = _resolve_in(tx, scope, conflict, choose=choose, params=params,
                                          winner_bonus=winner_bonus, loser_penalty=loser_penalty,
                                          resolved_by=resolved_by, now=now, decay_locked=False)
                    if settled is not None:
                        conflict, settled_now = settled, settled.status is ConflictStatus.RESOLVED
                out.append((conflict, settled_now))
                if conflict.status is ConflictStatus.RESOLVED and conflict.loser_id == new_id:
                    break  # the new memory lost: it is no longer live, so it contradicts nothing else
            return out

        return self._store.write_tx(work)

    def get(self, scope: Scope, conflict_id_: str) -> Conflict | None:
        rows = self._store.read("conflict/get", {**_scope(scope), "id": conflict_id_})
        return _conflict(rows[0]) if rows else None

    def listing(self, scope: Scope, *, status: ConflictStatus | None, limit: int) -> list[Conflict]:
        rows = self._store.read("conflict/list", {**_scope(scope), "status": status.value if status else None,
                                                  "limit": limit})
        return [_conflict(r) for r in rows]

    def resolve(self, scope: Scope, conflict: Conflict, *, choose: Callable[[Memory, Memory], str | None],
                params: Mapping[str, float], winner_bonus: float, loser_penalty: float, resolved_by: str,
                now: datetime, decay_locked: bool = False) -> Conflict | None:
        """Settle an open conflict in one transaction: lock and decay both memories, let `choose(new, old)`
        (both as of now, under the lock) name the winner's id, then apply conflict/resolve. When `choose`
        names nobody the conflict stays OPEN (held for review) and is returned as it is. None when the
        conflict is no longer open or a memory is gone. A locked memory is decayed only when
        `decay_locked` (the user settles it); the system never changes a locked memory on its own."""

        return self._store.write_tx(lambda tx: _resolve_in(
            tx, scope, conflict, choose=choose, params=params, winner_bonus=winner_bonus,
            loser_penalty=loser_penalty, resolved_by=resolved_by, now=now, decay_locked=decay_locked))

    def history(self, scope: Scope, *, entity: str | None, memory_id: str | None, limit: int) -> list[HistoryEntry]:
        rows = self._store.read("conflict/history", {**_scope(scope), "entity": entity, "memory_id": memory_id,
                                                     "limit": limit})
        return [HistoryEntry(memory=memory_from_row(r["memory"]), supersedes=sorted(r["supersedes"]),
                             superseded_by=sorted(r["superseded_by"])) for r in rows]


def _record_in(tx: Tx, scope: Scope, *, new_id: str, old_id: str, kind: ConflictKind, strategy: ConflictStrategy,
               reason: str, now: datetime) -> tuple[Conflict, bool] | None:
    rows = tx.run("conflict/record", {
        **_scope(scope), "id": conflict_id(scope, new_id, old_id), "new_id": new_id, "old_id": old_id,
        "kind": kind.value, "strategy": strategy.value, "reason": reason, "now": now,
    })
    if not rows:
        return None
    return _conflict(rows[0]), bool(rows[0]["created"])


def _resolve_in(tx: Tx, scope: Scope, conflict: Conflict, *, choose: Callable[[Memory, Memory], str | None],
                params: Mapping[str, float], winner_bonus: float, loser_penalty: float, resolved_by: str,
                now: datetime, decay_locked: bool) -> Conflict | None:
    ids = [conflict.new_memory_id, conflict.old_memory_id]
    if len(lock(tx, scope, ids)) != 2:
        return None
    decay(tx, scope, params, now, ids=ids, skip_locked=not decay_locked)
    current = tx.run("conflict/get", {**_scope(scope), "id": conflict.id})
    if not current or current[0]["conflict"]["status"] != ConflictStatus.OPEN.value:
        return None
    fresh = _conflict(current[0])
    assert fresh.new_memory is not None and fresh.old_memory is not None
    winner_id = choose(fresh.new_memory, fresh.old_memory)
    if winner_id is None:
        return fresh
    loser_id = fresh.old_memory_id if winner_id == fresh.new_memory_id else fresh.new_memory_id
    rows = tx.run("conflict/resolve", {
        **_scope(scope), **params, "id": conflict.id, "winner_id": winner_id, "loser_id": loser_id,
        "winner_bonus": winner_bonus, "loser_penalty": loser_penalty, "resolved_by": resolved_by,
        "now": now,
    })
    if not rows:
        return None
    after = tx.run("conflict/get", {**_scope(scope), "id": conflict.id})
    return _conflict(after[0])
