"""A superseded memory's remains: the facts of it that the winner of its conflict did not contest, kept as a live
memory of their own, so that changing one's job does not forget one's name (ingest/remains.py decides what
remains; this use case stores it).

The loser stays as DESIGN.md "Conflicts" leaves it (valid_to set, SUPERSEDES from the winner; its history).
The remains are a new memory of the loser's type, tier, weight parts (its conflict's penalty taken back: the remains
lost nothing), times and provenance, whose text is the loser's uncontested clauses and whose triples are what
those clauses state; (remains)-[:REMAINS_OF]->(loser). Their id derives from the loser's, so settling again, or a
second process doing it, stores nothing twice. They then go through the stored-memory hooks as any new memory
(associations, conflicts). Run after settlements commit (ConflictUseCases' superseded callbacks, with a batch's
settlements at once: one read, one write, one embedding call, one transaction and one hooks run for them all); a
loser looked at is marked (remains_checked_at), and sweep() (the daily decay, `bmam remains`) looks at those a
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
from graph.ids import derived_id, log_name
from graph.memories import MemoryRepository
from graph.model import Memory, NewMemory, Scope, Tier, Triple
from graph.remains import RemainsRepository
from graph.store import GraphStore, Tx
from graph.triples import TripleRepository, TripleSpec
from ingest.embedding import Embedder
from ingest.remains import ClauseExtractor, Fact, Remains, decision_remains, remains

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
    loser_penalty: float  # what a conflict takes from the loser's active part: given back to the remains when the
    # settlement did not record what it took (the penalty is clamped at 0, so it may have taken less)
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

    def on_superseded(self, scope: Scope, conflicts: Sequence[Conflict]) -> None:
        """ConflictUseCases' callback once settlements committed (those of a batch's hooks together): keep the
        losers' remains, if any. A failure is logged, never raised: the settlements stand (the losers are in the
        user's history, and the sweep looks at them again)."""
        pairs = [(c.loser_id, c.winner_id) for c in conflicts if c.loser_id is not None and c.winner_id is not None]
        try:
            self.keep_many(scope, pairs)
        except Exception:
            log.exception("could not keep the remains of memories %s", ", ".join(loser for loser, _ in pairs))

    def keep(self, scope: Scope, loser_id: str, winner_id: str) -> Memory | None:
        """The remains of a superseded memory, stored (or as stored before); None when nothing remains or the
        loser is not superseded (or gone)."""
        return self.keep_many(scope, [(loser_id, winner_id)]).get(loser_id)

    def keep_many(self, scope: Scope, pairs: Sequence[tuple[str, str]]) -> dict[str, Memory]:
        """keep for (loser id, winner id) pairs of one user, at once (one read, one write for the losers of which
        nothing remains, one embedding call, transaction and hooks run for those with remains): loser id ->
        remains, for the losers that have some."""
        contexts = self._remains.contexts(scope, [(loser, winner, remains_id(scope, loser))
                                                  for loser, winner in dict(pairs).items()])
        kept: dict[str, Memory] = {}
        nothing: list[str] = []
        found: list[tuple[Memory, Remains]] = []
        taken: list[float] = []  # per found loser, what its settlement took from its active part
        for loser_id in dict(pairs):
            context = contexts.get(loser_id)
            if context is None or context.loser.valid_to is None:
                continue  # gone, or not superseded
            if context.kept is not None:
                kept[loser_id] = context.kept
                continue
            winner = [Fact.of(f.subject, f.predicate, f.object, f.polarity) for f in context.winner]
            clauses = self._extractor.by_clause(context.loser.text)
            # a changed decision ends one clause, which the rule tells; the remains keep the others, facts or not
            left = decision_remains(clauses, context.winner_text) \
                or remains(clauses, winner, winner_text=context.winner_text)
            if left is None:
                nothing.append(loser_id)
            else:
                found.append((context.loser, left))
                taken.append(self._settings.loser_penalty if context.penalty is None else context.penalty)
        self._remains.checked(scope, nothing, now=self._clock.now())
        if found:
            kept.update(self._store_remains(scope, found, taken))
        return kept

    def sweep(self, *, tenant: str | None = None, user_id: str | None = None, batch: int = 500) -> SweepReport:
        """Look for the remains of every superseded memory never looked at (a process stopped between a settlement's
        commit and its remains; memories superseded before remains existed), a batch at a time until none is
        left but those that failed (logged; looked at again next time)."""
        looked = kept = 0
        while True:
            unchecked = self._remains.unchecked(tenant=tenant, user_id=user_id, limit=batch)
            by_scope: dict[Scope, list[tuple[str, str]]] = {}
            for u in unchecked:
                by_scope.setdefault(u.scope, []).append((u.loser_id, u.winner_id))
            done = 0
            for scope, pairs in by_scope.items():
                try:
                    kept += len(self.keep_many(scope, pairs))
                    done += len(pairs)
                except Exception:  # one user's failure does not stop the others
                    log.exception("could not keep the remains of superseded memories of %s", log_name(scope))
            looked += done
            if len(unchecked) < batch or done == 0:
                return SweepReport(looked=looked, kept=kept)

    def _store_remains(self, scope: Scope, found: Sequence[tuple[Memory, Remains]],
                       taken: Sequence[float]) -> dict[str, Memory]:
        """Store the remains of these losers as new memories in one transaction, then their hooks in one run; each
        gets back what its loser's settlement took from the active part (taken, per loser)."""
        embeddings = self._embedder.embed_passages([left.text for _, left in found])
        news = [NewMemory(id=remains_id(scope, loser.id), text=left.text, type=loser.type,
                          embedding=[float(x) for x in embedding], tier=loser.tier, preset_kind=loser.preset_kind,
                          preset=loser.weight.preset, classified_by=loser.classified_by, confidence=loser.confidence,
                          provenance=loser.provenance)
                for (loser, left), embedding in zip(found, embeddings, strict=True)]
        # the remains were said when their loser was: a later conflict orders them so
        specs = [TripleSpec(memory_id=new.id, subject=t.subject, subject_kind=t.subject_kind, predicate=t.predicate,
                            object=t.object, object_kind=t.object_kind, polarity=t.polarity, now=loser.valid_from)
                 for new, (loser, left) in zip(news, found, strict=True) for t in left.facts]
        now = self._clock.now()
        hooked = bool(self._hooks)

        def write(tx: Tx) -> tuple[list[Memory], list[Triple]]:
            self._memories.store_many_in(
                tx, scope, news, now=[loser.valid_from for loser, _ in found],
                passive=[loser.weight.passive for loser, _ in found],
                active=[min(self._settings.max_active, loser.weight.active + back)
                        for (loser, _), back in zip(found, taken, strict=True)],
                hooks_pending_at=now if hooked else None)
            triples = self._triples.add_many_in(tx, scope, specs)
            # read back once tied: remains_of, the loser's mentions and place are set there
            linked = self._remains.link_in(tx, scope, [(new.id, loser.id)
                                                       for new, (loser, _) in zip(news, found, strict=True)], now=now)
            return [linked[new.id] for new in news], triples

        try:
            (memories, triples), changes = self._tiers.admit_many(scope, {n.id: n.tier for n in news}, now=now,
                                                                  write=write)
        except ConflictError:  # unlocked core losers, core full since: their remains wait in mid
            news = [replace(n, tier=Tier.MID) if n.tier is Tier.CORE else n for n in news]
            (memories, triples), changes = self._tiers.admit_many(scope, {n.id: n.tier for n in news}, now=now,
                                                                  write=write)
        for memory in memories:
            self._events.publish(MemoryEvent.created(scope, memory.id, tier=memory.tier, memory_type=memory.type,
                                                     at=now))
        self._tiers.publish(scope, changes, now)
        for memory, (loser, _) in zip(memories, found, strict=True):
            log.info("kept the remains %s of superseded memory %s", memory.id, loser.id)  # no text: a user's words
        if hooked:
            by_memory: dict[str, list[Triple]] = {}
            for t in triples:
                by_memory.setdefault(t.memory_id, []).append(t)
            contexts = [StoredMemoryContext(scope=scope, memory=m, triples=by_memory.get(m.id, []),
                                            embedding=n.embedding, episode_id=m.provenance.episode_id)
                        for m, n in zip(memories, news, strict=True)]
            run_hooks(list(self._hooks), contexts, log, store=self._store, finish=marked_done(self._memories))
        return {loser.id: memory for memory, (loser, _) in zip(memories, found, strict=True)}
