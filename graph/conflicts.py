"""Conflicts between memories of one user, stored as (:Conflict)-[:BETWEEN {role}]->(:Memory) (cypher/conflict/*).

A conflict node records the pair (new, old), how it was found (kind), how it is settled (strategy), its
status (OPEN while held for review, RESOLVED once settled) and, when resolved, the winner and the loser.
Resolving it is one transaction: lock both memories, decay both to now, then conflict/resolve.

History is never rewritten: a conflict one of whose memories is no longer live (superseded by another
conflict) is moot, closed RESOLVED without winner or loser (resolved_by MOOT), neither memory touched; settling
a conflict closes the loser's other OPEN conflicts that way, and conflict/resolve closes instead of settling
one found moot. (A status of its own would change the GraphQL enum: RESOLVED and resolved_by tell it.)

A conflict recorded by REVIEW (checkConflicts(strategy: REVIEW)) is held for review: OPEN until the user resolves
it (resolve). The system's settlements (record_and_settle, record_and_settle_in) that find its pair again, by
whatever strategy, leave it OPEN and touch neither memory (held_for_review); one recorded OPEN by another strategy
(choose named nobody: a locked memory) is tried again whenever found. The pair is held either way round: found
again the other way (detection records a pair as its later memory's, bmam/usecases/conflicts.py, but one stored
before it weighed that, or two memories of one time, may stand the other way), nothing is recorded under the
reversed id (reverse_id) and the held conflict is the pair's answer, as recorded (conflict/record,
conflict/settle_many and conflict/foresee look the reversed id up too).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

import numpy as np

from graph.cached_scans import scan, scores
from graph.ids import derived_id
from graph.model import Memory, Scope, scope_params
from graph.paging import Paged, encode_cursor, keyset_params, paged
from graph.records import Floats, memory_from_row, to_datetime
from graph.related import FormBatch
from graph.store import GraphStore, Tx
from graph.vector_cache import VectorCache
from graph.weights import decay, lock


class ConflictKind(StrEnum):
    """Which rule found the conflict (ingest/conflict_rules.py)."""

    SINGLE_VALUED = "SINGLE_VALUED"  # same subject, single-valued predicate, another value
    POLARITY = "POLARITY"  # opposite polarity on the same (or an overlapping) object
    NEGATION = "NEGATION"  # embedding similarity >= threshold with one side negated
    CORRECTION = "CORRECTION"  # the user corrected the old memory (bmam/usecases/corrections.py), not a rule


class ConflictStatus(StrEnum):
    OPEN = "OPEN"  # held for review
    RESOLVED = "RESOLVED"  # settled, or closed as moot (resolved_by MOOT, no winner)


# resolved_by of a conflict closed as moot: a memory in it was superseded (cypher/conflict/resolve, settle_many)
MOOT = "superseded"


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

    @property
    def held_for_review(self) -> bool:
        """OPEN and recorded by REVIEW: only the user settles it (module docstring)."""
        return _held_for_review(self.status, self.strategy)

    @property
    def moot(self) -> bool:
        """Closed without a winner because one of its memories was superseded."""
        return self.status is ConflictStatus.RESOLVED and self.winner_id is None and self.resolved_by == MOOT


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
    candidate facts (conflict/screen_many) and the similar memories (conflict/similar_many)."""

    memory_id: str
    exists: bool
    live: bool
    text: str
    facts: list[CandidateFact]
    similar: list[SimilarMemory]


FACT_LIMIT = 500
SIMILAR_LIMIT = 20


def _held_for_review(status: str | None, strategy: str | None) -> bool:
    """Whether a conflict (its status and strategy, as stored) is held for review: the system never settles it."""
    return status == ConflictStatus.OPEN.value and strategy == ConflictStrategy.REVIEW.value


def conflict_id(scope: Scope, new_id: str, old_id: str) -> str:
    return derived_id("c", scope, new_id, old_id)


def _pair_ids(scope: Scope, new_id: str, old_id: str) -> dict[str, str]:
    """The ids a statement recording or settling the pair (new, old) looks up: its conflict's (id) and that of the
    pair the other way round (reverse_id: held for review, it holds this pair too; module docstring)."""
    return {"id": conflict_id(scope, new_id, old_id), "reverse_id": conflict_id(scope, old_id, new_id)}


def conflict_cursor(c: Conflict) -> str:
    """A conflict's place in the listing (conflict/list: created_at, id)."""
    return encode_cursor(c.created_at, c.id)


def history_cursor(h: HistoryEntry) -> str:
    """A history entry's place in the history (conflict/history: valid_from, id)."""
    return encode_cursor(h.memory.valid_from, h.memory.id)


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
    def __init__(self, store: GraphStore, cache: VectorCache | None = None) -> None:
        self._store = store
        # the exact scans in numpy (graph/vector_cache.py); a cache of 0 bytes is none: Neo4j scans
        self._cache = cache if cache is not None and cache.max_bytes > 0 else None

    def embedding(self, scope: Scope, memory_id: str) -> list[float]:
        rows = self._store.read("conflict/embedding", {**scope_params(scope), "id": memory_id})
        return [float(x) for x in rows[0]["embedding"]] if rows and rows[0]["embedding"] is not None else []

    def said(self, tx: Tx | None, scope: Scope, ids: Sequence[str]) -> dict[str, Memory]:
        """The memories of these ids (in tx, else in a read of its own), by id, for telling which of a
        pair was said later (conflict/said); a missing one is left out."""
        if not ids:
            return {}
        params = {**scope_params(scope), "ids": list(dict.fromkeys(ids))}
        rows = tx.run("conflict/said", params) if tx is not None else self._store.read("conflict/said", params)
        return {r["memory"]["id"]: memory_from_row(r["memory"]) for r in rows}

    def screen(self, scope: Scope, items: Sequence[ScreenItem], *, threshold: float, fact_limit: int = FACT_LIMIT,
               similar_limit: int = SIMILAR_LIMIT) -> dict[str, Screening]:
        """The reads of conflict detection for several stored memories of one user in one read transaction
        (three UNWIND statements): per memory id, whether it exists and is live, its text, the live facts
        of other live memories about its subjects with its predicates, and the live memories similar to it.
        With the vector cache the similar memories are ranked in numpy and read back with the items
        (conflict/screen_many) instead of Neo4j's exact scan (conflict/similar_many), with the same answer."""
        if not items:
            return {}
        return self._store.read_tx(lambda tx: self.screen_in(tx, scope, items, threshold=threshold,
                                                             fact_limit=fact_limit, similar_limit=similar_limit))

    def screen_in(self, tx: Tx, scope: Scope, items: Sequence[ScreenItem], *, threshold: float,
                  fact_limit: int = FACT_LIMIT, similar_limit: int = SIMILAR_LIMIT) -> dict[str, Screening]:
        """screen inside the caller's transaction (the stored-memory hooks of an ingest batch share one)."""
        if not items:
            return {}
        fact_items = [{"memory_id": i.memory_id, "subjects": sorted({x.casefold() for x in i.subjects}),
                       "predicates": sorted(set(i.predicates))} for i in items if i.subjects and i.predicates]
        similar_items = [{"memory_id": i.memory_id, "embedding": Floats(map(float, i.embedding))}
                         for i in items if i.embedding]

        def screen_many(ids: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            row = tx.run("conflict/screen_many", {**scope_params(scope), "ids": ids, "items": fact_items,
                                                  "limit": fact_limit})[0]
            return list(row["current"]), list(row["facts"])

        def reads() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
            ids = [i.memory_id for i in items]
            cached = self._similar_cached(tx, scope, similar_items, threshold=threshold, limit=similar_limit)
            if cached is not None:  # read with the items: the similar memories' texts and validity
                similar_of, wanted = cached
                current, facts = screen_many(list(dict.fromkeys([*ids, *wanted])))
                found = {r["id"]: r for r in current}
                live = {new_id: [h for h in hits if h[1] in found and found[h[1]]["live"]][:similar_limit]
                        for new_id, hits in similar_of.items()}
                similar = [{"new_id": new_id, "memory_id": mid, "text": found[mid]["text"], "cosine": cosine}
                           for new_id, hits in live.items() for cosine, mid in hits]
                current = [found[i] for i in dict.fromkeys(ids) if i in found]
            else:
                current, facts = screen_many(ids)
            if cached is None:
                similar = tx.run("conflict/similar_many", {**scope_params(scope), "items": similar_items,
                                                           "threshold": threshold, "limit": similar_limit}
                                 ) if similar_items else []
            return current, facts, similar

        current, fact_rows, similar_rows = reads()
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

    def _similar_cached(self, tx: Tx, scope: Scope, items: Sequence[dict[str, Any]], *, threshold: float,
                        limit: int) -> tuple[dict[str, list[tuple[float, str]]], list[str]] | None:
        """conflict/similar_many's candidates from the vector cache: per item, every other cached memory
        whose raw cosine (2 * Neo4j's score - 1, as the statement computes it) is >= threshold, closest
        first (equal cosines by id), and the ids to read back (live ones are kept, at most limit per
        item). None when the cache cannot answer (Neo4j scans)."""
        if self._cache is None:
            return None
        if not items:
            return {}, []
        cached = scan(tx, scope, self._cache)
        if cached.empty:
            return {}, []
        if cached.rows is None:
            return None
        ids, matrix = cached.rows.snapshot()
        raw = 2.0 * scores(matrix, [i["embedding"] for i in items]) - 1.0
        out: dict[str, list[tuple[float, str]]] = {}
        for row, item in zip(raw, items, strict=True):
            hits = [(float(row[j]), ids[j]) for j in np.flatnonzero(row >= threshold).tolist()
                    if ids[j] != item["memory_id"]]
            out[item["memory_id"]] = sorted(hits, key=lambda h: (-h[0], h[1]))
        return out, list(dict.fromkeys(mid for hits in out.values() for _, mid in hits))

    def record(self, scope: Scope, *, new_id: str, old_id: str, kind: ConflictKind, strategy: ConflictStrategy,
               reason: str, now: datetime) -> tuple[Conflict, bool] | None:
        """Record (or find) the conflict of a pair (the pair's held for review the other way round, if it is: nothing
        recorded); (conflict, created) or None when a memory is gone."""
        return self._store.write_tx(lambda tx: _record_in(tx, scope, new_id=new_id, old_id=old_id, kind=kind,
                                                          strategy=strategy, reason=reason, now=now))

    def record_and_settle(self, scope: Scope, new_id: str, findings: Sequence[tuple[str, ConflictKind, str]], *,
                          strategy: ConflictStrategy, choose: Callable[[Memory, Memory], str | None] | None,
                          params: Mapping[str, float], winner_bonus: float, loser_penalty: float,
                          resolved_by: str, now: datetime, static_choice: bool = False) -> list[tuple[Conflict, bool]]:
        """Record the conflicts of a new memory with old ones ((old_id, kind, reason) each, in order) and
        settle each one found OPEN (unless choose is None, or it was recorded by REVIEW before: held for review,
        neither memory touched; Conflict.held_for_review), one after the other exactly as record then resolve one
        by one would, all in one write transaction; stops after a conflict the new memory lost. (conflict as it
        stands, settled by this call) for each one recorded: for a pair held for review the other way round (old,
        new), that conflict, held (nothing recorded)."""

        settle = _Settle(scope=scope, new_id=new_id, findings=findings, strategy=strategy, choose=choose,
                         params=params, winner_bonus=winner_bonus, loser_penalty=loser_penalty,
                         resolved_by=resolved_by, now=now, static_choice=static_choice)
        if settle.batchable:
            try:
                return self._store.write_tx(settle.batched)
            except NewMemoryLost:
                pass  # rolled back: the findings after the one it lost must not be recorded; one by one
        return self._store.write_tx(settle.one_by_one)

    def record_and_settle_in(self, tx: Tx, scope: Scope, new_id: str,
                             findings: Sequence[tuple[str, ConflictKind, str]], *, strategy: ConflictStrategy,
                             choose: Callable[[Memory, Memory], str | None] | None, params: Mapping[str, float],
                             winner_bonus: float, loser_penalty: float, resolved_by: str,
                             now: datetime, static_choice: bool = False,
                             foreseen: Sequence[Mapping[str, Any]] | None = None,
                             forming: FormBatch | None = None) -> list[tuple[Conflict, bool]]:
        """record_and_settle inside the caller's transaction, where the batched way cannot be undone on its
        own. So it first looks ahead (_Settle.foresee, one read): where one by one would stop, the new memory
        losing, and settles the findings up to that one only (one by one stops there too). The foresight is
        exact for a choice that only looks at what settling does not change (LATEST: times and locks); when
        the outcome still differs from it (STRONGER: the weights move as it settles) NewMemoryLost is raised,
        and the caller must roll its transaction back (and settle in one of its own: record_and_settle).
        foreseen: the findings' rows of foresee_in, read earlier in tx (the stored-memory hooks read a whole
        batch's at once), used instead of that read with a static choice: what it looks at, and whether the
        memories exist and the conflicts are recorded, no settlement of other new memories changes.
        forming: association forming to write first (the hooks form a segment's associations, then settle its last
        memory): in the settlement's first statement when it is conflict/settle_many (conflict/form_settle_many),
        else on its own before it; nothing this reads before that statement reads associations."""
        settle = _Settle(scope=scope, new_id=new_id, findings=findings, strategy=strategy, choose=choose,
                         params=params, winner_bonus=winner_bonus, loser_penalty=loser_penalty,
                         resolved_by=resolved_by, now=now, static_choice=static_choice, forming=forming)
        if not settle.batchable and not settle.foreseeable_one:
            return settle.one_by_one(tx)
        if choose is None:  # held for review: it loses none
            return settle.batched(tx)
        if foreseen is None or not static_choice or len(foreseen) != len(findings) or any(
                row["id"] != conflict_id(scope, new_id, old_id) for row, (old_id, _, _) in zip(
                    foreseen, findings, strict=True)):
            foreseen = settle.foreseen(tx)
        stop = settle.stop(foreseen)
        if stop is None:  # raises NewMemoryLost should the new memory lose before the last
            return replace(settle, ahead=foreseen).batched(tx)
        upto = replace(settle, findings=list(findings[:stop + 1]), ahead=foreseen[:stop + 1])
        done = upto.batched(tx) if upto.batchable or upto.foreseeable_one else upto.one_by_one(tx)
        last = done[-1][0] if done else None
        if last is None or last.old_memory_id != findings[stop][0] or last.status is not ConflictStatus.RESOLVED \
                or last.loser_id != new_id:
            raise NewMemoryLost(f"settling {new_id}: foreseen to lose its conflict with {findings[stop][0]}, did not")
        return done

    def foresee_in(self, tx: Tx, scope: Scope, pairs: Sequence[tuple[str, str]]) -> dict[str, dict[str, Any]]:
        """What record_and_settle_in reads ahead, for many (new memory, old memory) pairs in one statement:
        foresee_in's rows by conflict id."""
        return {row["id"]: row for row in foresee_in(tx, scope, pairs)}

    def get(self, scope: Scope, conflict_id_: str) -> Conflict | None:
        rows = self._store.read("conflict/get", {**scope_params(scope), "id": conflict_id_})
        return _conflict(rows[0]) if rows else None

    def listing(self, scope: Scope, *, status: ConflictStatus | None, limit: int,
                after: str | None = None) -> list[Conflict]:
        """The user's conflicts (of a status, or all), newest first, `limit` of them after the cursor `after`."""
        rows = self._store.read("conflict/list", {**scope_params(scope), "status": status.value if status else None,
                                                  **keyset_params(after), "limit": limit})
        return [_conflict(r) for r in rows]

    def listing_page(self, scope: Scope, *, status: ConflictStatus | None, limit: int,
                     after: str | None = None) -> Paged[Conflict]:
        return paged(self.listing(scope, status=status, limit=limit + 1, after=after), limit, conflict_cursor)

    def resolve(self, scope: Scope, conflict: Conflict, *, choose: Callable[[Memory, Memory], str | None],
                params: Mapping[str, float], winner_bonus: float, loser_penalty: float, resolved_by: str,
                now: datetime, change_locked: bool = False) -> Conflict | None:
        """Settle an open conflict in one transaction: lock and decay both memories, let `choose(new, old)`
        (both as of now, under the lock) name the winner's id, then apply conflict/resolve. When `choose`
        names nobody the conflict stays OPEN (held for review) and is returned as it is; when a memory of it is
        no longer live it is closed as moot instead (Conflict.moot), neither memory touched. None when the
        conflict is no longer open or a memory is gone. A locked memory's weight changes only when
        `change_locked` (the user settles it); the system never changes a locked memory on its own, and a locked
        memory does not decay (weights/decay)."""

        return self._store.write_tx(lambda tx: _resolve_in(
            tx, scope, conflict, choose=choose, params=params, winner_bonus=winner_bonus,
            loser_penalty=loser_penalty, resolved_by=resolved_by, now=now, change_locked=change_locked))

    def correct_in(self, tx: Tx, scope: Scope, *, new_id: str, old_id: str, reason: str,
                   params: Mapping[str, float], now: datetime) -> Conflict | None:
        """A user's correction inside tx: the pair's conflict recorded (kind CORRECTION) and settled at once for
        the new memory, by the user, a locked old memory too (conflict/resolve: SUPERSEDES, the old one's valid_to,
        its associations carried over); no bonus or penalty (the correction carries the old memory's weight). The
        conflict as settled (moot when the old memory was superseded meanwhile), or None when a memory is gone."""
        recorded = _record_in(tx, scope, new_id=new_id, old_id=old_id, kind=ConflictKind.CORRECTION,
                              strategy=ConflictStrategy.REVIEW, reason=reason, now=now)
        if recorded is None:
            return None
        return _resolve_in(tx, scope, recorded[0], choose=lambda new, old: new.id, params=params, winner_bonus=0.0,
                           loser_penalty=0.0, resolved_by="user", now=now, change_locked=True, locked=True)

    def history(self, scope: Scope, *, entity: str | None, memory_id: str | None, limit: int,
                after: str | None = None) -> list[HistoryEntry]:
        """The user's history (conflict/history), oldest first, `limit` entries after the cursor `after`."""
        rows = self._store.read("conflict/history", {**scope_params(scope), "entity": entity, "memory_id": memory_id,
                                                     **keyset_params(after), "limit": limit})
        return [HistoryEntry(memory=memory_from_row(r["memory"]), supersedes=sorted(r["supersedes"]),
                             superseded_by=sorted(r["superseded_by"])) for r in rows]

    def history_page(self, scope: Scope, *, entity: str | None, memory_id: str | None, limit: int,
                     after: str | None = None) -> Paged[HistoryEntry]:
        return paged(self.history(scope, entity=entity, memory_id=memory_id, limit=limit + 1, after=after), limit,
                     history_cursor)


class NewMemoryLost(Exception):
    """The batched settlement found the new memory losing a conflict before its last finding: what it wrote
    in the transaction must be rolled back."""


@dataclass(frozen=True, slots=True)
class _Settle:
    """record_and_settle's work, in either of two ways with the same outcome."""

    scope: Scope
    new_id: str
    findings: Sequence[tuple[str, ConflictKind, str]]
    strategy: ConflictStrategy
    choose: Callable[[Memory, Memory], str | None] | None
    params: Mapping[str, float]
    winner_bonus: float
    loser_penalty: float
    resolved_by: str
    now: datetime
    static_choice: bool = False  # choose looks only at what settling does not change (locks and times)
    ahead: Sequence[Mapping[str, Any]] | None = None  # conflict/foresee's rows for these findings, if read
    forming: FormBatch | None = None  # association forming to write before anything else (record_and_settle_in)

    @property
    def batchable(self) -> bool:
        """Whether batched may settle these findings (several, each with another old memory)."""
        olds = [old_id for old_id, _, _ in self.findings]
        return len(olds) > 1 and len(set(olds)) == len(olds)

    @property
    def foreseeable_one(self) -> bool:
        """One finding settled by a static choice: foreseen, batched settles it in two statements (foresee,
        conflict/settle_many; one when the hooks foresaw it with the batch's others), one_by_one in four."""
        return len(self.findings) == 1 and self.static_choice and self.choose is not None

    def foresee(self, tx: Tx) -> int | None:
        """The position of the finding one_by_one would stop at, the new memory losing it, as far as choose on
        the memories as they stand now tells (reads only; exact for a choice that only looks at what settling
        does not change); None when it loses none."""
        return self.stop(self.foreseen(tx))

    def foreseen(self, tx: Tx) -> list[dict[str, Any]]:
        """conflict/foresee's rows, one per finding in order: the new and old memories as they stand now and
        the status, strategy and loser of the finding's conflict if it is recorded already (foresee_in)."""
        return foresee_in(tx, self.scope, [(self.new_id, old_id) for old_id, _, _ in self.findings])

    def stop(self, rows: Sequence[Mapping[str, Any]]) -> int | None:
        """foresee on its rows."""
        for position, row in enumerate(rows):
            if row["new_memory"] is None:
                return None  # nothing is recorded
            if row["old_memory"] is None:
                continue  # not recorded
            if row["status"] is None or row["status"] == ConflictStatus.OPEN.value:
                if self.choose is None or _held_for_review(row["status"], row.get("strategy")):
                    continue  # held for review
                new, old = memory_from_row(row["new_memory"]), memory_from_row(row["old_memory"])
                winner = self.choose(new, old)
                if winner is not None and winner != self.new_id and _live(new, old):  # else closed as moot
                    return position
            elif row["loser_id"] == self.new_id:
                return position
        return None

    def one_by_one(self, tx: Tx) -> list[tuple[Conflict, bool]]:
        """Per finding: record (locking both memories), then, when it is OPEN, not held for review and a strategy
        chooses: decay both memories, read the conflict, choose, resolve. Stops after a conflict the new memory
        lost."""
        if self.forming is not None:
            self.forming.run_in(tx)
        out: list[tuple[Conflict, bool]] = []
        for old_id, kind, reason in self.findings:
            recorded = _record_in(tx, self.scope, new_id=self.new_id, old_id=old_id, kind=kind,
                                  strategy=self.strategy, reason=reason, now=self.now)
            if recorded is None:
                continue
            conflict, _ = recorded
            settled_now = False
            if conflict.status is ConflictStatus.OPEN and self.choose is not None and not conflict.held_for_review:
                settled = _resolve_in(tx, self.scope, conflict, choose=self.choose, params=self.params,
                                      winner_bonus=self.winner_bonus, loser_penalty=self.loser_penalty,
                                      resolved_by=self.resolved_by, now=self.now, change_locked=False,
                                      locked=True)  # conflict/record locked both memories
                if settled is not None:
                    conflict, settled_now = settled, settled.status is ConflictStatus.RESOLVED
            out.append((conflict, settled_now))
            if conflict.status is ConflictStatus.RESOLVED and conflict.loser_id == self.new_id:
                break  # the new memory lost: it is no longer live, so it contradicts nothing else
        return self._closed_by_loss(out)

    def _closed_by_loss(self, out: list[tuple[Conflict, bool]]) -> list[tuple[Conflict, bool]]:
        """The new memory losing its last conflict closed the ones held before it as moot in the store
        (conflict/resolve): answer them as they are now."""
        if not out or out[-1][0].loser_id != self.new_id:
            return out
        return [(replace(c, status=ConflictStatus.RESOLVED, resolved_at=self.now, resolved_by=MOOT), True)
                if c.status is ConflictStatus.OPEN else (c, settled) for c, settled in out]

    def batched(self, tx: Tx) -> list[tuple[Conflict, bool]]:
        """The same as one_by_one in k + 3 statements instead of 4k, for distinct old memories: record them
        all (conflict/settle_many), decay the new memory and the old ones of the OPEN conflicts at once, read
        those conflicts at once (conflict/get_many), then choose and resolve one after the other (foreseen, with
        a static choice: decay, record and resolve in one conflict/settle_many, one statement). What
        one_by_one reads later differs only in the new memory (a settlement changes it; conflict/resolve
        returns it as it is then) and in nothing when the new memory loses: then the findings after that one
        must not have been recorded or decayed, and NewMemoryLost rolls the transaction back (the caller
        runs one_by_one). Decaying a memory twice to the same instant changes nothing the second time."""
        scope = self.scope
        items = [{**_pair_ids(scope, self.new_id, old_id), "old_id": old_id, "kind": kind.value, "reason": reason}
                 for old_id, kind, reason in self.findings]
        # Foreseen (read earlier in this transaction): the conflicts that will be OPEN once recorded are known,
        # so their memories are decayed first and the recording reads them back as conflict/get_many would after
        # the decay; with a static choice the winners are chosen on the foreseen memories too, and recording and
        # settling go in one statement (conflict/settle_many, which decays them first: one statement in all).
        # Decay and recording touch disjoint properties:
        # the order leaves the same graph. Should the recording find other conflicts OPEN than foreseen, the
        # usual way below catches up (decaying a memory twice to the same instant changes nothing the second
        # time), or, when settlements went with the recording, NewMemoryLost rolls the transaction back.
        early = self._open_ahead() if self.choose is not None else None
        plan = self._plan_ahead() if early and self.static_choice else None
        rows, resolved_rows = self._settle_many(tx, items, with_memories=bool(early),
                                                resolve=plan[1] if plan is not None else [],
                                                decay_ids=[self.new_id, *early] if early else [],
                                                forming=self.forming)
        recorded: list[Conflict | None] = [None] * len(items)
        for r in rows:
            recorded[int(r["i"])] = _conflict({"conflict": r["conflict"]})  # as recorded, without its memories
        # the OPEN ones but those held for review (recorded by REVIEW before): those stay as they are, unread
        settling = [c for c in recorded if c is not None and c.status is ConflictStatus.OPEN and not c.held_for_review]
        foreseen = early is not None and [c.old_memory_id for c in settling] == early
        if plan is not None and not foreseen:
            raise NewMemoryLost(f"settling {self.new_id}: other conflicts recorded OPEN than foreseen")
        fresh: dict[str, dict[str, Any]] = {}
        if self.choose is not None and settling:
            if foreseen:
                fresh = {r["conflict"]["id"]: r for r in rows if r["conflict"]["status"] == "OPEN"
                         and not _held_for_review(r["conflict"]["status"], r["conflict"].get("strategy"))}
            else:
                decay(tx, scope, self.params, self.now, ids=[self.new_id, *(c.old_memory_id for c in settling)],
                      with_before=False)  # its before-images (hydrated DateTimes) are not used
                fresh = {r["conflict"]["id"]: r for r in tx.run("conflict/get_many", {
                    **scope_params(scope), "ids": [c.id for c in settling]})}
        # A choice that only looks at what settling does not change is made for all of them first, and they are
        # resolved in one statement (conflict/settle_many, one after the other as conflict/resolve would be);
        # the loop below then takes each one's answer from it instead of running conflict/resolve.
        planned = ((plan[0], {plan[1][int(r["i"])]["id"]: r for r in resolved_rows}) if plan is not None
                   else self._resolve_planned(tx, recorded, fresh) if self.static_choice else None)
        out: list[tuple[Conflict, bool]] = []
        new_now: dict[str, Any] | None = None  # the new memory as the last settlement left it
        for position, recorded_conflict in enumerate(recorded):
            if recorded_conflict is None:
                continue
            conflict, settled_now = recorded_conflict, False
            row = fresh.get(conflict.id) if conflict.status is ConflictStatus.OPEN else None
            if self.choose is not None and row is not None and row["conflict"]["status"] == "OPEN" \
                    and row["new_memory"] is not None and row["old_memory"] is not None:
                current = _conflict({**row, "new_memory": new_now if new_now is not None else row["new_memory"]})
                assert current.new_memory is not None and current.old_memory is not None
                winner_id = self.choose(current.new_memory, current.old_memory)
                if planned is not None and planned[0].get(conflict.id) != winner_id:
                    raise NewMemoryLost(f"{conflict.id}: the choice moved as the conflicts were settled")
                if winner_id is None:
                    conflict = current  # held for review
                else:
                    loser_id = current.old_memory_id if winner_id == current.new_memory_id else current.new_memory_id
                    settled = [planned[1][conflict.id]] if planned is not None and conflict.id in planned[1] \
                        else [] if planned is not None else tx.run("conflict/resolve", {
                            **scope_params(scope), **self.params, "id": conflict.id, "winner_id": winner_id,
                            "loser_id": loser_id, "winner_bonus": self.winner_bonus, "spare_locked": True,
                            "loser_penalty": self.loser_penalty, "resolved_by": self.resolved_by, "now": self.now})
                    if settled:
                        conflict = _conflict(settled[0])
                        settled_now = conflict.status is ConflictStatus.RESOLVED
                        new_now = settled[0]["new_memory"]
            out.append((conflict, settled_now))
            if conflict.status is ConflictStatus.RESOLVED and conflict.loser_id == self.new_id:
                if any(c is not None for c in recorded[position + 1:]):
                    raise NewMemoryLost(conflict.id)
                break
        return self._closed_by_loss(out)


    def _open_ahead(self) -> list[str] | None:
        """From the foreseen rows: the old memories whose conflicts will be OPEN once recorded and are to be settled
        (found, and not recorded yet or recorded OPEN but not held for review), in order; None when nothing was
        foreseen or the new memory is gone."""
        if self.ahead is None or len(self.ahead) != len(self.findings):
            return None
        if any(row["new_memory"] is None for row in self.ahead):
            return None
        return [old_id for (old_id, _, _), row in zip(self.findings, self.ahead, strict=True)
                if row["old_memory"] is not None and (row["status"] is None or row["status"] == "OPEN")
                and not _held_for_review(row["status"], row.get("strategy"))]

    def _settle_many(self, tx: Tx, items: Sequence[Mapping[str, str]], *, with_memories: bool,
                     resolve: Sequence[Mapping[str, str]], decay_ids: Sequence[str] = (),
                     forming: FormBatch | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """conflict/settle_many: decay the decay_ids (unlocked ones; weights/decay in the same statement), record
        the items, then settle the resolve items; (recorded rows, resolved rows). Given forming, its association
        forming first, in the same statement (conflict/form_settle_many)."""
        row = tx.run("conflict/settle_many" if forming is None else "conflict/form_settle_many", {
            **(forming.params() if forming is not None else {}),
            **scope_params(self.scope), **self.params, "ids": list(dict.fromkeys(decay_ids)),
            "with_before": False, "new_id": self.new_id, "record": list(items),
            "strategy": self.strategy.value, "with_memories": with_memories, "resolve": list(resolve),
            "winner_bonus": self.winner_bonus, "loser_penalty": self.loser_penalty, "spare_locked": True,
            "resolved_by": self.resolved_by, "now": self.now})[0]
        return list(row["recorded"]), list(row["resolved"])

    def _plan_ahead(self) -> tuple[dict[str, str | None], list[dict[str, str]]] | None:
        """_resolve_planned on the foreseen rows (for a static choice, what settling changes does not matter):
        the winner of each conflict that will be OPEN once recorded, and those with a winner to settle, in order,
        up to the first the new memory loses."""
        if self.choose is None or self.ahead is None:
            return None
        winners: dict[str, str | None] = {}
        items: list[dict[str, str]] = []
        for (old_id, _, _), row in zip(self.findings, self.ahead, strict=True):
            if row["new_memory"] is None or row["old_memory"] is None \
                    or (row["status"] is not None and row["status"] != "OPEN") \
                    or _held_for_review(row["status"], row.get("strategy")):
                continue
            ids = _pair_ids(self.scope, self.new_id, old_id)
            new, old = memory_from_row(row["new_memory"]), memory_from_row(row["old_memory"])
            winner = winners[ids["id"]] = self.choose(new, old)
            if winner is not None:
                loser = old_id if winner == self.new_id else self.new_id
                items.append({**ids, "winner_id": winner, "loser_id": loser})
                if loser == self.new_id and _live(new, old):  # a moot one is closed, nobody loses
                    break
        return winners, items

    def _resolve_planned(self, tx: Tx, recorded: Sequence[Conflict | None], fresh: Mapping[str, dict[str, Any]]
                         ) -> tuple[dict[str, str | None], dict[str, dict[str, Any]]]:
        """For a static choice: the winner of each OPEN conflict batched will settle, chosen on the memories
        as read (up to the first the new memory loses: batched stops there), and those with a winner resolved
        in order in one statement. (winner by conflict id, conflict/resolve's row by conflict id)."""
        assert self.choose is not None
        winners: dict[str, str | None] = {}
        items: list[dict[str, str]] = []
        for c in recorded:
            row = fresh.get(c.id) if c is not None and c.status is ConflictStatus.OPEN else None
            if row is None or row["conflict"]["status"] != "OPEN" or row["new_memory"] is None \
                    or row["old_memory"] is None \
                    or _held_for_review(row["conflict"]["status"], row["conflict"].get("strategy")):
                continue
            current = _conflict(row)
            assert current.new_memory is not None and current.old_memory is not None
            winner = winners[current.id] = self.choose(current.new_memory, current.old_memory)
            if winner is not None:
                loser = current.old_memory_id if winner == current.new_memory_id else current.new_memory_id
                items.append({**_pair_ids(self.scope, current.new_memory_id, current.old_memory_id),
                              "winner_id": winner, "loser_id": loser})
                if loser == self.new_id and _live(current.new_memory, current.old_memory):  # moot: nobody loses
                    break
        if not items:
            return winners, {}
        _, rows = self._settle_many(tx, [], with_memories=False, resolve=items)
        return winners, {items[int(r["i"])]["id"]: r for r in rows}


def _live(*memories: Memory) -> bool:
    """Whether none of the memories is superseded (else their conflict is moot: closed, nobody loses)."""
    return all(m.valid_to is None for m in memories)


def foresee_in(tx: Tx, scope: Scope, pairs: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """conflict/foresee's rows for (new memory, old memory) pairs, in their order: per pair the conflict id (id),
    both memories as they stand now (None when missing) and the status, strategy and loser of their conflict if it
    is recorded already (a recorded OPEN one whose strategy is REVIEW is held for review: it will not be settled),
    or of the pair's the other way round when that one is held for review (the pair is held: nothing is recorded)."""
    if not pairs:
        return []
    items = [{**_pair_ids(scope, new_id, old_id), "new_id": new_id, "old_id": old_id} for new_id, old_id in pairs]
    [row] = tx.run("conflict/foresee", {**scope_params(scope), "items": items,
                                        "ids": list(dict.fromkeys(m for pair in pairs for m in pair))})
    memories = {m["id"]: m for m in row["memories"]}
    conflicts = {int(c["i"]): c for c in row["conflicts"]}
    return [{"i": i, "id": item["id"], "status": conflicts[i]["status"], "strategy": conflicts[i]["strategy"],
             "loser_id": conflicts[i]["loser_id"],
             "new_memory": memories.get(item["new_id"]), "old_memory": memories.get(item["old_id"])}
            for i, item in enumerate(items)]


def _record_in(tx: Tx, scope: Scope, *, new_id: str, old_id: str, kind: ConflictKind, strategy: ConflictStrategy,
               reason: str, now: datetime) -> tuple[Conflict, bool] | None:
    rows = tx.run("conflict/record", {
        **scope_params(scope), **_pair_ids(scope, new_id, old_id), "new_id": new_id, "old_id": old_id,
        "kind": kind.value, "strategy": strategy.value, "reason": reason, "now": now,
    })
    if not rows:
        return None
    return _conflict(rows[0]), bool(rows[0]["created"])


def _resolve_in(tx: Tx, scope: Scope, conflict: Conflict, *, choose: Callable[[Memory, Memory], str | None],
                params: Mapping[str, float], winner_bonus: float, loser_penalty: float, resolved_by: str,
                now: datetime, change_locked: bool, locked: bool = False) -> Conflict | None:
    """Settle one conflict inside tx (ConflictRepository.resolve). locked: conflict/record has just found and
    write-locked both memories in this transaction (what weights/lock would do here)."""
    ids = [conflict.new_memory_id, conflict.old_memory_id]
    if not locked and len(lock(tx, scope, ids)) != 2:
        return None
    decay(tx, scope, params, now, ids=ids, with_before=False)
    current = tx.run("conflict/get", {**scope_params(scope), "id": conflict.id})
    if not current or current[0]["conflict"]["status"] != ConflictStatus.OPEN.value:
        return None
    fresh = _conflict(current[0])
    assert fresh.new_memory is not None and fresh.old_memory is not None
    winner_id = choose(fresh.new_memory, fresh.old_memory)
    if winner_id is None:
        return fresh
    loser_id = fresh.old_memory_id if winner_id == fresh.new_memory_id else fresh.new_memory_id
    rows = tx.run("conflict/resolve", {
        **scope_params(scope), **params, "id": conflict.id, "winner_id": winner_id, "loser_id": loser_id,
        "winner_bonus": winner_bonus, "loser_penalty": loser_penalty, "resolved_by": resolved_by,
        "now": now, "spare_locked": not change_locked,  # the user's settlement may change a locked memory
    })
    return _conflict(rows[0]) if rows else None  # as conflict/get would read it now
