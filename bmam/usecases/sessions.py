"""Use-cases of one session of a user: its stored turns a page at a time (turns), and forgetSession, the erasure of
the conversation: its turns, its Session node, its anti-repetition state and whatever this process holds for it
(the session hooks), and with memories FORGET the memories derived from it alone, each through the one-memory forget.

Why a session's memories stay by default (KEEP): a memory is the user's, not the conversation's (DESIGN.md
"Identity": the session is provenance); an app that erases a chat log keeps what the user told it unless it asks.
Why FORGET keeps a memory also derived from another session's turns: the other conversation said it too, and
forgetting this one does not unsay that. Why it keeps a locked core memory: core is locked, only the user changes it,
and forgetting one takes an explicit confirm per memory (`forget(confirm: true)`); a session's erasure is no such
confirm. Both are counted in the receipt (sharedKept, lockedKept)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Protocol

from bmam import validate
from bmam.clock import Clock
from graph.episodes import EpisodeRepository, SessionTurn
from graph.erasure import DerivedMemory, ErasureRepository
from graph.errors import BadInput, Conflict, NotFound
from graph.ids import log_name
from graph.model import Scope
from graph.paging import Paged

log = logging.getLogger(__name__)


class SessionMemories(Enum):
    """What forgetSession does with the memories derived from the session's turns."""

    KEEP = "KEEP"  # they stay; their source.sessionId is provenance only
    FORGET = "FORGET"  # each derived from this session alone is forgotten, a locked core one aside


@dataclass(frozen=True, slots=True)
class SessionErasureReceipt:
    """What forgetSession removed of one session and the re-query proving none of its turns or nodes is left.
    Counts are this run's: a run that finishes a stopped one counts what was left."""

    tenant: str
    user_id: str
    session_id: str
    memories: SessionMemories
    turns_removed: int
    nodes_removed: int  # turns, the Session node, the anti-repetition state
    relationships_removed: int
    forgotten_memory_ids: tuple[str, ...]
    shared_kept: int  # derived from another session's turns too (kept by FORGET)
    locked_kept: int  # locked core memories derived from this session alone (kept by FORGET)
    memories_kept: int  # every memory derived from the session that stays (all of them with KEEP)
    remaining_turns: int
    remaining_nodes: int
    at: datetime

    @property
    def memories_forgotten(self) -> int:
        return len(self.forgotten_memory_ids)

    @property
    def verified(self) -> bool:
        return self.remaining_turns == 0 and self.remaining_nodes == 0


class SessionHook(Protocol):
    """Something outside Neo4j that holds per-session state (working memory, what recall surfaced, cached turn
    texts): told to drop the session's."""

    def __call__(self, scope: Scope, session_id: str) -> None: ...


class ForgetMemory(Protocol):
    """The one-memory forget (bmam/usecases/memories.py MemoryUseCases.forget): Conflict for a locked memory."""

    def __call__(self, tenant: str, user_id: str, memory_id: str) -> str: ...


def _no_such_session(scope: Scope) -> NotFound:
    # the id is not echoed: a caller probing for another app's session ids learns nothing back from it
    return NotFound(f"user {scope.user_id!r} has no such session")


class SessionUseCases:
    def __init__(self, *, episodes: EpisodeRepository, erasure: ErasureRepository, forget_memory: ForgetMemory,
                 clock: Clock, max_page_size: int, hooks: Sequence[SessionHook] = ()) -> None:
        self._episodes = episodes
        self._erasure = erasure
        self._forget_memory = forget_memory
        self._clock = clock
        self._max_page = max_page_size
        self._hooks = list(hooks)

    def add_hook(self, hook: SessionHook) -> None:
        self._hooks.append(hook)

    def _scope(self, tenant: str, user_id: str, session_id: str) -> tuple[Scope, str]:
        return (Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId")),
                validate.identifier(session_id, field="sessionId"))

    def turns(self, tenant: str, user_id: str, session_id: str, *, first: int = 50,
              after: str | None = None) -> Paged[SessionTurn]:
        """`first` of the session's stored turns in turn order, after the cursor `after`; NOT_FOUND when the user
        has no such session (another user's or app's is none)."""
        scope, session_id = self._scope(tenant, user_id, session_id)
        limit = validate.page_size(first, maximum=self._max_page)
        page = self._episodes.turns(scope, session_id, limit=limit, after=after)
        if page is None:
            raise _no_such_session(scope)
        return page

    def forget_session(self, tenant: str, user_id: str, session_id: str, *, confirm: bool,
                       memories: SessionMemories = SessionMemories.KEEP) -> SessionErasureReceipt:
        """Erase the session (confirm: true, else BAD_INPUT with nothing written; NOT_FOUND when nothing of it is
        stored): with FORGET first the memories derived from it alone (each its own forget, with its events,
        conflicts, triples and associations), then its turns, then its Session node and anti-repetition state, then
        what this process holds of it (the hooks). Each step finds only what is left, so a run stopped midway is
        finished by running it again. Ingesting the same turns afterwards stores them anew (their ids derive from
        user, session and turn)."""
        scope, session_id = self._scope(tenant, user_id, session_id)
        if confirm is not True:
            raise BadInput("forgetSession erases this conversation's turns; pass confirm: true", field="confirm")
        if self._erasure.session_held(scope, session_id).empty:
            raise _no_such_session(scope)
        derived = self._erasure.derived_memories(scope, session_id)
        forgotten: list[str] = []
        locked_kept = 0
        if memories is SessionMemories.FORGET:
            forgotten, locked_kept = self._forget_derived(scope, [m for m in derived if not m.shared])
        tally = self._erasure.erase_session(scope, session_id)
        for hook in self._hooks:  # what this process holds of the session: nothing of it is in the proof
            hook(scope, session_id)
        held = self._erasure.session_held(scope, session_id)  # the proof, after the last deletion
        shared_kept = sum(1 for m in derived if m.shared) if memories is SessionMemories.FORGET else 0
        kept = shared_kept + locked_kept if memories is SessionMemories.FORGET else len(derived)
        receipt = SessionErasureReceipt(
            tenant=scope.tenant, user_id=scope.user_id, session_id=session_id, memories=memories,
            turns_removed=tally.labels.get("Episode", 0), nodes_removed=tally.nodes,
            relationships_removed=tally.relationships, forgotten_memory_ids=tuple(forgotten),
            shared_kept=shared_kept, locked_kept=locked_kept, memories_kept=kept,
            remaining_turns=held.turns, remaining_nodes=held.nodes, at=self._clock.now())
        log.info("erased a session of %s: %d turns, %d memories forgotten, %d kept, verified=%s", log_name(scope),
                 receipt.turns_removed, receipt.memories_forgotten, receipt.memories_kept, receipt.verified)
        return receipt

    def _forget_derived(self, scope: Scope, only_here: Sequence[DerivedMemory]) -> tuple[list[str], int]:
        """Forget each memory derived from the session alone through the one-memory forget, a locked one aside
        (also one locked since it was read: the forget refuses it). The ids forgotten and the locked ones kept."""
        forgotten: list[str] = []
        locked = 0
        for m in only_here:
            if m.locked:
                locked += 1
                continue
            try:
                forgotten.append(self._forget_memory(scope.tenant, scope.user_id, m.id))
            except Conflict:
                locked += 1
            except NotFound:  # forgotten meanwhile (a concurrent forget, a conflict's settlement): nothing to do
                continue
        return forgotten, locked
