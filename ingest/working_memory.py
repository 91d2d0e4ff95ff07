"""Working memory: the last N turns of each session, held in the service, bounded in bytes (LRU) and
in time (idle sessions expire).

Per (tenant, user, session) the service keeps the last N turns (default 5). A session neither recorded
to nor read for longer than the idle TTL (default 2 hours) is dropped: DESIGN.md has working memory
per session and short-lived, and without expiry every session ever seen since the start stays until
the byte budget pushes it out, so a busy server sits at the budget and the daily check's headroom
never recovers. All sessions together stay under a byte budget (default 200 MB): when it is exceeded,
whole sessions are evicted, least recently used first, down to a target below the budget (default
75 %), so that after an eviction the quick check's headroom line (> 20 % free) holds again; a single
session larger than the budget keeps only its newest turns that fit.
The episodes in Neo4j are the truth: after a restart, an eviction or an expiry a session is rebuilt
lazily, on its next access, from its last N episodes, so dropping one loses nothing a caller can ask
for, only this process's copy. Turns are keyed by their turn index, so recording a turn twice (an
idempotent re-ingest) or recording while a rebuild reads the store gives the same result.
Thread-safe: one lock guards the table; the store is read outside it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from graph.model import Scope


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn held in working memory."""

    speaker: str
    text: str
    at: datetime
    turn: int
    episode_id: str


# Reads the last n turns of a session from the store, oldest first.
TurnLoader = Callable[[Scope, str, int], Sequence[Turn]]

# What a held turn costs beyond its strings (object headers, the datetime, the dict slot), measured
# roughly with sys.getsizeof on CPython 3.11; a session entry costs _SESSION_OVERHEAD more.
_TURN_OVERHEAD = 360
_SESSION_OVERHEAD = 600

DEFAULT_IDLE_TTL = timedelta(hours=2)
# The fraction of the byte budget an eviction lowers the use to: below the quick check's line (headroom
# > 20 %, i.e. under 80 % used) with a margin, so the sessions recorded right after do not cross it again.
DEFAULT_EVICT_TO = 0.75
_EVICT_MARGIN = 0.05


def eviction_target(min_headroom: float) -> float:
    """The fraction of the budget to evict down to for a check that wants more than `min_headroom` free:
    _EVICT_MARGIN under its line (0.75 for the default 0.2), never below 0."""
    return max(0.0, 1.0 - min_headroom - _EVICT_MARGIN)


def turn_bytes(t: Turn) -> int:
    """An estimate of the memory one held turn takes (UTF-8 size of its strings plus overhead)."""
    return _TURN_OVERHEAD + len(t.text.encode("utf-8")) + len(t.speaker) + len(t.episode_id)


class WorkingMemoryStats(NamedTuple):
    bytes_used: int
    bytes_limit: int
    sessions: int

    @property
    def headroom(self) -> float:
        """The free fraction of the byte budget, in [0, 1]."""
        return max(0.0, 1.0 - self.bytes_used / self.bytes_limit) if self.bytes_limit else 0.0


_Key = tuple[str, str, str]  # (tenant, user_id, session_id)


@dataclass
class _Session:
    # When it was last recorded to or read: the table is kept in this order (oldest first), so expiry
    # pops from the front and costs O(expired sessions), not O(sessions held).
    last_used: datetime
    turns: dict[int, Turn] = field(default_factory=dict)
    loaded: bool = False  # rebuilt from the store (else it holds only turns recorded since)
    size: int = _SESSION_OVERHEAD


class WorkingMemory:
    def __init__(self, loader: TurnLoader, *, turns_per_session: int = 5, max_bytes: int = 200 * 1024 * 1024,
                 idle_ttl: timedelta = DEFAULT_IDLE_TTL, evict_to: float = DEFAULT_EVICT_TO,
                 clock: Callable[[], datetime]) -> None:
        """clock: the service's now (the container passes its Clock's; ingest has no clock of its own)."""
        if turns_per_session < 1 or max_bytes < 1:
            raise ValueError("turns_per_session and max_bytes must be positive")
        if idle_ttl <= timedelta(0):
            raise ValueError("idle_ttl must be positive")
        if not 0.0 <= evict_to <= 1.0:
            raise ValueError("evict_to must be a fraction of the budget, in [0, 1]")
        self._loader = loader
        self.turns_per_session = turns_per_session
        self.max_bytes = max_bytes
        self.idle_ttl = idle_ttl
        self._evict_to_bytes = int(max_bytes * evict_to)
        self._now = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[_Key, _Session] = OrderedDict()
        self._bytes = 0

    # ----- reading ----------------------------------------------------------------------

    def recent(self, scope: Scope, session_id: str, n: int | None = None) -> list[Turn]:
        """The last n turns of the session (default and at most turns_per_session), oldest first. A larger
        n gets them all (internal callers); the workingMemory query refuses it (resolvers/ingest.py)."""
        limit = self.turns_per_session if n is None else max(0, min(n, self.turns_per_session))
        key = (scope.tenant, scope.user_id, session_id)
        with self._lock:
            self._expire(self._now())
            entry = self._sessions.get(key)
            loaded = entry is not None and entry.loaded
        if not loaded:
            stored = list(self._loader(scope, session_id, self.turns_per_session))
            with self._lock:
                self._merge(key, stored, loaded=True)
        with self._lock:
            entry = self._sessions.get(key)
            if entry is None:  # larger than the whole budget on its own
                return []
            self._touch(key, entry, self._now())
            turns = [entry.turns[i] for i in sorted(entry.turns)]
        return turns[-limit:] if limit else []

    def stats(self) -> WorkingMemoryStats:
        """What is held by live sessions: expired ones are dropped first, so the quick check and the
        workingMemory query measure only sessions still in use."""
        with self._lock:
            self._expire(self._now())
            return WorkingMemoryStats(self._bytes, self.max_bytes, len(self._sessions))

    def headroom(self) -> float:
        """The free fraction of the byte budget (maintenance checks it stays above 20%)."""
        return self.stats().headroom

    # ----- writing ----------------------------------------------------------------------

    def record(self, scope: Scope, session_id: str, turns: Iterable[Turn]) -> None:
        """Turns just stored as episodes. A session not held yet is not read from the store here: its
        first access rebuilds it and merges these in."""
        key = (scope.tenant, scope.user_id, session_id)
        with self._lock:
            self._merge(key, list(turns), loaded=False)

    def drop(self, scope: Scope, session_id: str) -> None:
        """Forget a session (its episodes stay in the store)."""
        with self._lock:
            entry = self._sessions.pop((scope.tenant, scope.user_id, session_id), None)
            if entry is not None:
                self._bytes -= entry.size

    def forget_user(self, scope: Scope) -> None:
        """Drop every session of the user (forgetUser: their episodes are gone from the store too)."""
        with self._lock:
            for key in [k for k in self._sessions if k[:2] == (scope.tenant, scope.user_id)]:
                self._bytes -= self._sessions.pop(key).size

    def clear(self) -> None:
        with self._lock:
            self._sessions.clear()
            self._bytes = 0

    # ----- internals (lock held) -------------------------------------------------------

    def _expire(self, now: datetime) -> None:
        """Drop the sessions idle for longer than the TTL. Only the front of the table is looked at: it is
        in last-use order, so the first session still in use ends the sweep. A clock set back only delays
        expiry (a later session with an earlier stamp waits behind the one in front of it)."""
        cutoff = now - self.idle_ttl
        while self._sessions:
            key, entry = next(iter(self._sessions.items()))
            if entry.last_used >= cutoff:
                return
            del self._sessions[key]
            self._bytes -= entry.size

    def _touch(self, key: _Key, entry: _Session, now: datetime) -> None:
        entry.last_used = now
        self._sessions.move_to_end(key)

    def _merge(self, key: _Key, turns: Sequence[Turn], *, loaded: bool) -> None:
        now = self._now()
        self._expire(now)
        entry = self._sessions.get(key)
        if entry is None:
            entry = _Session(last_used=now)
            self._sessions[key] = entry
            self._bytes += entry.size
        entry.loaded = entry.loaded or loaded
        for t in turns:
            old = entry.turns.get(t.turn)
            if old is not None:
                entry.size -= turn_bytes(old)
                self._bytes -= turn_bytes(old)
            entry.turns[t.turn] = t
            entry.size += turn_bytes(t)
            self._bytes += turn_bytes(t)
        # keep the newest N
        for index in sorted(entry.turns)[: max(0, len(entry.turns) - self.turns_per_session)]:
            gone = entry.turns.pop(index)
            entry.size -= turn_bytes(gone)
            self._bytes -= turn_bytes(gone)
        self._touch(key, entry, now)
        self._fit(key)

    def _fit(self, keep: _Key) -> None:
        """Over the budget: evict least recently used sessions down to the eviction target (not just to the
        budget, which would leave the headroom at ~0 and the quick check failing until the next eviction);
        the session just touched goes last, losing its oldest turns first, and only as far as the budget."""
        if self._bytes > self.max_bytes:
            # `keep` was just moved to the end, so the front is never it while another session is held.
            while self._bytes > self._evict_to_bytes and len(self._sessions) > 1:
                _, victim = self._sessions.popitem(last=False)
                self._bytes -= victim.size
        entry = self._sessions.get(keep)
        while entry is not None and self._bytes > self.max_bytes:
            if entry.turns:
                gone = entry.turns.pop(min(entry.turns))
                entry.size -= turn_bytes(gone)
                self._bytes -= turn_bytes(gone)
            else:
                self._bytes -= self._sessions.pop(keep).size
                entry = None
