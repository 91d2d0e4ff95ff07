"""Conflict use-cases (DESIGN.md "Conflicts"): detection after a memory is stored (a StoredMemoryHook),
resolution by strategy (LATEST default, STRONGER, REVIEW), the review queue and the history query.

Resolution: winner active +0.2, loser active -0.3 (clamped, weights recomputed), (winner)-[:SUPERSEDES]->
(loser), loser.valid_to and its triples' valid_to set, the loser's associations taken off it (a correction's
carried to the winner: cypher/conflict/settle_pair),
a SUPERSEDED event. A conflict that involves a locked (core) memory is always held for review: the system
never changes a locked memory on its own; the user settles it with resolveConflict.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from bmam.settings import LivingSettings, ModelCalibration
from bmam.usecases.hooks import Deferred, StoredMemoryContext
from graph.conflicts import (
    FACT_LIMIT,
    SIMILAR_LIMIT,
    CandidateFact,
    Conflict,
    ConflictRepository,
    ConflictStatus,
    ConflictStrategy,
    HistoryEntry,
    Screening,
    ScreenItem,
    conflict_id,
)
from graph.errors import BadInput, NotFound
from graph.errors import Conflict as ConflictError
from graph.memories import MemoryRepository
from graph.model import Memory, Scope, Triple
from graph.paging import Paged
from graph.related import FormBatch
from graph.store import Tx
from graph.triples import TripleRepository
from ingest.conflict_rules import (
    ATTITUDE_PREDICATES,
    DIET_PREDICATES,
    RELATIONSHIP_PREDICATES,
    Fact,
    Finding,
    Similar,
    Translated,
    about_relationship,
    detect,
    tells_a_pet_gone,
)
from ingest.embedding import Embedder
from ingest.extract import SINGLE_VALUED_PREDICATES
from ingest.lexicon import has_han
from ingest.weights import WeightPolicy

log = logging.getLogger(__name__)

# The rules' cosine lines are measured per embedding model (bmam/settings.py ModelCalibration, which says how); a
# model not measured gets the seed's negation line, and its favourite and cancellation rules the negation line.
CONFLICT_SIMILARITY_UNMEASURED = 0.75


@dataclass(frozen=True, slots=True)
class ConflictLines:
    """The cosine lines conflict detection uses: the negation rule's, the favourite and cancellation rules', and the
    line over which two values in two scripts are one value said in two languages (None: compared as written)."""

    negation: float
    favourite: float
    cancel: float
    translated: float | None


def conflict_lines(measured: ModelCalibration | None, living: LivingSettings) -> ConflictLines:
    """Each line: the deployment's setting (0.0 included), else the model's measured one, else the fallback."""
    m = measured
    negation = _first_set(living.conflict_similarity, m.conflict_similarity if m else None)
    if negation is None:
        negation = CONFLICT_SIMILARITY_UNMEASURED
    favourite = _first_set(living.favourite_similarity, m.favourite_similarity if m else None)
    cancel = _first_set(living.cancel_similarity, m.cancel_similarity if m else None)
    return ConflictLines(negation=negation, favourite=negation if favourite is None else favourite,
                         cancel=negation if cancel is None else cancel,
                         translated=_first_set(living.translated_similarity, m.translated_similarity if m else None))


def _first_set(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


class TranslatedValue:
    """Whether two values are one value said in two languages (ingest/conflict_rules.py Translated): one written
    in Han characters, the other not, their names' embeddings at least `threshold` apart in cosine."""

    def __init__(self, embedder: Embedder, threshold: float) -> None:
        self._embedder = embedder
        self._threshold = threshold

    def __call__(self, a: str, b: str) -> bool:
        if has_han(a) == has_han(b) or not a.strip() or not b.strip():
            return False
        va, vb = self._embedder.embed_passages([a, b])
        return float(va @ vb) >= self._threshold


def parse_strategy(value: str | ConflictStrategy | None, default: ConflictStrategy) -> ConflictStrategy:
    if value is None:
        return default
    try:
        return ConflictStrategy(str(value).upper())
    except ValueError as exc:
        choices = ", ".join(s.value for s in ConflictStrategy)
        raise BadInput(f"unknown conflict strategy {value!r}; one of {choices}", field="strategy") from exc


@dataclass(frozen=True, slots=True)
class ConflictSettings:
    strategy: ConflictStrategy = ConflictStrategy.LATEST
    similarity_threshold: float = 0.75
    favourite_threshold: float = 0.75
    cancel_threshold: float = 0.75
    revision_threshold: float | None = None  # a near-duplicate's cosine (IngestSettings.duplicate_similarity)
    max_page: int = 100

    @property
    def screen_threshold(self) -> float:
        """The cosine down to which similar memories are read: the lowest of the rules' lines."""
        return min(self.similarity_threshold, self.favourite_threshold, self.cancel_threshold)


def _new_facts(memory_id: str, triples: Sequence[Triple]) -> tuple[list[Fact], list[str]]:
    """The new memory's live facts and the predicates its conflicts may be about (sorted)."""
    new_facts = [Fact(memory_id, t.subject.name, t.predicate, t.object.name, t.polarity) for t in triples
                 if t.valid_to is None]
    predicates: set[str] = set()
    for f in new_facts:
        predicates.add(f.predicate)
        if f.predicate in ATTITUDE_PREDICATES:
            predicates |= ATTITUDE_PREDICATES
        if f.predicate in DIET_PREDICATES:  # a diet and what is eaten (diet_conflict)
            predicates |= DIET_PREDICATES
        if about_relationship(f.predicate, f.object):  # single, a partner, a spouse (relationship_conflict)
            predicates |= RELATIONSHIP_PREDICATES
    predicates &= (SINGLE_VALUED_PREDICATES | ATTITUDE_PREDICATES | DIET_PREDICATES | RELATIONSHIP_PREDICATES
                   | {f.predicate for f in new_facts})
    return new_facts, sorted(predicates)


def _fact(c: CandidateFact) -> Fact:
    """A screened triple as the conflict rules compare it."""
    return Fact(c.memory_id, c.subject, c.predicate, c.object, c.polarity)


_Key = tuple[Scope, str]


def _key(context: StoredMemoryContext) -> _Key:
    return (context.scope, context.memory.id)


@dataclass(slots=True)
class _Pending:
    """The screening of the batch in progress (per thread), read outside any transaction (tx None) or in tx, and
    the memories read to tell which of a pair was said later (their times and texts: no settlement changes them)."""

    tx: Tx | None
    cached: list[tuple[_Key, Screening | None]] = field(default_factory=list)
    said: dict[_Key, Memory] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Oriented:
    """A stored memory's findings the way each pair was said: those with memories said before it (it is the new
    side), and, per memory said after it that contradicts it, that memory's finding of it (the rules run from the
    later one, as its own detection would have run had they been said in this order), the earliest first."""

    mine: list[Finding]
    later: list[tuple[str, Finding]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.mine or self.later)


@dataclass(slots=True)
class _Foresight:
    """What settlements in tx look ahead at (ConflictRepository.foresee_in's rows by conflict id), read for the
    findings of all the batch's memories at once (per thread; a static choice only)."""

    tx: Tx
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)


def _newer(a: Memory, b: Memory) -> bool:
    """Whether a is newer than b: valid_from, then created_at; at the same time (the turns of a conversation
    sent without times are stamped with one) the later turn of the same session, else the one stored later
    (the user's memory sequence: a conversation's turns are stored in the order they were said, and its
    memories' hooks run after all of them were stored, so the memory being checked may be the older one);
    else a tie goes to a, the newly stored one."""
    if (a.valid_from, a.created_at) != (b.valid_from, b.created_at):
        return (a.valid_from, a.created_at) > (b.valid_from, b.created_at)
    pa, pb = a.provenance, b.provenance
    if pa.session_id is not None and pa.session_id == pb.session_id and pa.turn is not None and pb.turn is not None:
        return pa.turn >= pb.turn
    if a.said_order is not None and b.said_order is not None:  # a memory's remains stand where it stood
        return a.said_order >= b.said_order
    return True


def _said_later_in_batch(context: StoredMemoryContext, candidate_id: str) -> bool:
    """Whether the candidate was stored with the memory being checked, is newer and has its hooks still to run:
    its own detection finds this memory and records the pair the way it was said (new = the later memory,
    the reason from old to new), as when the turns come one at a time; found from the earlier memory, the
    pair would be recorded the wrong way round."""
    later = context.hooked_after(candidate_id)
    return later is not None and _newer(later, context.memory)


class ConflictUseCases:
    def __init__(self, *, clock: Clock, events: EventBus, conflicts: ConflictRepository,
                 memories: MemoryRepository, triples: TripleRepository, policy: WeightPolicy,
                 settings: ConflictSettings, translated: Translated | None = None) -> None:
        self._clock = clock
        self._events = events
        self._conflicts = conflicts
        self._memories = memories
        self._triples = triples
        self._policy = policy
        self.settings = settings
        self._translated = translated
        # Called with the conflicts settled together (a batch's hooks, one detection, one resolve), once they are
        # committed and published (the container's remains: bmam/usecases/remains.py)
        self.superseded: list[Callable[[Scope, Sequence[Conflict]], None]] = []
        # Called with a conflict the user settled (resolve) as it was read before and as settled, once committed and
        # published (the container's: a winner over a locked core memory takes its place in core,
        # bmam/container.py; the loser is unlocked by the settlement, so only the first says it was locked)
        self.resolved_by_user: list[Callable[[Scope, Conflict, Conflict], None]] = []
        self._local = threading.local()  # the screening of the batch in progress, per thread (many())

    # ----- detection ---------------------------------------------------------------------------

    def on_memory_stored(self, context: StoredMemoryContext) -> None:
        """The stored-memory hook: detect and settle conflicts of a memory the pipeline just stored."""
        self._detect(context, parse_strategy(None, self.settings.strategy))

    __call__ = on_memory_stored

    # The batch form of the hook (bmam/usecases/hooks.py BatchStoredMemoryHook). Detection reads memory
    # validity, live triples and embeddings, never associations, so the reads of a whole batch can be made up
    # front in one read transaction (ConflictRepository.screen) and give what each memory's own reads would
    # give as long as no conflict is settled in between. Only a memory whose reads find something writes (record
    # and settle, one write transaction, as detect would); what a settlement changes for the memories after
    # it (a loser is no longer live, nor are its triples) is applied to their screening, which is read again
    # only where a list was cut at its limit. The screening of the batch in progress is kept per thread
    # between segment() and many() (other hooks run in between write associations only).
    # segment_in / many_in (bmam/usecases/hooks.py TxStoredMemoryHook) do the same inside the transaction of
    # a whole batch's hooks: reads and settlements in it, the events published once it has committed. Their
    # screening in progress belongs to that transaction (a retry or another batch starts afresh).

    def segment(self, contexts: Sequence[StoredMemoryContext]) -> int:
        """Read-only: how many leading contexts many() handles before the first one that writes (that one
        included); len(contexts) when none does."""
        return self._segment(None, contexts)

    def segment_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> int:
        """segment, reading in tx."""
        return self._segment(tx, contexts)

    def _segment(self, tx: Tx | None, contexts: Sequence[StoredMemoryContext]) -> int:
        screened = self._screened(contexts, tx)
        for i, (context, screening) in enumerate(zip(contexts, screened, strict=True)):
            findings = self._findings(context, screening, tx)
            if findings:
                if tx is not None:
                    self._foresee(tx, contexts[i:], screened[i:], findings.mine)
                return i + 1
        return len(contexts)

    def _foresee(self, tx: Tx, contexts: Sequence[StoredMemoryContext], screened: Sequence[Screening],
                 first: Sequence[Finding]) -> None:
        """With a static choice, settling in tx looks ahead at the findings' memories and conflicts (conflict/foresee)
        before writing: read it for the findings of every memory left in the batch at once (the first one's given),
        in one statement, unless already read for the first one's. A settlement changes what a static choice looks at
        (locks and times) for no memory, nor whether memories exist or a later memory's conflicts are recorded, and
        later findings lose only settled losers (a list cut at its limit and read again may find other memories: a
        settlement not read ahead reads its own)."""
        if parse_strategy(None, self.settings.strategy) is not ConflictStrategy.LATEST:
            return
        foresight: _Foresight | None = getattr(self._local, "foresight", None)
        if foresight is None or foresight.tx is not tx:
            foresight = self._local.foresight = _Foresight(tx=tx)
        if first and all(conflict_id(contexts[0].scope, contexts[0].memory.id, f.old_memory_id) in foresight.rows
                         for f in first):
            return
        pairs: dict[Scope, dict[tuple[str, str], None]] = {}
        for i, (context, screening) in enumerate(zip(contexts, screened, strict=True)):
            for f in first if i == 0 else self._findings(context, screening, tx).mine:
                if conflict_id(context.scope, context.memory.id, f.old_memory_id) not in foresight.rows:
                    pairs.setdefault(context.scope, {})[(context.memory.id, f.old_memory_id)] = None
        for scope, wanted in pairs.items():
            foresight.rows.update(self._conflicts.foresee_in(tx, scope, list(wanted)))

    def _foreseen(self, tx: Tx | None, scope: Scope, memory_id: str, findings: Sequence[Finding]
                  ) -> list[dict[str, Any]] | None:
        """The rows _foresee read in tx for these findings, in order; None when any is missing."""
        foresight: _Foresight | None = getattr(self._local, "foresight", None)
        if tx is None or foresight is None or foresight.tx is not tx:
            return None
        rows = [foresight.rows.get(conflict_id(scope, memory_id, f.old_memory_id)) for f in findings]
        return [row for row in rows if row is not None] if all(row is not None for row in rows) else None

    def many(self, contexts: Sequence[StoredMemoryContext]) -> None:
        """Detect and settle the conflicts of several stored memories, in order, as one by one would."""
        self._many(None, contexts)

    def many_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> list[Callable[[], None]]:
        """many inside tx (which rolls back when the batched settlement of a memory finds it losing early:
        ConflictRepository.record_and_settle_in); returns the publishing of what was settled, for after
        the commit."""
        after: list[Callable[[], None]] = []
        self._many(tx, contexts, after)
        return after

    def many_in_after(self, tx: Tx, contexts: Sequence[StoredMemoryContext], before: Sequence[Deferred]
                      ) -> list[Callable[[], None]]:
        """many_in, the previous hook's deferred writes first (bmam/usecases/hooks.py TxCarryingHook): association
        forming of one user goes in the statement that settles the first memory with findings (nothing read before
        it reads associations; the settlement takes a loser's associations off it), anything else, or
        all of it when nothing is settled, on its own."""
        after: list[Callable[[], None]] = []
        self._many(tx, contexts, after, before=list(before))
        return after

    def _many(self, tx: Tx | None, contexts: Sequence[StoredMemoryContext],
              after: list[Callable[[], None]] | None = None, before: list[Deferred] | None = None) -> None:
        pending = before if before is not None else []
        settled: list[tuple[Scope, Conflict]] = []  # handed to the superseded callbacks at once, at the end

        def write_pending() -> None:
            for deferred in pending:
                assert tx is not None  # only many_in_after defers, in its transaction
                deferred.run_in(tx)
            pending.clear()

        try:
            screened = self._screened(contexts, tx)
            chosen = parse_strategy(None, self.settings.strategy)
            for i, context in enumerate(contexts):
                findings = self._findings(context, screened[i], tx)
                if not findings:
                    continue  # its own reads would find nothing: detect would write nothing
                forming = pending[0] if len(pending) == 1 and isinstance(pending[0], FormBatch) \
                    and pending[0].scope == context.scope else None
                if forming is None:
                    write_pending()
                pending.clear()
                # the screening is what detect's own reads would read now: settle what it found
                found = self._settle_oriented(context.scope, context.memory.id, findings, chosen, tx=tx,
                                              said_now=context.correction,
                                              after=after, foreseen=self._foreseen(
                                                  tx, context.scope, context.memory.id, findings.mine),
                                              forming=forming, settled=settled)
                losers = {c.loser_id for c in found if c.status is ConflictStatus.RESOLVED and c.loser_id}
                self._forget_losers(context.scope, losers, after=[_key(c) for c in contexts[:i + 1]], tx=tx)
                screened = self._screened(contexts, tx)  # the rest as it stands now (losers dropped, cut lists re-read)
            write_pending()  # nothing settled: written on their own
        except BaseException:
            self._local.screening = None
            raise
        self._drop_screening([_key(c) for c in contexts], tx)
        if settled:
            if after is None or tx is None:
                self._then(settled)
            else:
                self._then_after_commit(tx, after, settled)

    def _findings(self, context: StoredMemoryContext, screening: Screening, tx: Tx | None) -> _Oriented:
        """What ingest/conflict_rules.detect finds for the stored memory on the screened reads, each pair the way
        it was said (_Oriented). A memory found that was said later than this one (an import or a turn with an
        earlier `at` into a user who said something newer since; a concurrent upload's hooks run after the
        other's) is read (its times and text, in tx) and the rules are run from it, as its own detection would
        have run had they come in the order they were said: new = the later memory, the reason from old to new.
        Not for the user's correction, their word as of now (said_now)."""
        if not screening.exists or not screening.live:
            return _Oriented([])
        memory = context.memory
        new_facts, _ = _new_facts(memory.id, context.triples)
        old_facts = [_fact(c) for c in screening.facts if not _said_later_in_batch(context, c.memory_id)]
        similar = [Similar(s.memory_id, s.text, s.cosine) for s in screening.similar
                   if not _said_later_in_batch(context, s.memory_id)] if context.embedding else []
        found = self._detect_rules(memory.id, screening.text, new_facts, old_facts, similar)
        if not found or context.correction:
            return _Oriented(found)
        said = self._said(context.scope, [f.old_memory_id for f in found], tx)
        mine: list[Finding] = []
        later: list[tuple[Memory, Finding]] = []
        for f in found:
            other = said.get(f.old_memory_id)
            if other is None or _newer(memory, other):
                mine.append(f)
                continue
            # the later memory's facts among those screened (the ones about this memory's subjects and predicates:
            # the only ones a rule compares with this memory's), its text, and this memory as it is old to it
            back = self._detect_rules(
                other.id, other.text,
                [_fact(c) for c in screening.facts if c.memory_id == other.id],
                [replace(fact, memory_id=memory.id) for fact in new_facts],
                [Similar(memory.id, screening.text, s.cosine) for s in similar if s.memory_id == other.id])
            if back:  # else that memory's detection would not have called them a conflict: as if said in order
                later.append((other, back[0]))
        later.sort(key=lambda pair: (pair[0].valid_from, pair[0].created_at, pair[0].id))
        return _Oriented(mine, [(other.id, f) for other, f in later])

    def _detect_rules(self, memory_id: str, text: str, facts: Sequence[Fact], old_facts: Sequence[Fact],
                      similar: Sequence[Similar]) -> list[Finding]:
        return detect(new_memory_id=memory_id, new_text=text, new_facts=facts, old_facts=old_facts,
                      similar=similar, similarity_threshold=self.settings.similarity_threshold,
                      favourite_threshold=self.settings.favourite_threshold,
                      cancel_threshold=self.settings.cancel_threshold, translated=self._translated,
                      revision_threshold=self.settings.revision_threshold)

    def _said(self, scope: Scope, ids: Sequence[str], tx: Tx | None) -> dict[str, Memory]:
        """The memories of these ids (ConflictRepository.said), those of the batch in progress read once."""
        pending: _Pending | None = getattr(self._local, "screening", None)
        kept = pending.said if pending is not None and pending.tx is tx else {}
        missing = [i for i in ids if (scope, i) not in kept]
        if missing:
            kept.update({(scope, mid): m for mid, m in self._conflicts.said(tx, scope, missing).items()})
        return {i: kept[(scope, i)] for i in ids if (scope, i) in kept}

    def _cache(self, tx: Tx | None) -> list[tuple[_Key, Screening | None]]:
        """This thread's screening in progress, if it was read the same way (outside any transaction, or in tx)."""
        pending: _Pending | None = getattr(self._local, "screening", None)
        return pending.cached if pending is not None and pending.tx is tx else []

    def _keep(self, tx: Tx | None, cached: list[tuple[_Key, Screening | None]]) -> None:
        pending: _Pending | None = getattr(self._local, "screening", None)
        said = pending.said if pending is not None and pending.tx is tx else {}
        self._local.screening = _Pending(tx=tx, cached=cached, said=said) if cached else None

    def _screened(self, contexts: Sequence[StoredMemoryContext], tx: Tx | None) -> list[Screening]:
        """The screening of the contexts: from this thread's batch in progress when it starts with them,
        read (only what is missing; in tx when given) otherwise."""
        keys = [_key(c) for c in contexts]
        cached = self._cache(tx)
        if [k for k, _ in cached[:len(keys)]] != keys:
            cached = [(k, None) for k in keys]
        missing = [c for c, (_, s) in zip(contexts, cached, strict=False) if s is None]
        if missing:
            read: dict[_Key, Screening] = {}
            by_scope: dict[Scope, list[StoredMemoryContext]] = {}
            for c in missing:
                by_scope.setdefault(c.scope, []).append(c)
            for scope, items in by_scope.items():
                screen_items = [self._screen_item(c) for c in items]
                threshold = self.settings.screen_threshold
                found = (self._conflicts.screen(scope, screen_items, threshold=threshold) if tx is None
                         else self._conflicts.screen_in(tx, scope, screen_items, threshold=threshold))
                read.update({(scope, mid): sc for mid, sc in found.items()})
            cached = [(k, s if s is not None else read[k]) for k, s in cached]
        self._keep(tx, cached)
        return [s for _, s in cached[:len(keys)] if s is not None]

    @staticmethod
    def _screen_item(context: StoredMemoryContext) -> ScreenItem:
        new_facts, predicates = _new_facts(context.memory.id, context.triples)
        subjects = [f.subject for f in new_facts]
        if tells_a_pet_gone(context.memory.text):  # "Biscuit passed away" states no triple: the user's pets are read
            subjects, predicates = [*subjects, "user"], sorted({*predicates, "pet"})
        return ScreenItem(memory_id=context.memory.id, subjects=subjects, predicates=predicates,
                          embedding=context.embedding)

    def _forget_losers(self, scope: Scope, losers: set[str], *, after: list[_Key], tx: Tx | None) -> None:
        """Drop the handled contexts from the screening in progress and apply the settlement to the rest:
        a loser is no longer live, nor its facts, nor a similar memory; a list cut at its limit is re-read."""
        cached = self._cache(tx)
        if [k for k, _ in cached[:len(after)]] != after:
            self._keep(tx, [])
            return
        rest: list[tuple[_Key, Screening | None]] = []
        for k, sc in cached[len(after):]:
            if sc is None or k[0] != scope or not losers:
                rest.append((k, sc))
                continue
            facts = [f for f in sc.facts if f.memory_id not in losers]
            similar = [s for s in sc.similar if s.memory_id not in losers]
            cut = (len(facts) < len(sc.facts) and len(sc.facts) >= FACT_LIMIT) or \
                  (len(similar) < len(sc.similar) and len(sc.similar) >= SIMILAR_LIMIT)
            rest.append((k, None if cut else replace(sc, facts=facts, similar=similar,
                                                     live=sc.live and sc.memory_id not in losers)))
        self._keep(tx, [(k, sc) for k, sc in cached[:len(after)]] + rest)

    def _drop_screening(self, keys: list[_Key], tx: Tx | None) -> None:
        cached = self._cache(tx)
        self._keep(tx, cached[len(keys):] if [k for k, _ in cached[:len(keys)]] == keys else [])

    def detect(self, scope: Scope, memory: Memory, triples: Sequence[Triple], embedding: Sequence[float],
               strategy: str | ConflictStrategy | None = None) -> list[Conflict]:
        """Find every live memory the given one contradicts, record each conflict and settle it by the
        strategy (the setting unless given). Returns the conflicts as they stand afterwards."""
        context = StoredMemoryContext(scope=scope, memory=memory, triples=list(triples), embedding=list(embedding))
        return self._detect(context, parse_strategy(strategy, self.settings.strategy))

    def _detect(self, context: StoredMemoryContext, chosen: ConflictStrategy) -> list[Conflict]:
        scope, memory = context.scope, context.memory
        screening = self._conflicts.screen(scope, [self._screen_item(context)],
                                           threshold=self.settings.screen_threshold)[memory.id]
        findings = self._findings(context, screening, None)  # none when the memory is gone or already superseded
        settled: list[tuple[Scope, Conflict]] = []
        found = self._settle_oriented(scope, memory.id, findings, chosen, settled=settled,
                                      said_now=context.correction)
        self._then(settled)
        return found

    def _settle_oriented(self, scope: Scope, memory_id: str, findings: _Oriented, chosen: ConflictStrategy, *,
                         tx: Tx | None = None, after: list[Callable[[], None]] | None = None,
                         foreseen: Sequence[Mapping[str, Any]] | None = None, forming: FormBatch | None = None,
                         settled: list[tuple[Scope, Conflict]] | None = None,
                         said_now: bool = False) -> list[Conflict]:
        """_record_and_settle the memory's findings as the new side (foreseen: theirs), then each pair with a memory
        said later as that memory's, in the order said, while the memory is not superseded (one that lost
        contradicts nothing else, as one by one stops); forming goes with the first settlement."""
        found: list[Conflict] = []
        if findings.mine:
            found = self._record_and_settle(scope, memory_id, findings.mine, chosen, tx=tx, after=after,
                                            foreseen=foreseen, forming=forming, settled=settled, said_now=said_now)
            forming = None
        for newer_id, finding in findings.later:
            if any(c.status is ConflictStatus.RESOLVED and c.loser_id == memory_id for c in found):
                break
            found += self._record_and_settle(scope, newer_id, [finding], chosen, tx=tx, after=after,
                                             forming=forming, settled=settled)
            forming = None
        return found

    def _record_and_settle(self, scope: Scope, memory_id: str, findings: Sequence[Finding],
                           chosen: ConflictStrategy, *, tx: Tx | None = None,
                           after: list[Callable[[], None]] | None = None,
                           foreseen: Sequence[Mapping[str, Any]] | None = None,
                           forming: FormBatch | None = None,
                           settled: list[tuple[Scope, Conflict]] | None = None,
                           said_now: bool = False) -> list[Conflict]:
        """Record each finding and settle it by the strategy, in order, in one write transaction (stops
        once the new memory lost); then publish what was settled. Given tx: in tx, and the publishing is
        appended to `after` (for after its commit). said_now: the new memory is the user's correction, newer
        than any it meets (a correction holds since the memory it corrects, yet "I live in Berlin", said after
        that one, must not overrule the user's "... I live in Hamburg now")."""
        if not findings:
            return []

        def choose(new: Memory, old: Memory) -> str | None:
            if chosen is ConflictStrategy.STRONGER and new.weight.final != old.weight.final:
                winner = new if new.weight.final > old.weight.final else old
            else:
                winner = new if said_now or _newer(new, old) else old
            loser = old if winner is new else new
            # Held for review when the loser is locked: only the user supersedes a locked memory. A locked winner
            # is settled (superseding the other changes nothing of it; its weight is spared: spare_locked).
            return None if loser.locked else winner.id

        settle = self._conflicts.record_and_settle if tx is None else functools.partial(
            self._conflicts.record_and_settle_in, tx, foreseen=foreseen, forming=forming)
        done = settle(
            scope, memory_id, [(f.old_memory_id, f.kind, f.reason) for f in findings], strategy=chosen,
            choose=None if chosen is ConflictStrategy.REVIEW else choose, params=self._policy.cypher_params(),
            winner_bonus=self._policy.winner_bonus, loser_penalty=self._policy.loser_penalty,
            resolved_by=chosen.value, now=self._clock.now(),
            static_choice=chosen is ConflictStrategy.LATEST)  # LATEST looks at locks and times only
        for conflict, settled_now in done:
            if settled_now:
                if after is None:
                    self._publish(scope, conflict)
                else:
                    after.append(functools.partial(self._publish, scope, conflict))
                if settled is not None:
                    settled.append((scope, conflict))
        return [conflict for conflict, _ in done]

    def check(self, tenant: str, user_id: str, memory_id: str, *, strategy: str | None = None) -> list[Conflict]:
        """Run detection for a stored memory on demand (per-call strategy), e.g. after adding triples."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        memory = self._memories.get(scope, validate.identifier(memory_id, field="memoryId"))
        if memory is None:
            raise NotFound(f"memory {memory_id} not found")
        parsed = parse_strategy(strategy, self.settings.strategy)
        triples = self._triples.for_memory(scope, memory.id)
        return self.detect(scope, memory, triples, self._conflicts.embedding(scope, memory.id), parsed)

    # ----- settling ---------------------------------------------------------------------------

    def _publish(self, scope: Scope, conflict: Conflict) -> None:
        if (event := MemoryEvent.superseded(scope, conflict)) is not None:
            self._events.publish(event)

    def _then_after_commit(self, tx: Tx, after: list[Callable[[], None]],
                           settled: Sequence[tuple[Scope, Conflict]]) -> None:
        """The superseded callbacks after tx commits, once for everything its segments settle (run_hooks calls
        many_in per segment, and a segment ends at each memory that settles something): the settlements of tx
        gather in one list, and of the actions appended for it only the last one appended runs them (after every
        SUPERSEDED event of the batch)."""
        gathered: tuple[Tx, list[tuple[Scope, Conflict]]] | None = getattr(self._local, "settled", None)
        if gathered is None or gathered[0] is not tx:
            gathered = self._local.settled = (tx, [])
        items = gathered[1]
        items.extend(settled)
        mark = len(items)

        def then_if_last() -> None:
            if len(items) == mark:
                self._then(items)

        after.append(then_if_last)

    def _then(self, settled: Sequence[tuple[Scope, Conflict]]) -> None:
        """The superseded callbacks, once per user, with what was settled (and published) together."""
        by_scope: dict[Scope, list[Conflict]] = {}
        for scope, conflict in settled:
            if conflict.loser_id is not None:
                by_scope.setdefault(scope, []).append(conflict)
        for scope, conflicts in by_scope.items():
            for then in self.superseded:
                then(scope, conflicts)

    # ----- the review queue -------------------------------------------------------------------

    def conflicts(self, tenant: str, user_id: str, *, status: str | ConflictStatus | None = ConflictStatus.OPEN,
                  first: int = 20, after: str | None = None) -> list[Conflict]:
        """The user's conflicts, newest first: a page of conflict_page."""
        return self.conflict_page(tenant, user_id, status=status, first=first, after=after).items

    def conflict_page(self, tenant: str, user_id: str, *,
                      status: str | ConflictStatus | None = ConflictStatus.OPEN, first: int = 20,
                      after: str | None = None) -> Paged[Conflict]:
        """`first` of the user's conflicts (of a status; None: all), newest first, after the cursor `after` (a
        page's next_cursor, or any item's cursor)."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        limit = validate.page_size(first, maximum=self.settings.max_page)
        parsed: ConflictStatus | None = None
        if status is not None:
            try:
                parsed = ConflictStatus(str(status).upper())
            except ValueError as exc:
                raise BadInput(f"unknown conflict status {status!r}; OPEN or RESOLVED", field="status") from exc
        return self._conflicts.listing_page(scope, status=parsed, limit=limit, after=after)

    def get(self, tenant: str, user_id: str, conflict_id: str) -> Conflict | None:
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        return self._conflicts.get(scope, validate.identifier(conflict_id, field="id"))

    def resolve(self, tenant: str, user_id: str, conflict_id: str, winner_id: str) -> Conflict:
        """The user settles a conflict: the winner must be one of its two memories (else BAD_USER_INPUT);
        an unknown conflict is NOT_FOUND, a settled one CONFLICT. So is a moot one (a memory of it superseded
        since it was recorded): settling it would rewrite history (move the loser's valid_to, reward a winner that
        is no longer true), so it is closed, if still open, with neither memory changed, and the error says which
        memory was superseded, by what and when."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        conflict_id = validate.identifier(conflict_id, field="id")
        winner_id = validate.identifier(winner_id, field="winner")
        conflict = self._conflicts.get(scope, conflict_id)
        if conflict is None:
            raise NotFound(f"conflict {conflict_id} not found")
        if winner_id not in conflict.memory_ids:
            raise BadInput(f"winner {winner_id} is not one of the memories of conflict {conflict_id} "
                           f"({conflict.new_memory_id}, {conflict.old_memory_id})", field="winner")
        if conflict.moot:
            raise ConflictError(self._moot(scope, conflict))
        if conflict.status is not ConflictStatus.OPEN:
            raise ConflictError(f"conflict {conflict_id} is already resolved (winner {conflict.winner_id})")
        settled = self._conflicts.resolve(scope, conflict, choose=lambda new, old: winner_id,
                                          params=self._policy.cypher_params(),
                                          winner_bonus=self._policy.winner_bonus,
                                          loser_penalty=self._policy.loser_penalty, resolved_by="user",
                                          now=self._clock.now(), change_locked=True)
        if settled is None:
            again = self._conflicts.get(scope, conflict_id)
            if again is None or any(m is None for m in (again.new_memory, again.old_memory)):
                raise NotFound(f"a memory of conflict {conflict_id} no longer exists")
            raise ConflictError(f"conflict {conflict_id} is already resolved (winner {again.winner_id})")
        if settled.moot:  # conflict/resolve closed it instead: a memory was superseded after the read above
            raise ConflictError(self._moot(scope, settled))
        self._publish(scope, settled)
        self._then([(scope, settled)])
        for then in self.resolved_by_user:
            then(scope, conflict, settled)
        # as it stands after them (the winner may have moved to core)
        return (self._conflicts.get(scope, settled.id) or settled) if self.resolved_by_user else settled

    def _moot(self, scope: Scope, conflict: Conflict) -> str:
        """Why a conflict cannot be resolved any more: which of its memories was superseded, by what and when."""
        reasons: list[str] = []
        for memory_id in conflict.memory_ids:
            entry = next((h for h in self._conflicts.history(scope, entity=None, memory_id=memory_id,
                                                             limit=self.settings.max_page)
                          if h.memory.id == memory_id), None)
            if entry is not None and entry.memory.valid_to is not None:
                by = ", ".join(entry.superseded_by) or "another memory"
                reasons.append(f"memory {memory_id} was superseded by {by} at {entry.memory.valid_to.isoformat()}")
        why = "; ".join(reasons) or "one of its memories is no longer live"
        return (f"conflict {conflict.id} is moot: {why}; it is closed without a winner, neither memory changed "
                "(resolving it would rewrite their history)")

    # ----- history ---------------------------------------------------------------------------------

    def history(self, tenant: str, user_id: str, *, entity: str | None = None, memory_id: str | None = None,
                first: int = 50, after: str | None = None) -> list[HistoryEntry]:
        """Memories about an entity, or one memory, with their supersession chains: a page of history_page."""
        return self.history_page(tenant, user_id, entity=entity, memory_id=memory_id, first=first, after=after).items

    def history_page(self, tenant: str, user_id: str, *, entity: str | None = None, memory_id: str | None = None,
                     first: int = 50, after: str | None = None) -> Paged[HistoryEntry]:
        """Memories about an entity, or one memory, with their supersession chains (valid_from / valid_to
        on each); neither given: every memory that superseded or was superseded. Oldest first, `first` of them
        after the cursor `after`."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        limit = validate.page_size(first, maximum=self.settings.max_page)
        ent = validate.text(entity, field="entity", max_bytes=1024) if entity is not None else None
        mid = validate.optional_identifier(memory_id, field="memoryId")
        if mid is not None and self._memories.get(scope, mid) is None:
            raise NotFound(f"memory {mid} not found")
        return self._conflicts.history_page(scope, entity=ent, memory_id=mid, limit=limit, after=after)
