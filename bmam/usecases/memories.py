"""Use-cases of the first slice: remember, get, list, forget, triples, associations, search.

remember stores the text as given (the caller chose its type; no salience filter, classifier or triple
extraction: that is ingest's pipeline), then runs the stored-memory hooks like ingest (association forming,
conflict detection; bmam/usecases/hooks.py), marked pending until they went through. It has no triples
then, so only the conflicts found by meaning (negation, favourites) come up. add_triple gives a stored memory
a triple and runs its hooks again, with all its triples as stored, the same way (marked pending with the
triple until they went through): the conflicts between triples (single-valued, polarity) are found and
settled there, as for an ingested memory. The hooks leave the graph as it is when run on a memory again, so a
repeated add_triple changes nothing."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from bmam.settings import Settings
from bmam.usecases.hooks import StoredMemoryContext, StoredMemoryHook, marked_done, run_hooks
from bmam.usecases.tiers import TierUseCases
from graph.associations import AssociationRepository
from graph.errors import BadInput, Conflict, NotFound, StoreUnavailable
from graph.ids import derived_id, new_memory_id
from graph.memories import MemoryRepository
from graph.model import (
    Association,
    ClassifierLevel,
    Memory,
    MemoryType,
    NewMemory,
    Page,
    PresetKind,
    Provenance,
    Scope,
    ScoredMemory,
    Tier,
    Triple,
)
from graph.store import GraphStore, Tx
from graph.triples import TripleRepository, TripleSpec
from ingest.embedding import Embedder
from ingest.extract import PREDICATES, USER

log = logging.getLogger(__name__)

# Below this many memories an exact cosine scan over the user's own memories beats the global
# vector index (and needs no oversampling); see BENCHMARKS.md.
EXACT_SCAN_MAX_MEMORIES = 20_000


@dataclass(frozen=True, slots=True)
class RememberRequest:
    user_id: str
    text: str
    type: str | MemoryType
    tier: Tier = Tier.TEMP
    preset_kind: PresetKind = PresetKind.DEFAULT
    session_id: str | None = None
    device_id: str | None = None
    # The client's name for this one remember: sent again (a retry after a timeout), it answers the memory the
    # first call stored instead of storing a second copy (the memory's id is derived from it, as ingest's are from
    # the turn).
    request_id: str | None = None


# Names in addTriple that are the user themself: "I" / 我 made entities of their own, beside the user's, and a
# lives_in of "I" contradicted nothing the user had said.
_THE_USER = frozenset({USER, "i", "me", "myself", "我", "我自己", "本人"})


def _entity(name: str, kind: str) -> tuple[str, str]:
    """A triple end as addTriple stores it: the user's own entity, as ingest writes it, for a name of the user."""
    return (USER, "user") if name.strip().casefold() in _THE_USER else (name, kind)


def _vocabulary_form(predicate: str) -> str:
    """A predicate of the extractor's vocabulary written with spaces or hyphens ("lives in") in its stored form
    (lives_in), so conflicts and slot questions find it; any other predicate as given."""
    snake = "_".join(predicate.strip().casefold().replace("-", " ").split())
    return snake if snake in PREDICATES else predicate


def _same_request(done: Memory, text: str, request_id: str) -> Memory:
    """The memory an earlier remember with this requestId stored, when it was sent with the same words; CONFLICT
    otherwise: a requestId names one remember, and a client reusing it for another would lose that one."""
    if done.text != text:
        raise Conflict(f"requestId {request_id!r} was sent before with another text (memory {done.id}); "
                       "use a new requestId for a new memory", field="requestId")
    return done


class MemoryUseCases:
    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        embedder: Embedder,
        memories: MemoryRepository,
        triples: TripleRepository,
        associations: AssociationRepository,
        tiers: TierUseCases,
        events: EventBus | None = None,
        store: GraphStore | None = None,
        hooks: Sequence[StoredMemoryHook] = (),
        embedding_of: Callable[[Scope, str], Sequence[float]] | None = None,
        drop_cached: Callable[[Scope], None] | None = None,
    ) -> None:
        self._settings = settings
        # A memory remembered straight into a tier keeps its capacity (DESIGN.md "Tiers").
        self._tiers = tiers
        self._events = events
        self._clock = clock
        self._embedder = embedder
        self._memories = memories
        self._triples = triples
        self._associations = associations
        # the container's list (features append to it after construction); run only with the store
        self._hooks = hooks
        self._store = store
        # a stored memory's embedding (add_triple runs its hooks again with it: not embedded a second time)
        self._embedding_of = embedding_of
        # the user's entry in this process's recall cache (graph/vector_cache.py), which holds every memory's text:
        # a memory the user forgets leaves no copy in the process (it is read anew at the user's next recall)
        self._drop_cached = drop_cached

    def scope(self, tenant: str, user_id: str | None) -> Scope:
        return Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))

    def preset_for(self, kind: PresetKind) -> float:
        w = self._settings.weights
        return {PresetKind.SAFETY: w.preset_safety, PresetKind.TEMPORARY: w.preset_temporary}.get(
            kind, w.preset_default
        )

    def remember(self, tenant: str, request: RememberRequest) -> Memory:
        scope = self.scope(tenant, request.user_id)
        text = validate.text(request.text, field="text", max_bytes=self._settings.limits.max_text_bytes)
        memory_type = validate.memory_type(request.type)
        provenance = Provenance(
            # "" is no id (as "  " is not): an error, as for recall and ingest
            session_id=validate.optional_identifier(request.session_id, field="sessionId"),
            device_id=validate.optional_identifier(request.device_id, field="deviceId"),
        )
        request_id = validate.optional_identifier(request.request_id, field="requestId")
        memory_id = derived_id("m", scope, "remember", request_id) if request_id is not None else new_memory_id()
        if request_id is not None and (done := self._memories.get(scope, memory_id)) is not None:
            return _same_request(done, text, request_id)  # as it stands now (superseded, moved between tiers)
        embedding = self._embedder.embed_passages([text])[0]
        new = NewMemory(
            id=memory_id,
            text=text,
            type=memory_type,
            embedding=[float(x) for x in embedding],
            tier=request.tier,
            preset_kind=request.preset_kind,
            preset=self.preset_for(request.preset_kind),
            classified_by=ClassifierLevel.USER,
            confidence=1.0,
            provenance=provenance,
        )
        w = self._settings.weights
        now = self._clock.now()
        hooked = self._store is not None and bool(self._hooks)
        stored, changes = self._tiers.admit(
            scope, new.tier, new.id, now=now,
            write=lambda tx: self._memories.remember_in(tx, scope, new, now=now, passive=w.initial_passive,
                                                        active=w.initial_active,
                                                        hooks_pending_at=now if hooked else None))
        if not stored.created and request_id is not None:
            _same_request(stored.memory, text, request_id)  # one with this requestId stored it meanwhile
        if stored.created and self._events is not None:  # after the commit: subscribers see what is stored
            self._events.publish(MemoryEvent.created(scope, stored.memory.id, tier=stored.memory.tier,
                                                     memory_type=stored.memory.type, at=now))
        self._tiers.publish(scope, changes, now)  # what gave way to it, after it
        if not (stored.created and hooked):
            return stored.memory

        self._run_hooks(StoredMemoryContext(scope=scope, memory=stored.memory, triples=[], embedding=new.embedding))
        # As the hooks left it (a conflict settled: the winner's weight, or this memory superseded). The memory
        # is committed: a failed read-back answers with it as stored, never with an error a client would retry
        # (without a requestId remember's ids are new each time: the retry would store it twice).
        try:
            return self._memories.get(scope, stored.memory.id) or stored.memory
        except StoreUnavailable:
            log.warning("remember: memory %s stored, its read-back after the hooks failed", stored.memory.id)
            return stored.memory

    def _run_hooks(self, context: StoredMemoryContext) -> None:
        """The stored-memory hooks on a memory written marked pending, after the commit, as ingest runs them: a
        hook that fails leaves the memory marked, and ingest's resume_hooks runs it again (at the user's next
        ingest, at server start)."""
        run_hooks(list(self._hooks), [context], log, store=self._store, finish=marked_done(self._memories))

    def get(self, tenant: str, user_id: str, memory_id: str) -> Memory | None:
        return self._memories.get(self.scope(tenant, user_id), validate.identifier(memory_id, field="id"))

    def page(
        self,
        tenant: str,
        user_id: str,
        *,
        types: Sequence[str | MemoryType] | None = None,
        tiers: Sequence[Tier] | None = None,
        first: int = 20,
        after: str | None = None,
        include_history: bool = False,
    ) -> Page:
        scope = self.scope(tenant, user_id)
        parsed_types = [validate.memory_type(t) for t in types] if types else None
        limit = validate.page_size(first, maximum=self._settings.limits.max_page_size)
        return self._memories.page(
            scope, types=parsed_types, tiers=tiers, limit=limit, after=after, include_history=include_history
        )

    def forget(self, tenant: str, user_id: str, memory_id: str, *, confirm: bool = False) -> str:
        scope = self.scope(tenant, user_id)
        memory_id = validate.identifier(memory_id, field="id")
        if not self._memories.forget(scope, memory_id, confirm_locked=confirm):
            # the API's and MCP's argument; field "confirm" lets the CLI name its own flag (it named the CLI's flag on
            # every surface)
            raise Conflict(f"memory {memory_id} is a locked core memory; forgetting it needs confirm: true",
                           field="confirm")
        if self._drop_cached is not None:
            self._drop_cached(scope)
        if self._events is not None:  # after the commit, as the tier rules' and maintenance's deletions
            self._events.publish(MemoryEvent.deleted(scope, memory_id, reason="forgotten by the user",
                                                     at=self._clock.now()))
        return memory_id

    def add_triple(
        self,
        tenant: str,
        user_id: str,
        *,
        memory_id: str,
        subject: str,
        predicate: str,
        object_: str,
        subject_kind: str = "thing",
        object_kind: str = "thing",
        polarity: int = 1,
    ) -> Triple:
        """Store a triple asserted by one of the user's memories (NotFound, nothing written, for a memory that is
        missing or another user's), then run the memory's stored-memory hooks again with all its triples: a
        conflict between triples (single-valued, polarity) is found and settled here, by the strategy, as for an
        ingested memory. The triple is written with the memory's pending-hooks mark, so when the hooks fail it
        stays and they run later (resume_hooks). Answers the triple as the hooks left it (closed when its memory
        lost a conflict)."""
        scope = self.scope(tenant, user_id)
        limit = self._settings.limits.max_text_bytes
        if polarity not in (1, -1):
            raise BadInput("polarity must be 1 or -1", field="polarity")
        now = self._clock.now()
        # the ends as names (no invisible characters, as the predicate and the kinds, checked as ids)
        subject, subject_kind = _entity(validate.name(subject, field="subject", max_bytes=limit),
                                        validate.identifier(subject_kind, field="subjectKind"))
        object_, object_kind = _entity(validate.name(object_, field="object", max_bytes=limit),
                                       validate.identifier(object_kind, field="objectKind"))
        spec = TripleSpec(
            memory_id=validate.identifier(memory_id, field="memoryId"),
            subject=subject,
            subject_kind=subject_kind,
            # as an id: no zero-width or direction characters ("li\u200bkes" showed as likes and matched nothing)
            predicate=_vocabulary_form(validate.identifier(predicate, field="predicate")),
            object=object_,
            object_kind=object_kind,
            polarity=polarity,
            now=now,
        )
        if self._store is None or not self._hooks or self._embedding_of is None:  # no hooks to run
            return self._triples.add(scope, memory_id=spec.memory_id, subject=spec.subject,
                                     subject_kind=spec.subject_kind, predicate=spec.predicate, object_=spec.object,
                                     object_kind=spec.object_kind, polarity=polarity, now=now)
        triple = self._store_triple(scope, spec)
        try:
            return self._hooks_again(scope, triple)
        except Exception:  # stored and marked: acknowledged, and resume_hooks runs the hooks later
            log.exception("the stored-memory hooks of memory %s did not run after its triple %s was added; "
                          "left pending", spec.memory_id, triple.id)
            return triple

    def _hooks_again(self, scope: Scope, triple: Triple) -> Triple:
        """The stored-memory hooks of the triple's memory again, with all its triples as stored and its stored
        embedding; the triple as they left it (closed when its memory lost a conflict)."""
        assert self._store is not None and self._embedding_of is not None
        memory = self._memories.get(scope, triple.memory_id)
        if memory is None:  # forgotten meanwhile, its mark with it
            return triple
        if memory.valid_to is not None:
            # Superseded: nothing of it to settle (detection passes over a memory that is history), and forming
            # its associations again would undo the settlement that took them off it.
            self._store.write_tx(lambda tx: self._memories.hooks_done_in(tx, scope, [memory.id]))
            return triple
        self._run_hooks(StoredMemoryContext(scope=scope, memory=memory,
                                            triples=self._triples.for_memory(scope, memory.id),
                                            embedding=[float(x) for x in self._embedding_of(scope, memory.id)]))
        return next((t for t in self._triples.for_memory(scope, memory.id) if t.id == triple.id), triple)

    def _store_triple(self, scope: Scope, spec: TripleSpec) -> Triple:
        """The triple and its memory's pending-hooks mark (since the triple's time), in one transaction, as
        remember writes a memory with its mark. NotFound, nothing written, when the memory is missing or foreign."""
        assert self._store is not None

        def write(tx: Tx) -> Triple:
            [triple] = self._triples.add_many_in(tx, scope, [spec])
            self._memories.hooks_mark_in(tx, scope, [spec.memory_id], at=spec.now)
            return triple

        return self._store.write_tx(write)

    def triples(self, tenant: str, user_id: str, memory_id: str) -> list[Triple]:
        """The triples a memory of the user asserts; NOT_FOUND for a memory the user does not have (it answered []
        for another user's or a forgotten memory, as if it asserted nothing; relatedSearch says NOT_FOUND)."""
        scope = self.scope(tenant, user_id)
        return self._triples.for_memory(scope, self._known(scope, memory_id))

    def associate(self, tenant: str, user_id: str, memory_a: str, memory_b: str, strength: float) -> Association:
        scope = self.scope(tenant, user_id)
        return self._associations.associate(
            scope,
            validate.identifier(memory_a, field="memoryA"),
            validate.identifier(memory_b, field="memoryB"),
            validate.unit_interval(strength, field="strength"),
            now=self._clock.now(),
        )

    def dissociate(self, tenant: str, user_id: str, memory_a: str, memory_b: str) -> bool:
        """Remove the association of two memories of the user (True when there was one). The system may form
        it again; strength 0 through associate is the user's lasting "not related"."""
        return self._associations.dissociate(self.scope(tenant, user_id),
                                             validate.identifier(memory_a, field="memoryA"),
                                             validate.identifier(memory_b, field="memoryB"))

    def associations(self, tenant: str, user_id: str, memory_id: str) -> list[Association]:
        """A memory's associations, strongest first; NOT_FOUND for a memory the user does not have."""
        scope = self.scope(tenant, user_id)
        return self._associations.for_memory(scope, self._known(scope, memory_id))

    def _known(self, scope: Scope, memory_id: str) -> str:
        """The id of a memory the user has (history too), else NOT_FOUND."""
        memory_id = validate.identifier(memory_id, field="memoryId")
        if self._memories.get(scope, memory_id) is None:
            raise NotFound(f"memory {memory_id} not found")
        return memory_id

    def search(self, tenant: str, user_id: str, query: str, *, k: int = 5) -> list[ScoredMemory]:
        """Plain vector search (recall with fusion and gating builds on this)."""
        scope = self.scope(tenant, user_id)
        text = validate.text(query, field="query", max_bytes=self._settings.limits.max_text_bytes)
        k = validate.page_size(k, maximum=self._settings.limits.max_page_size, field="k")
        embedding = self._embedder.embed_query(text)
        exact = self._memories.count(scope) <= EXACT_SCAN_MAX_MEMORIES
        return self._memories.vector_search(scope, [float(x) for x in embedding], k=k, exact=exact)
