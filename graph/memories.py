"""Memory storage: remember, get, list, forget and vector search, each scoped to one (tenant, user)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.errors import NotFound
from graph.model import Memory, MemoryType, NewMemory, Page, Scope, ScoredMemory, Tier, scope_params
from graph.paging import decode_cursor, encode_cursor
from graph.records import Floats, memory_from_row, time_param
from graph.scope_token import scope_token
from graph.store import GraphStore, Tx
from graph.text_key import text_key


@dataclass(frozen=True, slots=True)
class WeightShares:
    """final = passive_share * passive + active_share * active + preset_share * preset."""

    passive: float = 0.6
    active: float = 0.3
    preset: float = 0.1


@dataclass(frozen=True, slots=True)
class StoredMemory:
    memory: Memory
    created: bool  # False when the id existed already (an idempotent repeat)


@dataclass(frozen=True, slots=True)
class PendingHooks:
    """A memory whose after-store hooks were left unfinished, with its embedding (for the hooks again)."""

    memory: Memory
    embedding: list[float]


# The node label of each stored type value, from the closed enum only: never user text.
TYPE_LABELS: dict[str, str] = {t.value: t.label for t in MemoryType}


class MemoryRepository:
    def __init__(self, store: GraphStore, shares: WeightShares, vector_dimensions: int) -> None:
        self._store = store
        self._shares = shares
        self._dimensions = vector_dimensions

    def remember(
        self, scope: Scope, new: NewMemory, *, now: datetime, passive: float, active: float
    ) -> StoredMemory:
        return self._store.write_tx(lambda tx: self.remember_in(tx, scope, new, now=now, passive=passive,
                                                                 active=active))

    def remember_in(
        self, tx: Tx, scope: Scope, new: NewMemory, *, now: datetime, passive: float, active: float,
        hooks_pending_at: datetime | None = None,
    ) -> StoredMemory:
        """remember inside a caller's transaction (ingest writes an episode and its memories at once).
        hooks_pending_at: as for store_many_in."""
        return self.remember_many_in(tx, scope, [new], now=now, passive=passive, active=active,
                                     hooks_pending_at=hooks_pending_at)[0]

    def remember_many_in(
        self, tx: Tx, scope: Scope, batch: Sequence[NewMemory], *, now: datetime | Sequence[datetime],
        passive: float, active: float, hooks_pending_at: datetime | None = None,
    ) -> list[StoredMemory]:
        """Store several memories in the caller's transaction, in order, with one statement whatever their
        types (the type labels come as a map from the MemoryType enum). `now` is one time for all, or one
        per memory (ingest stamps each with its turn's time). NotFound when an id belongs to another
        tenant or user: the caller's transaction then rolls back, so none of the batch is written."""
        found, first = self._write_many(tx, scope, batch, now=now, passive=passive, active=active, answer=True,
                                        hooks_pending_at=hooks_pending_at)
        return [StoredMemory(memory=memory_from_row(found[new.id]["memory"]),
                             created=bool(found[new.id]["created"]) and first[new.id] == i)
                for i, new in enumerate(batch)]

    def store_many_in(
        self, tx: Tx, scope: Scope, batch: Sequence[NewMemory], *, now: datetime | Sequence[datetime],
        passive: float | Sequence[float], active: float | Sequence[float], hooks_pending_at: datetime | None = None,
    ) -> None:
        """remember_many_in without its answer (the memories are not read back: ingest reads them once its
        batch is written); `passive` and `active` too may be one per memory (a superseded memory's remains keep its
        weight parts). hooks_pending_at: the new memories wait for their after-store hooks, since then
        (hooks_done clears it)."""
        self._write_many(tx, scope, batch, now=now, passive=passive, active=active, answer=False,
                         hooks_pending_at=hooks_pending_at)

    def hold_since_in(self, tx: Tx, scope: Scope, memory_id: str, valid_from: datetime) -> None:
        """A stored memory's validity starts at valid_from (a correction takes its corrected memory's)."""
        tx.run("memory/hold_since", {**scope_params(scope), "id": memory_id, "valid_from": time_param(valid_from)})

    def hooks_done_in(self, tx: Tx, scope: Scope, ids: Sequence[str]) -> None:
        """The after-store hooks of these memories went through (in the hooks' own transaction when they ran
        in one: the mark goes with their writes)."""
        if ids:
            tx.run("memory/hooks_done", {"tenant": scope.tenant, "user_id": scope.user_id, "ids": list(ids)})

    def hooks_mark_in(self, tx: Tx, scope: Scope, ids: Sequence[str], *, at: datetime) -> None:
        """The after-store hooks of these stored memories are to run again (addTriple gave one a triple), pending
        since `at` unless already pending: in the transaction of what calls for them, as remember_in's mark."""
        if ids:
            tx.run("memory/hooks_mark", {"tenant": scope.tenant, "user_id": scope.user_id, "ids": list(ids),
                                         "at": time_param(at)})

    def hooks_pending(self, *, before: datetime, tenant: str | None = None, user_id: str | None = None,
                      limit: int = 1000) -> list[PendingHooks]:
        """Memories whose after-store hooks were left unfinished since before `before`, oldest first."""
        rows = self._store.read("memory/hooks_pending", {"before": time_param(before), "tenant": tenant,
                                                          "user_id": user_id, "limit": limit})
        return [PendingHooks(memory=memory_from_row(r["memory"]), embedding=[float(x) for x in r["embedding"] or []])
                for r in rows]

    def hooks_pending_of(self, scope: Scope, ids: Sequence[str]) -> list[PendingHooks]:
        """Which of these memories of one user still wait for their after-store hooks, in the order they were said
        (an import runs its new memories' hooks right after it wrote them, with the mark ingest's resume reads)."""
        if not ids:
            return []
        rows = self._store.read("memory/hooks_pending_of", {**scope_params(scope), "ids": list(ids)})
        return [PendingHooks(memory=memory_from_row(r["memory"]), embedding=[float(x) for x in r["embedding"] or []])
                for r in rows]

    def _write_many(
        self, tx: Tx, scope: Scope, batch: Sequence[NewMemory], *, now: datetime | Sequence[datetime],
        passive: float | Sequence[float], active: float | Sequence[float], answer: bool,
        hooks_pending_at: datetime | None = None,
    ) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
        """memory/remember's rows by id, and each id's first position in batch. NotFound when an id belongs to
        another tenant or user."""
        times = [now] * len(batch) if isinstance(now, datetime) else list(now)
        passives = [float(passive)] * len(batch) if isinstance(passive, int | float) else list(passive)
        actives = [float(active)] * len(batch) if isinstance(active, int | float) else list(active)
        if not len(times) == len(passives) == len(actives) == len(batch):
            raise ValueError("one time and weight per memory")
        if not batch:
            return {}, {}
        # Each id is written once, by its first occurrence (rows of one statement would all see a memory
        # new that an earlier row created); a later occurrence answers as a repeat.
        first: dict[str, int] = {}
        for i, new in enumerate(batch):
            first.setdefault(new.id, i)
        params = {
            "tenant": scope.tenant,
            "user_id": scope.user_id,
            "scope_token": scope_token(scope.tenant, scope.user_id),
            "passive_share": self._shares.passive,
            "active_share": self._shares.active,
            "preset_share": self._shares.preset,
            "labels": TYPE_LABELS,
            "rows": [self._row(batch[i], now=times[i], passive=passives[i], active=actives[i]) for i in first.values()],
            "answer": answer,
            "hooks_pending_at": time_param(hooks_pending_at) if hooks_pending_at is not None else None,
        }
        # Rows the tenant/user guard dropped (ids of another tenant or user) are missing from the answer.
        found = {r["memory"]["id"]: r for r in tx.run("memory/remember", params)[0]["rows"]}
        for new in batch:
            if new.id not in found:
                # The id exists under another tenant or user: never touch it, never reveal it.
                raise NotFound(f"memory {new.id} not found")
        return found, first

    @staticmethod
    def _row(new: NewMemory, *, now: datetime, passive: float, active: float) -> dict[str, object]:
        return {
            "id": new.id,
            "text": new.text,
            "text_key": text_key(new.text),
            "type": new.type.value,
            "tier": new.tier.value,
            "passive": passive,
            "active": active,
            "preset": new.preset,
            "preset_kind": new.preset_kind.value,
            "classified_by": new.classified_by.value,
            "confidence": new.confidence,
            "session_id": new.provenance.session_id,
            "turn": new.provenance.turn,
            "device_id": new.provenance.device_id,
            "episode_id": new.provenance.episode_id,
            "embedding": Floats(new.embedding),
            "now": time_param(now),
        }

    def get(self, scope: Scope, memory_id: str) -> Memory | None:
        rows = self._store.read("memory/get", {**scope_params(scope), "id": memory_id})
        return memory_from_row(rows[0]["memory"]) if rows else None

    def page(
        self,
        scope: Scope,
        *,
        types: Sequence[MemoryType] | None = None,
        tiers: Sequence[Tier] | None = None,
        limit: int = 20,
        after: str | None = None,
        include_history: bool = False,
    ) -> Page:
        after_created_at, after_id = decode_cursor(after) if after else (None, None)
        params = {
            **scope_params(scope),
            "types": [t.value for t in types] if types else None,
            "tiers": [t.value for t in tiers] if tiers else None,
            "include_history": include_history,
            "after_created_at": after_created_at,
            "after_id": after_id,
            "limit": limit + 1,  # one more tells whether a next page exists
        }
        rows = self._store.read("memory/list", params)
        items = [memory_from_row(r["memory"]) for r in rows[:limit]]
        next_cursor = None
        if len(rows) > limit and items:
            last = items[-1]
            next_cursor = encode_cursor(last.created_at, last.id)
        return Page(items=items, next_cursor=next_cursor)

    def forget(self, scope: Scope, memory_id: str, *, confirm_locked: bool) -> bool:
        """Delete a memory; False when it exists but is locked and the user did not confirm. The same statement
        deletes the user's conflicts naming it, the user's entities left with nothing after it, and the user's
        maintenance entries of the runs that changed it (cypher/memory/forget.cypher)."""
        rows = self._store.write(
            "memory/forget", {**scope_params(scope), "id": memory_id, "confirm_locked": confirm_locked}
        )
        if rows:
            return True
        if self.get(scope, memory_id) is None:
            raise NotFound(f"memory {memory_id} not found")
        return False

    def taken_back(self, scope: Scope, session_id: str, turn: int) -> list[str]:
        """The memories made from the user's last turn before `turn` in the session (cypher/memory/taken_back)."""
        rows = self._store.read("memory/taken_back", {**scope_params(scope), "session_id": session_id, "turn": turn})
        return [str(r["id"]) for r in rows]

    def count(self, scope: Scope) -> int:
        return int(self._store.read("memory/count_for_user", scope_params(scope))[0]["n"])

    def vector_search(
        self, scope: Scope, embedding: Sequence[float], *, k: int, exact: bool, oversample: int = 20
    ) -> list[ScoredMemory]:
        """Nearest memories by cosine. exact=True scans the user's own memories; otherwise the global
        vector index is asked for k * oversample candidates and filtered to this user."""
        params = {**scope_params(scope), "embedding": Floats(embedding), "k": k}
        if exact:
            rows = self._store.read("memory/exact_search", params)
        else:
            params["candidates"] = max(k * oversample, 100)
            rows = self._store.read("memory/vector_search", params, dimensions=self._dimensions)
        return [ScoredMemory(memory=memory_from_row(r["memory"]), score=float(r["score"])) for r in rows]
