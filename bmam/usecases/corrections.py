"""The user's correction of a memory: the corrected text becomes a memory of its own that supersedes the old one.

A memory can be wrong as stored (misheard, a typo, a fact the user restates differently) while nothing the user
says next contradicts it by a rule. The correction is a conflict between the two that the user settles at once
(DESIGN.md "Conflicts": SUPERSEDES from the correction, the old memory's valid_to set and its history kept, its
associations carried over), of kind CORRECTION. The correction takes the old memory's place: its type (unless
the user gives another), tier and lock, weight parts and preset; its triples are what the rule extractor finds in
the new text. It holds since the old memory did (valid_from: it fixes what was recorded, not a change in the
world), so the old memory is left no validity and `asOf` a past time reads the correction. Nothing of the old
memory remains (ingest/remains.py keeps what a winner did not contest; here the
user rewrote all of it). Then the stored-memory hooks run on the correction as on any new memory (associations,
conflicts with the user's other memories)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from bmam.usecases.hooks import StoredMemoryContext, StoredMemoryHook, marked_done, run_hooks
from bmam.usecases.tiers import TierUseCases
from graph.conflicts import Conflict, ConflictRepository
from graph.errors import BadInput, NotFound
from graph.errors import Conflict as ConflictError
from graph.ids import log_name, new_memory_id
from graph.memories import MemoryRepository
from graph.model import ClassifierLevel, Memory, MemoryType, NewMemory, Scope, Tier, Triple
from graph.remains import RemainsRepository
from graph.store import GraphStore, Tx
from graph.triples import TripleRepository, TripleSpec
from ingest.embedding import Embedder
from ingest.extract import TripleExtractor
from ingest.weights import WeightPolicy

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Correction:
    memory: Memory  # the correction, live
    corrected: Memory  # the memory it superseded, as it stands now (valid_to set)
    conflict: Conflict  # the settled CORRECTION conflict between them


class CorrectionUseCases:
    def __init__(self, *, clock: Clock, embedder: Embedder, extractor: TripleExtractor, memories: MemoryRepository,
                 triples: TripleRepository, conflicts: ConflictRepository, remains: RemainsRepository,
                 tiers: TierUseCases, events: EventBus, store: GraphStore, hooks: Sequence[StoredMemoryHook],
                 policy: WeightPolicy, max_text_bytes: int) -> None:
        self._clock = clock
        self._embedder = embedder
        self._extractor = extractor
        self._memories = memories
        self._triples = triples
        self._conflicts = conflicts
        self._remains = remains
        self._tiers = tiers
        self._events = events
        self._store = store
        self._hooks = hooks  # the container's list: the correction is a new memory like any other
        self._policy = policy
        self._max_text_bytes = max_text_bytes

    def correct(self, tenant: str, user_id: str, memory_id: str, text: str,
                memory_type: str | MemoryType | None = None) -> Correction:
        """Replace a live memory of the user by its corrected text (module docstring). NOT_FOUND for a memory
        the user does not have; CONFLICT for one no longer live (correct what superseded it); BAD_USER_INPUT for
        a correction that says what the memory says. Nothing is written when it fails."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        old_id = validate.identifier(memory_id, field="memoryId")
        text = validate.text(text, field="text", max_bytes=self._max_text_bytes)
        asked_type = None if memory_type is None else validate.memory_type(memory_type)  # bad input before lookups
        old = self._memories.get(scope, old_id)
        if old is None:
            raise NotFound(f"memory {old_id} not found")
        if old.valid_to is not None:
            raise ConflictError(f"memory {old_id} is no longer live (superseded at {old.valid_to.isoformat()}): "
                                "correct the memory that holds now (the history query, `bmam history --memory`, "
                                "shows which)")
        new_type = old.type if asked_type is None else asked_type
        if text == old.text and new_type is old.type:
            raise BadInput(f"the correction says what memory {old_id} says: nothing to correct", field="text")
        embedding = [float(x) for x in self._embedder.embed_passages([text])[0]]
        new = NewMemory(id=new_memory_id(), text=text, type=new_type, embedding=embedding, tier=old.tier,
                        preset_kind=old.preset_kind, preset=old.weight.preset, classified_by=ClassifierLevel.USER,
                        confidence=1.0)
        now = self._clock.now()
        # what the correction states holds since the old memory did (its triples too): it fixes what was recorded
        since = old.valid_from
        specs = [TripleSpec(memory_id=new.id, subject=t.subject, subject_kind=t.subject_kind, predicate=t.predicate,
                            object=t.object, object_kind=t.object_kind, polarity=t.polarity, now=since)
                 for t in self._extractor.extract(text)]
        hooked = bool(self._hooks)

        def write(tx: Tx) -> tuple[Conflict, list[Triple]]:
            self._memories.store_many_in(tx, scope, [new], now=now, passive=old.weight.passive,
                                         active=old.weight.active, hooks_pending_at=now if hooked else None)
            self._memories.hold_since_in(tx, scope, new.id, since)
            triples = self._triples.add_many_in(tx, scope, specs)
            settled = self._conflicts.correct_in(tx, scope, new_id=new.id, old_id=old.id,
                                                 reason=f"corrected by the user: {old.text} -> {text}",
                                                 params=self._policy.cypher_params(), now=now)
            if settled is None:
                raise NotFound(f"memory {old_id} not found")  # forgotten meanwhile: rolled back
            if settled.moot or settled.winner_id != new.id:
                raise ConflictError(f"memory {old_id} was superseded meanwhile: correct the memory that holds now")
            self._remains.checked_in(tx, scope, [old.id], now=now)  # nothing of it remains
            return settled, triples

        (conflict, triples), changes = self._tiers.admit_many(
            scope, {new.id: new.tier}, now=now, write=write, leaving_core=int(old.tier is Tier.CORE))
        assert conflict.new_memory is not None and conflict.old_memory is not None
        self._events.publish(MemoryEvent.created(scope, new.id, tier=new.tier, memory_type=new.type, at=now))
        if (superseded := MemoryEvent.superseded(scope, conflict)) is not None:
            self._events.publish(superseded)
        self._tiers.publish(scope, changes, now)
        log.info("memory %s of %s corrected by %s", old.id, log_name(scope), new.id)
        if hooked:
            run_hooks(list(self._hooks), [StoredMemoryContext(scope=scope, memory=conflict.new_memory,
                                                              triples=triples, embedding=embedding,
                                                              correction=True)],
                      log, store=self._store, finish=marked_done(self._memories))
        memory = self._memories.get(scope, new.id) or conflict.new_memory  # as the hooks left it
        return Correction(memory=memory, corrected=conflict.old_memory, conflict=conflict)
