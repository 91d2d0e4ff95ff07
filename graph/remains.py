"""The remains of superseded memories in the store (cypher/remains/*): what deciding them reads, the tie of stored
remains to their loser, and which losers were looked at (bmam/usecases/remains.py decides and stores them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.model import Scope
from graph.records import time_param
from graph.store import GraphStore, Tx


@dataclass(frozen=True, slots=True)
class WinnerFact:
    subject: str
    predicate: str
    object: str


@dataclass(frozen=True, slots=True)
class RemainsContext:
    """A loser as deciding its remains needs it: its text, whether it is superseded, whether its remains are
    stored already, and what its winner states."""

    text: str
    superseded: bool
    kept: bool
    winner: tuple[WinnerFact, ...]


@dataclass(frozen=True, slots=True)
class Unchecked:
    """A superseded memory whose remains were never looked for, and the memory that superseded it."""

    scope: Scope
    loser_id: str
    winner_id: str


class RemainsRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def context(self, scope: Scope, loser_id: str, winner_id: str, remains_id: str) -> RemainsContext | None:
        """remains/context: None when the loser is missing (forgotten since) or someone else's."""
        rows = self._store.read("remains/context", {**_scope(scope), "loser_id": loser_id, "winner_id": winner_id,
                                                    "remains_id": remains_id})
        if not rows:
            return None
        r = rows[0]
        return RemainsContext(text=r["text"], superseded=bool(r["superseded"]), kept=bool(r["kept"]),
                              winner=tuple(WinnerFact(w["subject"], w["predicate"], w["object"])
                                           for w in r["winner"] if w["predicate"] is not None))

    def link_in(self, tx: Tx, scope: Scope, remains_id: str, loser_id: str, *, now: datetime) -> bool:
        """Tie remains just stored in tx to their loser (remains/link: REMAINS_OF, remains_of, the loser's turns and
        mentions; the loser marked checked). False when either memory is missing."""
        return bool(tx.run("remains/link", {**_scope(scope), "id": remains_id, "loser_id": loser_id,
                                            "now": time_param(now)}))

    def checked(self, scope: Scope, loser_id: str, *, now: datetime) -> None:
        """Nothing remains of this loser: the sweep passes it by."""
        self._store.write("remains/checked", {**_scope(scope), "loser_id": loser_id, "now": time_param(now)})

    def unchecked(self, *, tenant: str | None = None, user_id: str | None = None,
                  limit: int = 500) -> list[Unchecked]:
        """Superseded memories whose remains were never looked for, oldest supersession first."""
        rows = self._store.read("remains/unchecked", {"tenant": tenant, "user_id": user_id, "limit": limit})
        return [Unchecked(Scope(tenant=r["tenant"], user_id=r["user_id"]), r["loser_id"], r["winner_id"])
                for r in rows]


def _scope(scope: Scope) -> dict[str, str]:
    return {"tenant": scope.tenant, "user_id": scope.user_id}
