"""Session state shared by every worker and machine: working memory and anti-repetition read through to
the store on every access, instead of being held in one process.

Why (README "Operations: faults, restarts, scale, several machines"): with two uvicorn workers, or two
machines behind a load balancer, consecutive requests of one session land on different processes. A
process-local cache then answers from what that process happened to see: the turns ingested through
the other worker are missing, what recall surfaced there is not damped here, and a user erased through
one worker is still held by the other. Sticky sessions would need a load balancer that reads the session
id out of the GraphQL body, and they still lose the state on a restart. Reading the state from Neo4j
costs one small indexed read per access (and one small write per recall with a session), so every
process serves every session and a restart or a crash loses nothing.

- SharedWorkingMemory: `recent` reads the session's last N episodes (the truth, written by ingest in the
  same transaction as the turn); nothing is held, so the byte budget is never used (headroom 1.0).
- SharedRepetitionTracker: what each recall of a session surfaced is appended to the session's history
  in the store (the last few turns only); damping reads it back.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from graph.model import Scope
from graph.session_state import SessionStateRepository
from ingest.repetition import RepetitionParams, RepetitionTracker, SessionKey, SurfacedTurn, dominant_terms
from ingest.working_memory import (
    DEFAULT_EVICT_TO,
    DEFAULT_IDLE_TTL,
    Turn,
    TurnLoader,
    WorkingMemory,
    WorkingMemoryStats,
)


class SharedWorkingMemory(WorkingMemory):
    """Working memory read through to the episodes on every access; holds nothing in the process."""

    def __init__(self, loader: TurnLoader, *, turns_per_session: int = 5, max_bytes: int = 200 * 1024 * 1024,
                 idle_ttl: timedelta = DEFAULT_IDLE_TTL, evict_to: float = DEFAULT_EVICT_TO,
                 clock: Callable[[], datetime]) -> None:
        # The same arguments as the local kind (the container builds either); expiry and eviction have
        # nothing to act on here, as nothing is held.
        super().__init__(loader, turns_per_session=turns_per_session, max_bytes=max_bytes, idle_ttl=idle_ttl,
                         evict_to=evict_to, clock=clock)
        self._read = loader

    def recent(self, scope: Scope, session_id: str, n: int | None = None) -> list[Turn]:
        limit = self.turns_per_session if n is None else max(0, min(n, self.turns_per_session))
        if not limit:
            return []
        turns = sorted(self._read(scope, session_id, limit), key=lambda t: t.turn)
        return turns[-limit:]

    def record(self, scope: Scope, session_id: str, turns: Iterable[Turn]) -> None:
        """Nothing to do: the turns are episodes in the store already."""

    def drop(self, scope: Scope, session_id: str) -> None:
        """Nothing is held."""

    def clear(self) -> None:
        """Nothing is held."""

    def stats(self) -> WorkingMemoryStats:
        return WorkingMemoryStats(0, self.max_bytes, 0)


class SurfacedHistory(Protocol):
    """Where a session's recall history lives (graph/session_state.py)."""

    def load(self, key: SessionKey) -> list[SurfacedTurn]:
        """The session's recorded turns, oldest first."""
        ...

    def append(self, key: SessionKey, turn: SurfacedTurn, keep: int) -> None:
        """Add one turn, keeping only the newest `keep` (atomically: concurrent appends are all kept)."""
        ...


class SharedRepetitionTracker(RepetitionTracker):
    """Anti-repetition with its per-session history in the store: the same damping rules
    (ingest/repetition.py), the state shared by every process."""

    def __init__(self, params: RepetitionParams, history: SurfacedHistory) -> None:
        super().__init__(params)
        self._store = history
        self._turns_kept = max(params.window_turns, params.term_run, 1)
        # Only which sessions this process recorded (bounded like the local tracker), for len() and erasure.
        self._recorded: OrderedDict[SessionKey, None] = OrderedDict()
        self._keys_lock = threading.Lock()

    def __len__(self) -> int:
        """Sessions this process recorded a recall of (their history itself lives in the store)."""
        with self._keys_lock:
            return len(self._recorded)

    def _history(self, key: SessionKey) -> list[SurfacedTurn]:
        return self._store.load(key)[-self._turns_kept:]

    def record(self, key: SessionKey, surfaced: Sequence[tuple[str, str]]) -> SurfacedTurn:
        p = self.params
        turn = SurfacedTurn(
            ids=frozenset(i for i, _ in surfaced),
            dominant_terms=dominant_terms([t for _, t in surfaced], dominance=p.dominance,
                                          limit=p.max_terms_per_turn),
        )
        self._store.append(key, turn, self._turns_kept)
        with self._keys_lock:
            self._recorded[key] = None
            self._recorded.move_to_end(key)
            while len(self._recorded) > self.params.max_sessions:
                self._recorded.popitem(last=False)
        return turn

    def forget_session(self, key: SessionKey) -> bool:
        """forgetSession erases the stored history with the session's other nodes; here only its key goes."""
        with self._keys_lock:
            held = key in self._recorded
            self._recorded.pop(key, None)
        return held

    def forget_user(self, tenant: str, user_id: str) -> int:
        """forgetUser erases the stored history with the user's other nodes; here only the keys go."""
        with self._keys_lock:
            keys = [k for k in self._recorded if k[0] == tenant and k[1] == user_id]
            for k in keys:
                del self._recorded[k]
        return len(keys)


class StoreSurfacedHistory:
    """SurfacedHistory on graph/session_state.py (one (:SessionRecall) node per session)."""

    def __init__(self, repository: SessionStateRepository, clock: Callable[[], datetime]) -> None:
        self._repo = repository
        self._now = clock

    def load(self, key: SessionKey) -> list[SurfacedTurn]:
        tenant, user_id, session_id = key
        return [SurfacedTurn(ids=frozenset(ids), dominant_terms=frozenset(terms))
                for ids, terms in self._repo.surfaced(Scope(tenant, user_id), session_id)]

    def append(self, key: SessionKey, turn: SurfacedTurn, keep: int) -> None:
        tenant, user_id, session_id = key
        self._repo.append_surfaced(Scope(tenant, user_id), session_id, sorted(turn.ids),
                                   sorted(turn.dominant_terms), keep=keep, now=self._now())
