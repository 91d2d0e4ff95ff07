"""Anti-repetition within a session: what recall surfaced in the last few turns is damped, so the
assistant does not bring up the same thing again and again.

Two rules, per (tenant, user, session), one "turn" per recall made with that session:
- a memory surfaced in any of the last `window_turns` turns scores * `memory_damping`;
- a term that dominated the surfaced memories (found in at least `dominance` of them) in each of the last
  `term_run` consecutive turns damps every candidate containing it by `term_damping`, unless the input
  itself names that term (the user asked for it, the assistant is not pushing it), and unless those turns
  surfaced one and the same memory alone: then every word of it "dominated" (words such as "last" or "job"
  would damp unrelated memories), and that memory is damped by the first rule.
The two multiply. State lives in the process, bounded: at most `max_sessions` sessions (least recently
used dropped first), each keeping only the turns the rules look at.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.scoring import terms

SessionKey = tuple[str, str, str]  # (tenant, user_id, session_id)


@dataclass(frozen=True, slots=True)
class RepetitionParams:
    window_turns: int = 3
    memory_damping: float = 0.5
    term_run: int = 2
    term_damping: float = 0.7
    dominance: float = 0.5
    max_terms_per_turn: int = 32
    max_sessions: int = 10_000


@dataclass(frozen=True, slots=True)
class SurfacedTurn:
    """What one recall of the session surfaced: memory ids and the terms that dominated them."""

    ids: frozenset[str]
    dominant_terms: frozenset[str]


@dataclass(frozen=True, slots=True)
class Damping:
    factor: float
    reason: str


def dominant_terms(texts: Sequence[str], *, dominance: float, limit: int) -> frozenset[str]:
    """Terms found in at least `dominance` of the texts (the most shared first, at most `limit`)."""
    if not texts:
        return frozenset()
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(terms(text, limit=256)))
    needed = max(1.0, dominance * len(texts))
    ranked = sorted((t for t, n in counts.items() if n >= needed), key=lambda t: (-counts[t], t))
    return frozenset(ranked[:limit])


_NAME_IN_INPUT = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z'’-]+")


def named_in_input(query: str) -> frozenset[str]:
    """The names an input says: capitalised Latin words past its first word, as terms ("Where does Emma live?" ->
    emma); the first word of a sentence and "I" are no names."""
    return frozenset(t for w in _NAME_IN_INPUT.findall(query.strip()) if w != "I"
                     for t in terms(w.removesuffix("'s").removesuffix("’s")))


class RepetitionTracker:
    """Thread-safe, bounded per-session memory of what recall surfaced."""

    def __init__(self, params: RepetitionParams) -> None:
        if params.window_turns < 0 or params.term_run < 1 or params.max_sessions < 1:
            raise ValueError("window_turns >= 0, term_run >= 1 and max_sessions >= 1")
        self.params = params
        self._keep = max(params.window_turns, params.term_run, 1)
        self._lock = threading.Lock()
        self._sessions: OrderedDict[SessionKey, deque[SurfacedTurn]] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _history(self, key: SessionKey) -> list[SurfacedTurn]:
        with self._lock:
            turns = self._sessions.get(key)
            if turns is None:
                return []
            self._sessions.move_to_end(key)
            return list(turns)

    def damping(self, key: SessionKey, candidates: Iterable[tuple[str, str]], query: str,
                names: Iterable[str] = ()) -> dict[str, Damping]:
        """Multipliers (< 1) for the candidates (id, text) the session surfaced recently; others absent. A memory
        holding a name the input says (named_in_input, and `names`: the entity names the caller found in it, a
        Chinese name too: 朵朵, 王姐) is not damped for having surfaced: the user asks for it."""
        history = self._history(key)
        if not history:
            return {}
        p = self.params
        recent_ids: set[str] = set()
        for turn in history[-p.window_turns:] if p.window_turns else []:
            recent_ids |= turn.ids
        run = history[-p.term_run:]
        pushed: frozenset[str] = frozenset()
        if len(run) == p.term_run and len(frozenset().union(*(t.ids for t in run))) > 1:
            pushed = frozenset.intersection(*(t.dominant_terms for t in run)) - set(terms(query))
        named = named_in_input(query) | frozenset(t for n in names for t in terms(n))
        out: dict[str, Damping] = {}
        for memory_id, text in candidates:
            factor, reasons = 1.0, []
            recent = memory_id in recent_ids
            held = set(terms(text, limit=256)) if pushed or (recent and named) else set()
            # "Where does Emma live?" after Emma's memory came up: the user asks for it by name, no push of ours
            if recent and not named & held:
                factor *= p.memory_damping
                reasons.append(f"surfaced in the last {p.window_turns} turns")
            if pushed:
                hit = sorted(pushed & held)
                if hit:
                    factor *= p.term_damping
                    reasons.append(f"'{hit[0]}' dominated the last {p.term_run} turns")
            if factor < 1.0:
                out[memory_id] = Damping(factor=factor, reason="damped: " + " and ".join(reasons))
        return out

    def record(self, key: SessionKey, surfaced: Sequence[tuple[str, str]]) -> SurfacedTurn:
        """Close one turn of the session with what it surfaced (possibly nothing)."""
        p = self.params
        turn = SurfacedTurn(
            ids=frozenset(i for i, _ in surfaced),
            dominant_terms=dominant_terms([t for _, t in surfaced], dominance=p.dominance,
                                          limit=p.max_terms_per_turn),
        )
        with self._lock:
            turns = self._sessions.get(key)
            if turns is None:
                turns = deque(maxlen=self._keep)
                self._sessions[key] = turns
            turns.append(turn)
            self._sessions.move_to_end(key)
            while len(self._sessions) > p.max_sessions:
                self._sessions.popitem(last=False)
        return turn

    def forget_session(self, key: SessionKey) -> bool:
        """Drop one session (forgetSession); whether it was held."""
        with self._lock:
            return self._sessions.pop(key, None) is not None

    def forget_user(self, tenant: str, user_id: str) -> int:
        """Drop every session of one user (erasure); how many were dropped."""
        with self._lock:
            keys = [k for k in self._sessions if k[0] == tenant and k[1] == user_id]
            for k in keys:
                del self._sessions[k]
        return len(keys)
