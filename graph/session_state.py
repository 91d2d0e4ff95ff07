"""Session state kept in Neo4j so every worker and machine shares it (issue 8): what the last recalls of a
session surfaced, for anti-repetition. Working memory needs nothing here: it reads the episodes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from graph.ids import derived_id
from graph.model import Scope
from graph.store import GraphStore


def session_recall_id(scope: Scope, session_id: str) -> str:
    return derived_id("sr", scope, session_id)


class SessionStateRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def surfaced(self, scope: Scope, session_id: str) -> list[tuple[list[str], list[str]]]:
        """(memory ids, dominant terms) of the session's recorded recalls, oldest first."""
        rows = self._store.read("session/surfaced_load", {"tenant": scope.tenant, "user_id": scope.user_id,
                                                          "id": session_recall_id(scope, session_id)})
        out: list[tuple[list[str], list[str]]] = []
        for text in rows[0]["turns"] if rows else []:
            turn = json.loads(text)
            out.append(([str(i) for i in turn.get("ids", [])], [str(t) for t in turn.get("terms", [])]))
        return out

    def append_surfaced(self, scope: Scope, session_id: str, ids: Sequence[str], terms: Sequence[str], *,
                        keep: int, now: datetime) -> None:
        """A turn that surfaced nothing only extends a history that exists (cypher/session/surfaced_extend):
        leading empty turns change no damping, and a recall for a user with nothing stored must write nothing."""
        turn = json.dumps({"ids": sorted(ids), "terms": sorted(terms)}, ensure_ascii=False)
        statement = "session/surfaced_append" if ids else "session/surfaced_extend"
        self._store.write(statement, {
            "tenant": scope.tenant, "user_id": scope.user_id, "session_id": session_id,
            "id": session_recall_id(scope, session_id), "turn": turn, "keep": max(1, keep), "now": now})
