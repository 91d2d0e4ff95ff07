"""The remains of superseded memories in the store (cypher/remains/*): what deciding them reads, the tie of stored
remains to their loser, and which losers were looked at (bmam/usecases/remains.py decides and stores them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.model import Memory, Scope, scope_params
from graph.records import memory_from_row, time_param
from graph.store import GraphStore, Tx


@dataclass(frozen=True, slots=True)
class WinnerFact:
    subject: str
    predicate: str
    object: str
    polarity: int = 1


@dataclass(frozen=True, slots=True)
class RemainsContext:
    """A loser as deciding its remains needs it: the memory, its remains if stored already, what its winner
    states, and what the settlement took from its active part (None: settled before that was recorded)."""

    loser: Memory
    kept: Memory | None
    winner: tuple[WinnerFact, ...]
    penalty: float | None = None
    winner_text: str = ""  # what the winner says (a pet's death ends the fact naming the pet: ingest/remains.py)


@dataclass(frozen=True, slots=True)
class Unchecked:
    """A superseded memory whose remains were never looked for, and the memory that superseded it."""

    scope: Scope
    loser_id: str
    winner_id: str


class RemainsRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def contexts(self, scope: Scope, items: Sequence[tuple[str, str, str]]) -> dict[str, RemainsContext]:
        """remains/context for (loser id, winner id, remains id) items, by loser id: a loser missing (forgotten
        since) or someone else's is left out."""
        if not items:
            return {}
        rows = self._store.read("remains/context", {**scope_params(scope), "items": [
            {"loser_id": loser, "winner_id": winner, "remains_id": remains} for loser, winner, remains in items]})
        out: dict[str, RemainsContext] = {}
        for r in rows:
            loser = memory_from_row(r["loser"])
            out[loser.id] = RemainsContext(
                loser=loser, kept=memory_from_row(r["kept"]) if r["kept"] is not None else None,
                winner=tuple(WinnerFact(w["subject"], w["predicate"], w["object"], int(w["polarity"] or 1))
                             for w in r["winner"] if w["predicate"] is not None),
                penalty=r["penalty"], winner_text=r["winner_text"] or "")
        return out

    def link_in(self, tx: Tx, scope: Scope, pairs: Sequence[tuple[str, str]], *, now: datetime) -> dict[str, Memory]:
        """Tie remains just stored in tx to their losers ((remains id, loser id) pairs; remains/link: REMAINS_OF,
        remains_of, the loser's turns, mentions and place; the losers marked checked): the remains as they are now,
        by id."""
        rows = tx.run("remains/link", {**scope_params(scope), "now": time_param(now),
                                       "pairs": [{"id": r, "loser_id": loser} for r, loser in pairs]})
        return {m.id: m for m in (memory_from_row(row["memory"]) for row in rows)}

    def checked(self, scope: Scope, loser_ids: Sequence[str], *, now: datetime) -> None:
        """Nothing remains of these losers: the sweep passes them by."""
        if loser_ids:
            self._store.write_tx(lambda tx: self.checked_in(tx, scope, loser_ids, now=now))

    def checked_in(self, tx: Tx, scope: Scope, loser_ids: Sequence[str], *, now: datetime) -> None:
        """checked in the caller's transaction (a correction: nothing of what the user corrected remains)."""
        if loser_ids:
            tx.run("remains/checked", {**scope_params(scope), "loser_ids": list(loser_ids), "now": time_param(now)})

    def unchecked(self, *, tenant: str | None = None, user_id: str | None = None,
                  limit: int = 500) -> list[Unchecked]:
        """Superseded memories whose remains were never looked for, oldest supersession first."""
        rows = self._store.read("remains/unchecked", {"tenant": tenant, "user_id": user_id, "limit": limit})
        return [Unchecked(Scope(tenant=r["tenant"], user_id=r["user_id"]), r["loser_id"], r["winner_id"])
                for r in rows]
