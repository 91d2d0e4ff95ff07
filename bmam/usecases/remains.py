"""A superseded memory's remains: the facts of it that the winner of its conflict did not contest, kept as a live
memory of their own, so that changing one's job does not forget one's name (ingest/remains.py decides what
remains; this use case stores it).

The loser stays as DESIGN.md "Conflicts" leaves it (valid_to set, SUPERSEDES from the winner; its history).
The remains are a new memory of the loser's type, tier, weight parts (its conflict's penalty taken back: the remains
lost nothing), times and provenance, whose text is the loser's uncontested clauses and whose triples are what
those clauses state; (remains)-[:REMAINS_OF]->(loser). Their id derives from the loser's, so settling again, or a
second process doing it, stores nothing twice. They then go through the stored-memory hooks as any new memory
(associations, conflicts). Run after a settlement commits (ConflictUseCases' superseded callbacks); a loser
looked at is marked (remains_checked_at), and sweep() (the daily check, `bmam remains`) looks at those a
stopped process left unmarked."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from bmam.usecases.hooks import StoredMemoryContext, StoredMemoryHook, marked_done, run_hooks
from bmam.usecases.tiers import TierUseCases
from graph.conflicts import Conflict
from graph.errors import Conflict as ConflictError
from graph.ids import derived_id
from graph.memories import MemoryRepository
from graph.model import Memory, NewMemory, Scope, Tier
from graph.remains import RemainsRepository
from graph.store import GraphStore, Tx
from graph.triples import TripleRepository, TripleSpec
from ingest.embedding import Embedder
from ingest.remains import ClauseExtractor, Fact, Remains, remains

log = logging.getLogger(__name__)


def remains_id(scope: Scope, loser_id: str) -> str:
    """The remains' id: derived from the loser's, so they are stored once whoever settles."""
    return derived_id("m", scope, "remains", loser_id)


@dataclass(frozen=True, slots=True)
class SweepReport:
    looked: int  # superseded memories looked at
    kept: int  # of them, those whose remains were stored


@dataclass(frozen=True, slots=True)
class RemainsSettings:
    loser_penalty: float  # what the conflict took from the loser's active part (given back to the remains)
    max_active: float = 1.0


class RemainsUseCases:
    def __init__(self, *, clock: Clock, embedder: Embedder, extractor: ClauseExtractor, remains: RemainsRepository,
                 memories: MemoryRepository, triples: TripleRepository, tiers: TierUseCases, events: EventBus,
                 store: GraphStore, hooks: Sequence[StoredMemoryHook], settings: RemainsSettings) -> None:
        self._clock = clock
        self._remains = remains
        self._embedder = embedder
        self._extractor = extractor
        self._memories = memories
        self._triples = triples
        self._tiers = tiers
        self._events = events
        self._store = store
        self._hooks = hooks  # the container's list: the remains are a new memory like any other
        self._settings = settings

    def on_superseded(self, scope: Scope, conflict: Conflict) -> None:
        """ConflictUseCases' callback once a settlement committed: keep the loser's remains, if any. A failure is
        logged, never raised: the settlement stands (the loser is still in the user's history)."""
        if conflict.loser_id is None or conflict.winner_id is None:
            return
        try:
            self.keep(scope, conflict.loser_id, conflict.winner_id)
        except Exception:
            log.exception("could not keep the remains of memory %s (superseded by %s)", conflict.loser_id,
                          conflict.winner_id)

    def keep(self, scope: Scope, loser_id: str, winner_id: str) -> Memory | None:
        """The remains of a superseded memory, stored (or as stored before); None when nothing remains or the
        loser is not superseded (or gone)."""
        kept_id = remains_id(scope, loser_id)
        context = self._remains.context(scope, loser_id, winner_id, kept_id)
        if context is None or not context.superseded:
            return None
        if context.kept:
            return self._memories.get(scope, kept_id)
        winner = [Fact.of(f.subject, f.predicate, f.object) for f in context.winner]
        found = remains(self._extractor.by_clause(context.text), winner)
        loser = self._memories.get(scope, loser_id) if found is not None else None
        if found is None or loser is None:
            self._remains.checked(scope, loser_id, now=self._clock.now())
            return None
        return self._store_remains(scope, loser, found)

    def sweep(self, *, tenant: str | None = None, user_id: str | None = None, batch: int = 500) -> SweepReport:
        """Look for the remains of every superseded memory never looked at (a process stopped between a settlement's
        commit and its remains; memories superseded before remains existed), a batch at a time until none is
        left but those that failed (logged; looked at again next time)."""
        looked = kept = 0
        while True:
            unchecked = self._remains.unchecked(tenant=tenant, user_id=user_id, limit=batch)
            done = 0
            for u in unchecked:
                try:
                    kept += self.keep(u.scope, u.loser_id, u.winner_id) is not None
                    done += 1
                except Exception:  # one loser's failure does not stop the others
                    log.exception("could not keep the remains of memory %s", u.loser_id)
            looked += done
            if len(unchecked) < batch or done == 0:
                return SweepReport(looked=looked, kept=kept)

    def _store_remains(self, scope: Scope, loser: Memory, found: Remains) -> Memory:
        embedding = [float(x) for x in self._embedder.embed_passages([found.text])[0]]
        new = NewMemory(id=remains_id(scope, loser.id), text=found.text, type=loser.type, embedding=embedding,
                        tier=loser.tier, preset_kind=loser.preset_kind, preset=loser.weight.preset,
                        classified_by=loser.classified_by, confidence=loser.confidence, provenance=loser.provenance)
        said = loser.valid_from  # the remains were said when the loser was: a later conflict orders them so
        specs = [TripleSpec(memory_id=new.id, subject=t.subject, subject_kind=t.subject_kind, predicate=t.predicate,
                            object=t.object, object_kind=t.object_kind, polarity=t.polarity, now=said)
                 for t in found.facts]
        now = self._clock.now()
        active = min(self._settings.max_active, loser.weight.active + self._settings.loser_penalty)
        hooked = bool(self._hooks)

        def write(tx: Tx) -> Memory:
            stored = self._memories.remember_many_in(tx, scope, [new], now=said, passive=loser.weight.passive,
                                                     active=active, hooks_pending_at=now if hooked else None)[0]
            self._triples.add_many_in(tx, scope, specs)
            self._remains.link_in(tx, scope, new.id, loser.id, now=now)
            return stored.memory

        try:
            memory, changes = self._tiers.admit(scope, loser.tier, new.id, now=now, write=write)
        except ConflictError:  # an unlocked core loser, core full since: the remains wait in mid
            new = replace(new, tier=Tier.MID)
            memory, changes = self._tiers.admit(scope, Tier.MID, new.id, now=now, write=write)
        self._events.publish(MemoryEvent.created(scope, memory.id, tier=memory.tier, memory_type=memory.type,
                                                 at=now))
        self._tiers.publish(scope, changes, now)
        log.info("kept the remains %s of superseded memory %s: %r", memory.id, loser.id, found.text)
        if hooked:
            triples = self._triples.for_memory(scope, memory.id)
            run_hooks(list(self._hooks), [StoredMemoryContext(scope=scope, memory=memory, triples=triples,
                                                              embedding=embedding,
                                                              episode_id=memory.provenance.episode_id)],
                      log, store=self._store, finish=marked_done(self._memories))
        return self._memories.get(scope, memory.id) or memory
