"""Use-cases of the three tiers: the user's reactions (filter 2), lock / unlock, the sweep, and the
capacity enforcement ingest shares. Every change runs in one write transaction holding the user's
lock; the rules are ingest/tier_policy.py, the statements graph/tiers.py."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, EventKind, MemoryEvent
from graph.errors import BadInput, Conflict, NotFound
from graph.model import Memory, Scope, Tier
from graph.store import GraphStore, Tx
from graph.tiers import MemoryUpdate, TierMemory, TierRepository
from graph.weights import decay
from ingest.tier_policy import (
    Reason,
    Signal,
    TierChange,
    TierRules,
    core_has_room,
    decayed_to,
    enforce_capacity,
    react,
    sweep,
)

T = TypeVar("T")


def parse_signal(value: str | Signal) -> Signal:
    try:
        return Signal(str(value).upper())
    except ValueError as exc:
        raise BadInput(f"unknown signal {value!r}; one of ENGAGED, IGNORED, DISMISSED", field="signal") from exc


def event_kind(change: TierChange) -> EventKind:
    if change.to_tier is None:
        return EventKind.EVICTED if change.reason in (Reason.TEMP_FULL, Reason.MID_FULL) else EventKind.DELETED
    return EventKind.PROMOTED if change.to_tier.rank > change.from_tier.rank else EventKind.DEMOTED


def change_event(scope: Scope, change: TierChange, at: datetime) -> MemoryEvent:
    detail = {"from": change.from_tier.value, "to": change.to_tier.value if change.to_tier else "deleted",
              "reason": change.reason.value}
    return MemoryEvent(kind=event_kind(change), tenant=scope.tenant, user_id=scope.user_id,
                       memory_id=change.memory_id, at=at, detail=detail)


@dataclass(frozen=True, slots=True)
class ReactionResult:
    memory_id: str
    signal: Signal
    memory: Memory | None  # None when the reaction deleted it
    changes: list[TierChange] = field(default_factory=list)

    @property
    def deleted(self) -> bool:
        return self.memory is None


@dataclass(frozen=True, slots=True)
class TierUsage:
    counts: dict[Tier, int]
    capacities: dict[Tier, int]


class TierUseCases:
    def __init__(self, *, store: GraphStore, tiers: TierRepository, rules: TierRules, clock: Clock,
                 events: EventBus) -> None:
        self._store = store
        self._tiers = tiers
        self.rules = rules
        self._clock = clock
        self._events = events

    def scope(self, tenant: str, user_id: str | None) -> Scope:
        return Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))

    # ----- shared inside a transaction -----------------------------------------------------

    def apply(self, tx: Tx, scope: Scope, changes: Sequence[TierChange], *, now: datetime,
              active_delta: dict[str, float] | None = None) -> list[TierChange]:
        """Apply decided moves (deletions unlocked-only, moves never out of core); returns those done. A memory
        entering core has its weight brought to now first: locked, it no longer decays (weights/decay)."""
        entering_core = [c.memory_id for c in changes if c.to_tier is Tier.CORE and c.from_tier is not Tier.CORE]
        self.decay_in(tx, scope, entering_core, now=now)
        deleted = [c.memory_id for c in changes if c.to_tier is None]
        gone = set(self._tiers.delete(tx, scope, deleted))
        moves: dict[str, Tier] = {}
        dismissed: set[str] = set()
        for c in changes:
            if c.to_tier is not None and c.memory_id not in gone and c.memory_id not in deleted:
                moves[c.memory_id] = c.to_tier
                if c.reason is Reason.DISMISSED:
                    dismissed.add(c.memory_id)
        deltas = active_delta or {}
        # a move starts the stale and fade clocks again, but not the user's DISMISSED: what they waved away does not
        # linger a week more in temp
        updates = [MemoryUpdate(id=m, tier=t, active_delta=deltas.get(m, 0.0),
                                moved_at=None if m in dismissed else now) for m, t in moves.items()]
        done = self._tiers.update(tx, scope, updates)
        # a memory demoted and then evicted in one go reports both moves
        return [c for c in changes
                if (c.to_tier is None and c.memory_id in gone)
                or (c.to_tier is not None and (c.memory_id in done or c.memory_id in gone))]

    def enforce(self, tx: Tx, scope: Scope, counts: Mapping[Tier, int] | None = None,
                keep: frozenset[str] = frozenset()) -> list[TierChange]:
        """Restore mid and temp capacities (demote mid's least useful, evict temp's), weighing each memory
        as of now. counts: the user's memories per tier as read in tx under the user's lock, when the caller
        has just read them (counting superseded ones too only makes this read the memories needlessly).
        keep: memories that count but are not moved (see enforce_capacity)."""
        if counts is None:
            counts = self._tiers.counts(tx, scope)
        caps = self.rules.capacities
        if counts[Tier.MID] <= caps.mid and counts[Tier.TEMP] <= caps.temp:
            return []
        # decay computed from the stored parts, not written: no extra writes on ingest's hot path
        now = self._clock.now()
        candidates = decayed_to(self._tiers.memories(tx, scope, [Tier.TEMP, Tier.MID]), self.rules.weights, now)
        return self.apply(tx, scope, enforce_capacity(candidates, caps, keep), now=now)

    def decay_in(self, tx: Tx, scope: Scope, ids: Sequence[str], *, now: datetime) -> None:
        """Bring these memories' weights to now (ingest/weights.py) before an active-weight change lands on
        them: engagement's +0.2 / a reaction's feedback must not be faded for the time before it was given
        (feedback does the same: graph/weights.py adjust_active)."""
        if ids:
            decay(tx, scope, self.rules.weights.cypher_params(), now, ids=ids, with_before=False)

    def admit(self, scope: Scope, tier: Tier, memory_id: str, *, now: datetime,
              write: Callable[[Tx], T]) -> tuple[T, list[TierChange]]:
        """Write a memory straight into `tier` (remember) within the capacities, in one transaction under the
        user's lock: CONFLICT when the tier is core and core is full (nothing written); else the write, then a
        full mid or temp gives way by its least useful (never the memory just written). The caller publishes
        the moves after its own events (publish)."""
        return self.admit_many(scope, {memory_id: tier}, now=now, write=write)

    def admit_many(self, scope: Scope, tiers: Mapping[str, Tier], *, now: datetime,
                   write: Callable[[Tx], T], leaving_core: int = 0) -> tuple[T, list[TierChange]]:
        """admit for several memories (id -> tier) written at once: CONFLICT when core has no room for those
        going there. leaving_core: core memories the write itself supersedes (a correction of a core memory takes
        its place)."""

        def work(tx: Tx) -> tuple[T, list[TierChange]]:
            self._tiers.lock_user(tx, scope, now=now)
            to_core = sum(tier is Tier.CORE for tier in tiers.values()) - leaving_core
            if to_core > 0 and not core_has_room(self._tiers.counts(tx, scope)[Tier.CORE] + to_core - 1,
                                             self.rules.capacities):
                raise Conflict(f"core is full ({self.rules.capacities.core} memories); unlock or forget one first")
            written = write(tx)
            return written, self.enforce(tx, scope, keep=frozenset(tiers))

        return self._store.write_tx(work)

    def check_core_room(self, scope: Scope, adding: int, *, what: str) -> None:
        """CONFLICT when core has no room for `adding` more memories (`what`: what brings them, for the message).
        Read before anything is written (an import writes in many transactions, so there is no one transaction to
        roll back afterwards): core memories are locked and never evicted, so they are refused, not fitted."""
        if adding <= 0:
            return
        held = self._store.read_tx(lambda tx: self._tiers.counts(tx, scope))[Tier.CORE]
        capacity = self.rules.capacities.core
        if held + adding > capacity:
            raise Conflict(f"core is full: user {scope.user_id!r} holds {held} of {capacity} core memories and {what} "
                           f"{adding} more (room for {max(0, capacity - held)}); core memories are locked and never "
                           "evicted, so nothing was imported: unlock or forget some first", field="file")

    def restore_capacity(self, scope: Scope) -> list[TierChange]:
        """enforce in a transaction of its own under the user's lock, for memories placed in their tiers outside
        ingest's and remember's transactions (an import, written in batches); the moves are published. A user that
        does not exist is not created."""
        now = self._clock.now()

        def work(tx: Tx) -> list[TierChange]:
            if not self._tiers.lock_known_user(tx, scope):
                return []
            return self.enforce(tx, scope)

        changes = self._store.write_tx(work)
        self.publish(scope, changes, now)
        return changes

    def publish(self, scope: Scope, changes: Sequence[TierChange], at: datetime) -> None:
        for c in changes:
            self._events.publish(change_event(scope, c, at))

    # ----- the user's mutations --------------------------------------------------------------

    def react(self, tenant: str, user_id: str, memory_id: str, signal: str | Signal) -> ReactionResult:
        """Filter 2: ENGAGED promotes temp to mid, IGNORED leaves it, DISMISSED deletes a temp memory
        (and sends a mid one back to temp). A locked core memory is not changed by reactions."""
        scope = self.scope(tenant, user_id)
        memory_id = validate.identifier(memory_id, field="memoryId")
        parsed = parse_signal(signal)
        now = self._clock.now()

        def work(tx: Tx) -> ReactionResult:
            self._tiers.lock_user(tx, scope, now=now)
            state = self._tiers.get(tx, scope, memory_id)
            if state is None:
                raise NotFound(f"memory {memory_id} not found")
            outcome = react(state, parsed, self.rules)
            if outcome.refused:
                raise Conflict(f"memory {memory_id}: {outcome.refused}")
            changes: list[TierChange] = []
            if outcome.active_delta:
                self.decay_in(tx, scope, [memory_id], now=now)
            if outcome.change is not None:
                changes = self.apply(tx, scope, [outcome.change], now=now,
                                     active_delta={memory_id: outcome.active_delta})
            elif outcome.active_delta:
                self._tiers.update(tx, scope, [MemoryUpdate(id=memory_id, active_delta=outcome.active_delta)])
            # The memory just engaged keeps its promotion: a full mid gives way by another (as admit's keep).
            promoted = outcome.change is not None and outcome.change.to_tier is Tier.MID
            changes += self.enforce(tx, scope, keep=frozenset({memory_id}) if promoted else frozenset())
            return ReactionResult(memory_id, parsed, self._tiers.memory(tx, scope, memory_id), changes)

        result = self._store.write_tx(work)
        self.publish(scope, result.changes, now)
        return result

    def lock(self, tenant: str, user_id: str, memory_id: str) -> Memory:
        """The user marks a memory important: it moves to core and is locked. CONFLICT when core is full and when it
        is history. Locking a locked memory returns it as it is: a retried lock whose answer was lost must not fail."""

        def change(tx: Tx, scope: Scope, state: TierMemory, now: datetime) -> list[TierChange]:
            if state.superseded:  # as a dismissal of history is refused: history is outside the tiers
                raise Conflict(f"memory {memory_id} is superseded history (validTo set), kept outside the tiers: "
                               "it cannot be locked (forget removes it)")
            if state.tier is Tier.CORE:  # idempotent: what the user asked for holds
                return []
            if not core_has_room(self._tiers.counts(tx, scope)[Tier.CORE], self.rules.capacities):
                raise Conflict(f"core is full ({self.rules.capacities.core} memories); unlock or forget one first")
            return self.apply(tx, scope, [TierChange(state.id, state.tier, Tier.CORE, Reason.LOCKED_BY_USER)],
                              now=now)

        return self._change_one(tenant, user_id, memory_id, change)

    def unlock(self, tenant: str, user_id: str, memory_id: str) -> Memory:
        """The user's explicit unlock: a core memory goes back to mid (unlocked), where the system
        manages it again (mid over capacity then demotes its least useful). A memory not locked is returned as it is
        (idempotent, as lock)."""

        def change(tx: Tx, scope: Scope, state: TierMemory, now: datetime) -> list[TierChange]:
            if state.superseded:  # as locking it is refused: history is outside the tiers
                raise Conflict(f"memory {memory_id} is superseded history (validTo set), kept outside the tiers: "
                               "it cannot be unlocked (forget removes it)")
            if state.tier is not Tier.CORE or not self._tiers.unlock(tx, scope, state.id, now=now):
                return []
            return [TierChange(state.id, Tier.CORE, Tier.MID, Reason.UNLOCKED_BY_USER), *self.enforce(tx, scope)]

        return self._change_one(tenant, user_id, memory_id, change)

    def _change_one(self, tenant: str, user_id: str, memory_id: str,
                    change: Callable[[Tx, Scope, TierMemory, datetime], list[TierChange]]) -> Memory:
        """One user-asked tier change of one memory, under the user's lock, its events published after the
        commit: NOT_FOUND for a memory that is not the user's, CONFLICT (rolled back) when the change would
        evict the memory at once (only an unlock can: a locked memory is never evicted)."""
        scope = self.scope(tenant, user_id)
        memory_id = validate.identifier(memory_id, field="memoryId")
        now = self._clock.now()

        def work(tx: Tx) -> tuple[Memory, list[TierChange]]:
            self._tiers.lock_user(tx, scope, now=now)
            state = self._tiers.get(tx, scope, memory_id)
            if state is None:
                raise NotFound(f"memory {memory_id} not found")
            changes = change(tx, scope, state, now)
            memory = self._tiers.memory(tx, scope, memory_id)
            if memory is None:  # it would be the least useful of a full mid and temp: refuse (rolls back)
                raise Conflict(f"unlocking memory {memory_id} would evict it at once (mid and temp are full); "
                               "forget it instead, or make room first")
            return memory, changes

        memory, changes = self._store.write_tx(work)
        self.publish(scope, changes, now)
        return memory

    def sweep(self, tenant: str, user_id: str, *, now: datetime | None = None,
              dry_run: bool = False) -> list[TierChange]:
        """Delete stale temp memories, let faded mid ones fall back to temp, restore capacities. dry_run: the same
        transaction rolled back, nothing published: what a sweep now would do (a deletion has no undo)."""
        scope = self.scope(tenant, user_id)
        at = now or self._clock.now()

        def work(tx: Tx) -> list[TierChange]:
            if not self._tiers.lock_known_user(tx, scope):  # an unknown user: nothing to sweep, nothing created
                return []
            candidates = self._tiers.memories(tx, scope, [Tier.TEMP, Tier.MID], self.rules.durable_predicates)
            return self.apply(tx, scope, sweep(candidates, self.rules, at), now=at)

        if dry_run:
            return self._store.rolled_back_tx(work)
        changes = self._store.write_tx(work)
        self.publish(scope, changes, at)
        return changes

    def usage(self, tenant: str, user_id: str) -> TierUsage:
        scope = self.scope(tenant, user_id)
        counts = self._store.read_tx(lambda tx: self._tiers.counts(tx, scope))
        caps = self.rules.capacities
        return TierUsage(counts=counts, capacities={t: caps.of(t) for t in Tier})
