"""Ingest: conversation turns become episodes, and the user's salient turns typed, tiered memories with
their triples (DESIGN.md "The memory model", "Tiers", "Classifier", "Identity").

For each user, turns are processed in batches (settings.ingest.batch_turns):
1. outside any transaction: every user turn of the batch is embedded in one call; salience (filter 1),
   the three-level classifier and the triple extractor run on it (pure, no store);
2. one write transaction holding the user's lock: which turns exist already (an idempotent repeat
   changes nothing), which memories each turn repeats (cosine >= duplicate_similarity or the same
   normalised text, or one asserting every fact of a turn that says nothing besides, ingest/salience.py restates:
   mention_count + 1 instead of a new memory) and which temp memories it picks up
   (cosine >= engagement_similarity or one of their entities named: temp -> mid), both ranked in the
   in-process vector cache when it can answer (graph/episodes.py matches); then the episodes,
   memories, triples, DERIVED_FROM edges, mentions and promotions are written with UNWIND statements
   and the capacities restored. Nothing of a batch is ever half-written;
3. after the commit: events are published, the stored-memory hooks run (a segment of the batch's new memories
   at a time; batch-aware hooks all in one transaction when they can), working memory records the turns.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from bmam.settings import IngestSettings, Settings
from bmam.usecases.hooks import StoredMemoryContext, StoredMemoryHook, marked_done, run_hooks
from bmam.usecases.memories import EXACT_SCAN_MAX_MEMORIES
from bmam.usecases.tiers import TierUseCases, change_event
from graph.episodes import (
    EpisodeRepository,
    EpisodeRow,
    SimilarMemory,
    StatedFact,
    TurnMatches,
    episode_id,
    memory_id_for,
)
from graph.errors import BadInput, BmamError, LimitExceeded, NotFound, StoreUnavailable
from graph.ids import log_name, log_session
from graph.memories import MemoryRepository, PendingHooks
from graph.model import (
    MAX_TURN,
    ClassifierLevel,
    Memory,
    MemoryType,
    NewMemory,
    PresetKind,
    Provenance,
    Scope,
    Tier,
    Triple,
)
from graph.store import GraphStore, Tx
from graph.text_key import text_key
from graph.tiers import MemoryUpdate, TierRepository
from graph.triples import TripleRepository, TripleSpec
from ingest.classify import Classification, TypeClassifier
from ingest.conflict_rules import (
    Fact,
    Similar,
    favourite_conflict,
    polarity_conflict,
    relationship_conflict,
    single_valued_conflict,
)
from ingest.conflict_text import changed_detail
from ingest.decision_rules import decision_changed, handover_conflict
from ingest.embedding import Embedder
from ingest.extract import USER, ExtractedTriple, TripleExtractor, normalize_term
from ingest.salience import RESTATED_PREDICATES, Salience, assess, restates
from ingest.scoring import changes_what_was_said
from ingest.tier_policy import Reason, TierChange, TierRules, core_has_room, on_mention, on_new_memory, on_topic
from ingest.turns import (
    SPEAKERS,
    Speaker,
    TurnInput,
    given_twice,
    parse_speaker,
    positions,
)
from ingest.working_memory import Turn, WorkingMemory

log = logging.getLogger(__name__)

# ----- results ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnError:
    """Why a turn (or part of it) was refused: BAD_USER_INPUT (the turn is not stored), CONFLICT (its
    index is taken by another text, or a core promotion was refused while the turn was stored)."""

    code: str
    message: str
    field: str | None = None


@dataclass
class TurnResult:
    """What became of one turn of a request (index = its position in the request or file)."""

    index: int
    stored: bool = False  # an episode exists for it now (new or an idempotent repeat)
    duplicate: bool = False  # the episode existed already: nothing changed
    episode_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    turn: int | None = None
    speaker: str | None = None
    remembered: bool = False  # filter 1 kept it (a new memory, or a mention of an existing one)
    reason: str | None = None  # filter 1's reason (preference, question, chitchat, assistant_turn, ...)
    memories: list[Memory] = field(default_factory=list)  # created by this turn
    mentioned: list[Memory] = field(default_factory=list)  # existing memories it repeated
    triples: list[Triple] = field(default_factory=list)
    changes: list[TierChange] = field(default_factory=list)  # promotions this turn caused
    errors: list[TurnError] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)  # memories it took back ("forget what I just said")


@dataclass
class IngestReport:
    """The results of a request, in request order, and the capacity moves its writes caused."""

    turns: list[TurnResult]
    changes: list[TierChange] = field(default_factory=list)

    @property
    def stored(self) -> int:
        return sum(1 for t in self.turns if t.stored and not t.duplicate)

    @property
    def duplicates(self) -> int:
        return sum(1 for t in self.turns if t.duplicate)

    @property
    def failed(self) -> int:
        return sum(1 for t in self.turns if not t.stored)


# ----- helpers ------------------------------------------------------------------------------


# Whose turns are being analysed (set by IngestUseCases around a user's batch): the key CachingExtractor
# files their texts under. Salience and the rule classifier call the extractor with the text alone.
_EXTRACTING_FOR: ContextVar[Scope | None] = ContextVar("bmam_extracting_for", default=None)


@contextmanager
def extracting_for(scope: Scope) -> Iterator[None]:
    """The extractor calls in the block are for this user's turns (CachingExtractor keeps them under it)."""
    token = _EXTRACTING_FOR.set(scope)
    try:
        yield
    finally:
        _EXTRACTING_FOR.reset(token)


class CachingExtractor:
    """Salience, the rule classifier and the pipeline all read a turn's triples: extract each text once.
    The texts (raw turns) are kept per user, under the scope extracting_for() names, so that forgetUser
    drops them (forget_user, an erasure hook); a call outside extracting_for() is not cached."""

    def __init__(self, inner: TripleExtractor, size: int = 4096) -> None:
        self._inner = inner
        self._size = size
        self._cache: OrderedDict[tuple[str, str, str], tuple[ExtractedTriple, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def extract(self, text: str) -> list[ExtractedTriple]:
        scope = _EXTRACTING_FOR.get()
        if scope is None:
            return list(self._inner.extract(text))
        key = (scope.tenant, scope.user_id, text)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return list(found)
        result = tuple(self._inner.extract(text))
        with self._lock:
            self._cache[key] = result
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return list(result)

    def forget_user(self, scope: Scope) -> None:
        """forgetUser's hook: drop the user's texts and their triples."""
        with self._lock:
            for key in [k for k in self._cache if k[0] == scope.tenant and k[1] == scope.user_id]:
                del self._cache[key]


_HAN = re.compile(r"[\u4e00-\u9fff]")

_switch_lock = threading.Lock()
_switch_users = 0
_switch_saved = 0.0


@contextmanager
def switch_interval(ms: float) -> Iterator[None]:
    """Lower the interpreter's thread switch interval to ms while the block runs (0: leave it). A
    pipelined ingest writes to Neo4j in one thread while another analyses the next batch in Python,
    holding the GIL; each socket read or write of the writer then waits for the GIL up to the switch
    interval (5 ms by default), several hundred times a batch. Counted, so overlapping ingests restore
    the interval once the last one ends; never raises it."""
    global _switch_users, _switch_saved
    if ms <= 0:
        yield
        return
    with _switch_lock:
        if _switch_users == 0:
            _switch_saved = sys.getswitchinterval()
        _switch_users += 1
        sys.setswitchinterval(min(ms / 1000.0, _switch_saved))
    try:
        yield
    finally:
        with _switch_lock:
            _switch_users -= 1
            if _switch_users == 0:
                sys.setswitchinterval(_switch_saved)


class NameIndex:
    """Which memories a text names an entity of: Chinese names of 2+ characters found as substrings,
    others of 3+ characters as whole words (so "tea" is not found in "steak"). The user is no topic."""

    def __init__(self, names_by_memory: dict[str, list[str]]) -> None:
        self._han: dict[str, list[str]] = {}
        self._latin: dict[str, list[str]] = {}
        for mid, names in names_by_memory.items():
            for name in names:
                n = " ".join(name.casefold().split())
                if n == USER:
                    continue
                if _HAN.search(n):
                    if len(n) >= 2:
                        self._han.setdefault(n, []).append(mid)
                elif len(n) >= 3:
                    self._latin.setdefault(n, []).append(mid)
        alternatives = "|".join(re.escape(n) for n in sorted(self._latin, key=len, reverse=True))
        self._latin_re = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)") if self._latin else None

    def find(self, text: str) -> list[str]:
        folded = " ".join(text.casefold().split())
        found: list[str] = []
        for name, mids in self._han.items():
            if name in folded:
                found += mids
        if self._latin_re is not None:
            for m in self._latin_re.finditer(folded):
                found += self._latin[m.group(0)]
        return list(dict.fromkeys(found))


def repeats(turn_keys: set[tuple[str, str, str, int]], memory_triples: Sequence[tuple[str, str, str, int]]) -> bool:
    """Whether a turn can be a repeat of a memory as far as triples tell: everything the turn asserts
    the memory asserts too (same subject, predicate, object and polarity)."""
    if not turn_keys:
        return True
    have = {(normalize_term(s), p, normalize_term(o), pol) for s, p, o, pol in memory_triples}
    return turn_keys <= have


@dataclass(frozen=True, slots=True)
class _Valid:
    index: int
    scope: Scope
    session_id: str
    speaker: Speaker
    text: str
    at: datetime
    at_given: bool
    device_id: str | None
    turn: int | None


@dataclass
class _Analysis:
    embedding: np.ndarray
    salience: Salience
    classification: Classification | None = None
    triples: list[ExtractedTriple] | None = None


@dataclass
class _State:
    """A memory's tier state as the batch sees it (read from the store, or created in the batch)."""

    tier: Tier
    mention_count: int
    locked: bool = False
    embedding: np.ndarray | None = None  # memories created in this batch
    key: str | None = None
    names: list[str] = field(default_factory=list)
    name_index: NameIndex | None = None  # NameIndex of names, built once (memories created in this batch)
    keys: set[tuple[str, str, str, int]] = field(default_factory=set)  # its triples, normalised
    text: str | None = None  # memories created in this batch
    preset_kind: PresetKind | None = None  # memories created in this batch


@dataclass
class _BatchOutcome:
    """What a written batch hands back (IngestUseCases._batch): the results, and what to do after the commit."""

    results: dict[int, TurnResult]
    changes: list[TierChange]
    events: list[MemoryEvent]
    hooks: list[StoredMemoryContext]
    recorded: dict[str, list[Turn]]
    hooks_left: bool = False  # memories of the user whose hooks were left pending earlier (resume_hooks)


def _decay_groups(updates: Iterable[MemoryUpdate], now: datetime) -> dict[datetime, list[str]]:
    """The memories to bring up to a time before their updates land, by that time: into core, the time of the turn
    that moved them (they are locked from then on); with engagement's active weight only, now."""
    groups: dict[datetime, list[str]] = {}
    for u in updates:
        if u.tier is Tier.CORE:
            groups.setdefault(min(u.moved_at or now, now), []).append(u.id)
        elif u.active_delta:
            groups.setdefault(now, []).append(u.id)
    return groups


@dataclass
class _BatchPlan:
    """What the write transaction makes of one batch of a user's turns, built step by step from what the store
    answers before anything is written (IngestUseCases._write): where each turn goes, which turns are fresh,
    the memories they create or mention, the tier moves they cause and the events to publish afterwards. It
    only reads and builds; a retried transaction builds a new one."""

    scope: Scope
    ingest: IngestSettings
    rules: TierRules
    turn_index: dict[int, int]  # a turn's index in its session, by request position
    ids: dict[int, str]  # its episode id, by request position
    core_count: int  # memories in core, counting the promotions planned so far
    hooks_left: bool = False  # the user has memories whose hooks were left pending earlier
    results: dict[int, TurnResult] = field(default_factory=dict)  # in batch order
    fresh: list[_Valid] = field(default_factory=list)  # the turns not stored yet, in batch order
    similar: dict[int, list[SimilarMemory]] = field(default_factory=dict)  # stored memories a user turn may repeat
    asserting: dict[int, list[SimilarMemory]] = field(default_factory=dict)  # those asserting all its facts
    topics: dict[int, list[str]] = field(default_factory=dict)  # stored temp memories whose topic it picks up
    topic_triples: dict[str, tuple[tuple[str, str, str, int], ...]] = field(default_factory=dict)  # theirs
    topic_texts: dict[str, str] = field(default_factory=dict)
    temp_names: NameIndex = field(default_factory=lambda: NameIndex({}))  # the temp memories' entity names
    states: dict[str, _State] = field(default_factory=dict)  # every memory the batch touches
    updates: dict[str, MemoryUpdate] = field(default_factory=dict)  # mentions and tier moves, by memory
    events: list[MemoryEvent] = field(default_factory=list)
    new_memories: list[NewMemory] = field(default_factory=list)
    new_times: list[datetime] = field(default_factory=list)  # created_at of each new memory
    new_specs: dict[str, list[TripleSpec]] = field(default_factory=dict)  # the triples of each new memory
    derived: list[tuple[str, str]] = field(default_factory=list)  # (memory, episode): DERIVED_FROM
    created_by: dict[int, list[str]] = field(default_factory=dict)  # by request position
    mentioned_by: dict[int, list[str]] = field(default_factory=dict)  # by request position
    batch_new: list[str] = field(default_factory=list)  # memories created in this batch, in order

    # ----- the turns -------------------------------------------------------------------------

    def sort(self, batch: Sequence[_Valid], existing: dict[str, tuple[str, str]]) -> None:
        """Every turn gets its result. A turn whose episode exists with the same speaker and text is a duplicate
        (stored already: nothing changes); with another speaker or text, a conflict (not stored); the rest
        are fresh."""
        for v in batch:
            r = TurnResult(index=v.index, user_id=self.scope.user_id, session_id=v.session_id,
                           turn=self.turn_index[v.index], speaker=v.speaker.value, episode_id=self.ids[v.index])
            self.results[v.index] = r
            found = existing.get(self.ids[v.index])
            if found is None:
                self.fresh.append(v)
            elif found == (v.speaker.value, v.text):
                r.stored = r.duplicate = True
            else:
                r.episode_id = None
                r.errors.append(TurnError(
                    "CONFLICT", f"turn {self.turn_index[v.index]} of session {v.session_id!r} is stored with another "
                    "speaker or text; give new turns their own index", "turn"))

    def fresh_user_turns(self) -> list[_Valid]:
        return [v for v in self.fresh if v.speaker is Speaker.USER]

    def read_matches(self, matches: TurnMatches, temp_entities: dict[str, list[str]]) -> None:
        """What the store found the fresh user turns repeat and pick up, and the tier state of those memories."""
        for s in matches.similar:
            self.similar.setdefault(s.candidate, []).append(s)
        for i, mid, _ in matches.topics:
            self.topics.setdefault(i, []).append(mid)
        self.topic_triples = dict(matches.topic_triples)
        self.topic_texts = dict(matches.topic_texts)
        self.temp_names = NameIndex(temp_entities)
        for rows in self.similar.values():
            for s in rows:
                self.states.setdefault(s.id, _State(tier=s.tier, mention_count=s.mention_count, locked=s.locked))
        for mids in self.topics.values():
            for mid in mids:
                self.states.setdefault(mid, _State(tier=Tier.TEMP, mention_count=1))

    def read_asserting(self, found: Sequence[SimilarMemory]) -> None:
        """The stored memories asserting every fact a fresh user turn states (what a restatement repeats)."""
        for a in found:
            self.asserting.setdefault(a.candidate, []).append(a)
            self.states.setdefault(a.id, _State(tier=a.tier, mention_count=a.mention_count, locked=a.locked))

    def episode_rows(self) -> list[EpisodeRow]:
        return [EpisodeRow(id=self.ids[v.index], session_id=v.session_id, turn=self.turn_index[v.index],
                           speaker=v.speaker.value, text=v.text, at=v.at, device_id=v.device_id) for v in self.fresh]

    # ----- memories --------------------------------------------------------------------------

    def update(self, mid: str, **kw: object) -> None:
        u = self.updates.get(mid, MemoryUpdate(id=mid))
        self.updates[mid] = replace(u, **kw)  # type: ignore[arg-type]

    def move(self, mid: str, steps: Sequence[tuple[Tier, Tier, Reason]], r: TurnResult, at: datetime,
             active: float = 0.0) -> None:
        """The tier move: the steps in order, while the memory is where a step starts and not locked. A step into
        a full core is refused (a CONFLICT on the turn, which stays stored). active (implicit feedback) goes
        with the first step taken."""
        st = self.states[mid]
        for src, dst, why in steps:
            if st.tier is not src or st.locked:
                return
            if dst is Tier.CORE:
                if not core_has_room(self.core_count, self.rules.capacities):
                    r.errors.append(TurnError(
                        "CONFLICT", f"memory {mid} was not promoted to core: core is full "
                        f"({self.rules.capacities.core} memories); unlock or forget one first"))
                    return
                self.core_count += 1
            change = TierChange(mid, src, dst, why)
            st.tier = dst
            st.locked = dst is Tier.CORE
            prev = self.updates.get(mid)
            # moved_at: the tier's clock starts at this turn (tier_since), so the next sweep does not count the
            # user's engagement as "unmentioned" since the memory was said (a just-promoted memory sent back)
            self.update(mid, tier=dst, moved_at=at, active_delta=(prev.active_delta if prev else 0.0) + active)
            active = 0.0
            r.changes.append(change)
            self.events.append(change_event(self.scope, change, at))

    def repeated_memory(self, v: _Valid, embedding: np.ndarray, key: str,
                        turn_keys: set[tuple[str, str, str, int]]) -> str | None:
        """The most similar live memory the turn repeats, stored or created earlier in the batch, if any. A turn
        saying one of its words otherwise ("first run make release" for "... make build") repeats nothing, however
        close its embedding: it is stored, and the conflict rules read it as a revision. The same words (text_key)
        repeat a memory whatever triples it holds: one `remember` stored has none of its own."""
        best: tuple[float, str] | None = None
        for s in self.similar.get(v.index, []):
            if (best is None or s.cosine > best[0]) and (repeats(turn_keys, s.triples) or text_key(s.text) == key) \
                    and not changed_detail(v.text, s.text)[0]:
                best = (s.cosine, s.id)
        for mid in self.batch_new:
            st = self.states[mid]
            assert st.embedding is not None
            cos = float(np.dot(st.embedding, embedding))
            if ((cos >= self.ingest.duplicate_similarity or st.key == key) and (best is None or cos > best[0])
                    and turn_keys <= st.keys and not (st.text and changed_detail(v.text, st.text)[0])):
                best = (cos, mid)
        return best[1] if best else None

    def restated_memory(self, v: _Valid, turn_keys: set[tuple[str, str, str, int]],
                        preset_kind: PresetKind) -> str | None:
        """The live memory a turn saying facts again in other words repeats (ingest/salience.py restates decides
        whether it says nothing besides): one asserting every fact the turn states, stored or created earlier in the
        batch, not told apart by a detail (changed_detail) nor holding a safety fact as any other (a turn the filter
        calls safety-critical is a memory of its own beside one that is not); the one in the highest tier, then the
        most mentioned, then the first said."""
        def apart(kind: str | None, text: str | None) -> bool:
            return (preset_kind is PresetKind.SAFETY and kind != preset_kind) or bool(
                text and changed_detail(v.text, text)[0])

        found = [a.id for a in self.asserting.get(v.index, [])
                 if repeats(turn_keys, a.triples) and not apart(a.preset_kind, a.text)]
        found += [mid for mid, st in ((m, self.states[m]) for m in self.batch_new)
                  if turn_keys <= st.keys and not apart(st.preset_kind, st.text)]
        return min(found, key=lambda mid: (-self.states[mid].tier.rank, -self.states[mid].mention_count,
                                           found.index(mid)), default=None) if turn_keys else None

    def mention(self, match: str, v: _Valid, *, emphasis: bool) -> None:
        """A user turn that repeats a memory: mention_count + 1, DERIVED_FROM the turn, and the tier move the
        mention earns (out of temp with implicit feedback)."""
        r = self.results[v.index]
        st = self.states[match]
        st.mention_count += 1
        prev = self.updates.get(match)
        self.update(match, mentions=(prev.mentions if prev else 0) + 1, mentioned_at=v.at)
        self.derived.append((match, self.ids[v.index]))
        self.mentioned_by.setdefault(v.index, []).append(match)
        steps = on_mention(st.tier, st.mention_count, emphasis=emphasis, rules=self.rules)
        self.move(match, steps, r, v.at,
                  active=self.rules.implicit_feedback if steps and steps[0][0] is Tier.TEMP else 0.0)

    def new_memory(self, v: _Valid, a: _Analysis, sal: Salience, *, key: str,
                   turn_keys: set[tuple[str, str, str, int]], preset: float) -> None:
        """A user turn that makes a new memory: typed, in temp (straight to core when emphasised), with its
        triples, DERIVED_FROM the turn."""
        assert a.classification is not None and a.triples is not None
        r = self.results[v.index]
        eid = self.ids[v.index]
        mid = memory_id_for(eid, self.scope, 0)
        cls = a.classification
        memory_type, level, confidence = cls.type, cls.level, cls.confidence
        if memory_type is MemoryType.WORKING:  # filter 1 keeps it: a statement, not working memory
            memory_type, level, confidence = MemoryType.FACTUAL, ClassifierLevel.FALLBACK, 0.5
        self.new_memories.append(NewMemory(
            id=mid, text=v.text, type=memory_type, embedding=a.embedding.tolist(), tier=Tier.TEMP,
            preset_kind=sal.preset_kind, preset=preset, classified_by=level, confidence=float(confidence),
            provenance=Provenance(session_id=v.session_id, turn=self.turn_index[v.index], device_id=v.device_id,
                                  episode_id=eid)))
        self.new_times.append(v.at)
        names = sorted({n for t in a.triples for n in (t.subject, t.object) if n != USER})
        self.states[mid] = _State(tier=Tier.TEMP, mention_count=1, embedding=a.embedding, key=key, names=names,
                                  keys=turn_keys, text=v.text, preset_kind=sal.preset_kind)
        self.new_specs[mid] = [TripleSpec(memory_id=mid, subject=t.subject, subject_kind=t.subject_kind,
                                          predicate=t.predicate, object=t.object, object_kind=t.object_kind,
                                          polarity=t.polarity, now=v.at) for t in a.triples]
        self.derived.append((mid, eid))
        self.created_by.setdefault(v.index, []).append(mid)
        self.events.append(MemoryEvent.created(self.scope, mid, tier=Tier.TEMP, memory_type=memory_type, at=v.at))
        self.move(mid, on_new_memory(emphasis=sal.emphasis), r, v.at)
        self.batch_new.append(mid)

    def pick_up_topics(self, v: _Valid, embedding: np.ndarray) -> None:
        """Implicit engagement: this turn picks up the topic of temp memories said before it (stored ones the
        store matched or whose entity it names, or created earlier in the batch): temp -> mid."""
        r = self.results[v.index]
        own = set(self.created_by.get(v.index, [])) | set(self.mentioned_by.get(v.index, []))
        picked: list[str] = list(self.topics.get(v.index, []))
        for mid in self.temp_names.find(v.text):
            self.states.setdefault(mid, _State(tier=Tier.TEMP, mention_count=1))
            picked.append(mid)
        for mid in self.batch_new:
            st = self.states[mid]
            if mid in own or st.tier is not Tier.TEMP:
                continue
            assert st.embedding is not None
            if st.name_index is None:
                st.name_index = NameIndex({"": st.names})
            if float(np.dot(st.embedding, embedding)) >= self.ingest.engagement_similarity or bool(
                    st.name_index.find(v.text)):
                picked.append(mid)
        said = [t for m in self.created_by.get(v.index, []) for t in self.new_specs.get(m, [])]
        for mid in dict.fromkeys(picked):
            if mid in own or mid not in self.states:
                continue
            theirs = self.topic_triples.get(mid) or tuple(
                (t.subject, t.predicate, t.object, t.polarity) for t in self.new_specs.get(mid, []))
            their_text = self.topic_texts.get(mid) or next((n.text for n in self.new_memories if n.id == mid), "")
            if (said and _contradicts(said, theirs)) or (their_text and (_favourite_changed(v.text, their_text)
                                                                         or _choice_changed(v.text, their_text)
                                                                         or changes_what_was_said(v.text,
                                                                                                  their_text))):
                # "I live in Hamburg now" is no interest in "I live in Berlin": the conflict settles them; nor is
                # "涨价了 凉皮从8块涨到10块" in "一份凉皮卖8块" (lifted to mid, the stale price ranked first)
                continue
            step = on_topic(self.states[mid].tier)
            if step is not None:
                self.move(mid, [step], r, v.at, active=self.rules.implicit_feedback)

    # ----- after the writes ------------------------------------------------------------------

    def wanted(self) -> list[str]:
        """The memories to answer with: those the fresh turns created, then those they mentioned."""
        return [m for ms in (*self.created_by.values(), *self.mentioned_by.values()) for m in ms]

    def answer(self, batch: Sequence[_Valid], final: dict[str, Memory], stored_triples: list[Triple],
               capacity: list[TierChange]) -> _BatchOutcome:
        """The answer, from the final state (a memory evicted by capacity enforcement is not returned): each
        turn's memories, mentions and triples, the stored-memory hooks' contexts, the turns for working memory."""
        triples_of: dict[str, list[Triple]] = {}
        for t in stored_triples:
            triples_of.setdefault(t.memory_id, []).append(t)
        hooks: list[StoredMemoryContext] = []
        embedding_of = {n.id: n.embedding for n in self.new_memories}
        for v in self.fresh:
            r = self.results[v.index]
            for mid in self.created_by.get(v.index, []):
                r.triples += triples_of.get(mid, [])
                if mid in final:
                    r.memories.append(final[mid])
                    hooks.append(StoredMemoryContext(scope=self.scope, memory=final[mid],
                                                     triples=triples_of.get(mid, []), embedding=embedding_of[mid],
                                                     episode_id=self.ids[v.index]))
            r.mentioned += [final[m] for m in self.mentioned_by.get(v.index, []) if m in final]
        recorded: dict[str, list[Turn]] = {}
        for v in batch:
            r = self.results[v.index]
            if r.stored and r.episode_id:
                recorded.setdefault(v.session_id, []).append(
                    Turn(speaker=v.speaker.value, text=v.text, at=v.at, turn=self.turn_index[v.index],
                         episode_id=r.episode_id))
        return _BatchOutcome(results=self.results, changes=capacity, events=self.events, hooks=hooks, recorded=recorded,
                             hooks_left=self.hooks_left)


def _favourite_changed(text: str, theirs: str) -> bool:
    """Whether a turn names another favourite of a kind the memory names (the favourite rule, cosine aside): under
    STRONGER, "Actually my favorite singer is Taylor Swift now" lifted 我最喜欢的歌手是周杰伦 and lost to it."""
    return favourite_conflict(text, Similar("theirs", theirs, 1.0), 0.0) is not None


def _choice_changed(text: str, theirs: str) -> bool:
    """Whether a turn changes a choice or hands over a duty the memory states (the decision-change and hand-over
    rules, cosine aside): "Marco is leaving ... Aisha takes over the frontend" lifted "Marco does the frontend ..."
    to mid in the turn that ended it."""
    return decision_changed(text, theirs) is not None \
        or handover_conflict(text, Similar("theirs", theirs, 1.0), 0.0) is not None


def _contradicts(said: Sequence[TripleSpec], theirs: Sequence[tuple[str, str, str, int]]) -> bool:
    """Whether a turn's triples contradict a memory's by the triple rules (ingest/conflict_rules.py): another value
    of a single-valued slot, or the opposite polarity. Engaging with that memory would lift what the conflict is
    about to settle: under STRONGER the old fact, +0.2 for being contradicted, won every tie."""
    new = [Fact("new", t.subject, t.predicate, t.object, t.polarity) for t in said]
    old = [Fact("old", s, p, o, pol) for s, p, o, pol in theirs]
    return any(single_valued_conflict(n, o) or polarity_conflict(n, o) or relationship_conflict(n, o)
               for n in new for o in old)


# ----- the use-cases -------------------------------------------------------------------------


class IngestUseCases:
    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        embedder: Embedder,
        classifier: TypeClassifier,
        extractor: TripleExtractor,
        store: GraphStore,
        episodes: EpisodeRepository,
        memories: MemoryRepository,
        triples: TripleRepository,
        tiers: TierRepository,
        tier_cases: TierUseCases,
        working_memory: WorkingMemory,
        hooks: list[StoredMemoryHook],
        events: EventBus,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._embedder = embedder
        self._classifier = classifier
        self._extractor = extractor
        self._store = store
        self._episodes = episodes
        self._memories = memories
        self._triples = triples
        self._tiers = tiers
        self._tier_cases = tier_cases
        self._wm = working_memory
        self._hooks = hooks  # the container's list: features append to it after construction
        self._events = events

    # ----- entry points ---------------------------------------------------------------------

    def ingest_turn(self, tenant: str, turn: TurnInput) -> TurnResult:
        """One turn (ingestTurn). Invalid input raises. Without a turn index it is appended after the
        session's last turn, unless that last turn has the same speaker and text (and time, when given):
        then it is a retry of it and changes nothing."""
        valid = self._validate(0, tenant, turn, now=self._clock.now())
        report = self._run([valid], append=True)
        result = report.turns[0]
        result.changes = result.changes + report.changes
        return result

    def ingest_conversation(self, tenant: str, turns: Sequence[TurnInput],
                            on_progress: Callable[[int], None] | None = None) -> IngestReport:
        """Many turns (ingestConversation, a JSONL file). A turn without index gets its position among
        the request's turns of the same user and session; invalid turns are reported one by one and
        the valid ones kept."""
        limit = self._settings.ingest.max_turns_per_request
        if len(turns) > limit:
            raise LimitExceeded(f"{len(turns)} turns in one request; the limit is {limit}", field="turns")
        indexes = positions([(t.user_id, t.session_id) for t in turns], [t.turn for t in turns])
        return self.ingest_indexed(tenant, [replace(t, turn=i) for t, i in zip(turns, indexes, strict=True)],
                                   on_progress=on_progress, numbered=[t.turn is not None for t in turns])

    def ingest_indexed(self, tenant: str, turns: Sequence[TurnInput],
                       on_progress: Callable[[int], None] | None = None, *, numbered: Sequence[bool] | None = None,
                       names: Sequence[str] | None = None) -> IngestReport:
        """Turns whose indexes are already decided (the CLI places a file's lines itself). `numbered` says which
        of them the caller gave an index (None: all), `names` how the errors name them ("line 3"; default
        "request index 3"): two turns of a session placed on one index are refused with why."""
        now = self._clock.now()
        results: dict[int, TurnResult] = {}
        valid: list[_Valid] = []
        seen: dict[tuple[Scope, str, int], int] = {}
        given = list(numbered) if numbered is not None else [True] * len(turns)
        named = list(names) if names is not None else [f"request index {i}" for i in range(len(turns))]
        for i, t in enumerate(turns):
            try:
                v = self._validate(i, tenant, t, now=now, placed=not given[i])
            except BmamError as exc:
                results[i] = TurnResult(index=i, user_id=t.user_id, session_id=t.session_id, turn=t.turn,
                                        errors=[TurnError("BAD_USER_INPUT", exc.message, exc.field)])
                if t.turn is not None:  # a bad turn holds its index too: fixed and sent again, it takes it
                    seen.setdefault((Scope(tenant, t.user_id.strip()), t.session_id.strip(), t.turn), i)
                if on_progress:
                    on_progress(1)
                continue
            key = (v.scope, v.session_id, v.turn if v.turn is not None else -1)
            if key in seen:
                first = seen[key]
                message = given_twice(v.turn, v.session_id, first=named[first], first_numbered=given[first],
                                      numbered=given[i])
                results[i] = TurnResult(index=i, user_id=t.user_id, session_id=v.session_id, turn=v.turn,
                                        errors=[TurnError("BAD_USER_INPUT", message, "turn")])
                if on_progress:
                    on_progress(1)
                continue
            seen[key] = i
            valid.append(v)
        report = self._run(valid, append=False, on_progress=on_progress)
        for r in report.turns:
            results[r.index] = r
        return IngestReport(turns=[results[i] for i in range(len(turns))], changes=report.changes)

    # ----- validation -----------------------------------------------------------------------

    def _validate(self, index: int, tenant: str, t: TurnInput, *, now: datetime, placed: bool = False) -> _Valid:
        """The turn checked and normalised, or BadInput; placed: its index is not the caller's (positions)."""
        user = validate.identifier(t.user_id, field="userId")
        session = validate.identifier(t.session_id, field="sessionId")
        speaker = parse_speaker(t.speaker)
        if speaker is None:
            raise BadInput(f"speaker {t.speaker!r} is not one of {SPEAKERS}", field="speaker")
        text = validate.text(t.text, field="text", max_bytes=self._settings.limits.max_text_bytes)
        device = validate.optional_identifier(t.device_id, field="deviceId")
        if t.turn is not None and not 0 <= t.turn <= MAX_TURN:
            if placed:  # the caller wrote no index: say where this one came from
                raise BadInput(f"turn {t.turn} is over {MAX_TURN}: this unnumbered turn takes the index after the "
                               f"turn before it in its session ({t.turn - 1}); continue in a new session",
                               field="turn")
            raise BadInput(f"turn must be between 0 and {MAX_TURN}", field="turn")
        # a time ahead of the clock would make a memory that never goes stale, decays or is evicted first
        at = (validate.past_moment(t.at, field="at", now=now,
                                   skew=timedelta(seconds=self._settings.ingest.clock_skew_s))
              if t.at else now)
        return _Valid(index=index, scope=Scope(tenant, user), session_id=session, speaker=speaker, text=text,
                      at=at, at_given=t.at is not None, device_id=device, turn=t.turn)

    # ----- the pipeline ---------------------------------------------------------------------

    def _run(self, turns: Sequence[_Valid], *, append: bool,
             on_progress: Callable[[int], None] | None = None) -> IngestReport:
        by_user: dict[Scope, list[_Valid]] = {}
        for v in turns:
            by_user.setdefault(v.scope, []).append(v)
        size = self._settings.ingest.batch_turns
        batches = [(scope, items[start:start + size]) for scope, items in by_user.items()
                   for start in range(0, len(items), size)]
        results: list[TurnResult] = []
        changes: list[TierChange] = []
        if len(batches) <= 1:
            for scope, batch in batches:
                plan = self._batch(scope, batch, self._analyse(batch), append=append)
                results += plan.results.values()
                changes += plan.changes
                if on_progress:
                    on_progress(len(batch))
            return IngestReport(turns=results, changes=changes)
        # Pipelined: the next batch is embedded and analysed (numpy releases the GIL) while this one is
        # written to Neo4j and its hooks run, so the embedder rarely waits for the store.
        with (switch_interval(self._settings.ingest.pipeline_switch_interval_ms),
              ThreadPoolExecutor(max_workers=1, thread_name_prefix="bmam-ingest-analyse") as pool):
            ahead: Future[dict[int, _Analysis]] = pool.submit(self._analyse, batches[0][1])
            for k, (scope, batch) in enumerate(batches):
                analysis = ahead.result()
                if k + 1 < len(batches):
                    ahead = pool.submit(self._analyse, batches[k + 1][1])
                plan = self._batch(scope, batch, analysis, append=append)
                results += plan.results.values()
                changes += plan.changes
                if on_progress:
                    on_progress(len(batch))
        return IngestReport(turns=results, changes=changes)

    def _analyse(self, batch: Sequence[_Valid]) -> dict[int, _Analysis]:
        users = [v for v in batch if v.speaker is Speaker.USER]
        vectors = self._embedder.embed_passages([v.text for v in users]) if users else np.zeros((0, 0))
        out: dict[int, _Analysis] = {}
        for v, vec in zip(users, vectors, strict=True):
            with extracting_for(v.scope):
                sal = assess(v.text, speaker=v.speaker.value, extractor=self._extractor)
                a = _Analysis(embedding=np.asarray(vec, dtype=np.float32), salience=sal)
                if sal.remember:
                    self._classify(v, a)
            out[v.index] = a
        return out

    def _triples_of(self, v: _Valid, a: _Analysis) -> list[ExtractedTriple]:
        if a.triples is None:
            a.triples = self._extractor.extract(v.text)
        return a.triples

    def _restated_facts(self, v: _Valid, a: _Analysis) -> list[StatedFact]:
        """The facts a kept user turn states, when it may say them again (each of RESTATED_PREDICATES): what the
        memories asserting them all are read for (episode/asserting); none otherwise."""
        if not a.salience.remember:
            return []
        facts = self._triples_of(v, a)
        if any(t.predicate not in RESTATED_PREDICATES for t in facts):
            return []
        return [(t.subject_kind, t.subject, t.predicate, t.object_kind, t.object, t.polarity) for t in facts]

    def _classify(self, v: _Valid, a: _Analysis) -> None:
        if a.classification is None:
            a.classification = self._classifier.classify(v.text, a.embedding)
        if a.triples is None:
            a.triples = self._extractor.extract(v.text)

    def _batch(self, scope: Scope, batch: Sequence[_Valid], analysis: dict[int, _Analysis], *,
               append: bool) -> _BatchOutcome:
        with extracting_for(scope):  # the write reads the turns' triples too (salience of a repeat, classifier)
            plan = self._store.write_tx(lambda tx: self._write(tx, scope, batch, analysis, append=append))
        for event in plan.events:
            self._events.publish(event)
        if plan.hooks_left:  # the user's earlier memories left pending come first (seen by batch_start)
            try:
                self.resume_hooks(scope.tenant, scope.user_id)
            except StoreUnavailable:
                # The batch is committed: its answer stands. The earlier memories stay marked, for the user's
                # next ingest or the server's start (an error here made the caller retry what was stored).
                log.warning("stored-memory hooks left pending for %s: Neo4j unavailable after the commit",
                            log_name(scope))
        if plan.hooks:  # per memory in order, in segments, in one transaction (bmam/usecases/hooks.py run_hooks)
            run_hooks(list(self._hooks), plan.hooks, log, store=self._store, finish=marked_done(self._memories))
        for v in batch:  # after the hooks: what the turn takes back may have been stored in this batch
            if v.index in analysis and analysis[v.index].salience.takes_back:
                self._take_back(scope, plan.results[v.index])
        for session, recorded in plan.recorded.items():
            self._wm.record(scope, session, recorded)
        return plan

    def _take_back(self, scope: Scope, result: TurnResult) -> None:
        """A user's turn that only asks to forget what they just said ("forget what I just said", 当我没说): the
        memories made from their turn before it in the session are forgotten as `forget` takes one (locked ones
        too: the user asked), each a DELETED event. A turn seen before (a repeated request) takes nothing back."""
        if not result.stored or result.duplicate or result.session_id is None or result.turn is None:
            return
        try:
            for memory_id in self._memories.taken_back(scope, result.session_id, result.turn):
                try:
                    self._memories.forget(scope, memory_id, confirm_locked=True)
                except NotFound:
                    continue  # forgotten meanwhile
                result.forgotten.append(memory_id)
                self._events.publish(MemoryEvent.deleted(scope, memory_id, reason="taken back by the user",
                                                         at=self._clock.now()))
        except StoreUnavailable:  # the turn is stored: its answer stands; `forget` removes what is left
            log.warning("could not take back the turn before %s %s/%d: Neo4j unavailable", log_name(scope),
                        log_session(scope, result.session_id), result.turn)
        if result.forgotten:
            log.info("turn %s %s/%d took back %d memories", log_name(scope), log_session(scope, result.session_id),
                     result.turn, len(result.forgotten))

    def resume_hooks(self, tenant: str | None = None, user_id: str | None = None, *,
                     older_than: timedelta | None = None) -> int:
        """Run the stored-memory hooks (conflict detection, association forming) again for memories whose
        hooks did not go through when they were stored (a failure after the ingest committed, a process that
        stopped), of one user, one tenant or all: those marked longer ago than `older_than` (default
        IngestSettings.hooks_retry_after_s, so a batch whose hooks are still running is left alone), oldest
        first, a user at a time, in order. Returns how many memories went through this time."""
        if not self._hooks:
            return 0
        wait = older_than if older_than is not None else timedelta(seconds=self._settings.ingest.hooks_retry_after_s)
        pending = self._memories.hooks_pending(before=self._clock.now() - wait, tenant=tenant, user_id=user_id)
        if not pending:
            return 0
        by_scope: dict[Scope, list[PendingHooks]] = {}
        for p in pending:
            by_scope.setdefault(Scope(p.memory.tenant, p.memory.user_id), []).append(p)
        resumed = 0
        for scope, items in by_scope.items():
            contexts = [StoredMemoryContext(scope=scope, memory=p.memory,
                                            triples=self._triples.for_memory(scope, p.memory.id),  # the rare path
                                            embedding=p.embedding, episode_id=p.memory.provenance.episode_id)
                        for p in items]
            log.warning("running the stored-memory hooks again for %d memories of %s left pending",
                        len(contexts), log_name(scope))
            if run_hooks(list(self._hooks), contexts, log, store=self._store, finish=marked_done(self._memories)):
                resumed += len(contexts)
        return resumed

    def _write(self, tx: Tx, scope: Scope, batch: Sequence[_Valid], analysis: dict[int, _Analysis], *,
               append: bool) -> _BatchOutcome:
        """Runs inside the write transaction (possibly more than once, if the driver retries): it only
        reads the store and builds a plan, then writes it; nothing outside is touched."""
        s_ingest = self._settings.ingest
        now = self._clock.now()

        # -- where each turn goes ------------------------------------------------------------
        turn_index = self._place_turns(tx, scope, batch, append=append, now=now)
        ids = {v.index: episode_id(scope, v.session_id, turn_index[v.index]) for v in batch}
        # the user's lock (unless taken above), the existing turns, the tier counts, the temp memories' entity
        # names and whether hooks were left pending in one statement (they were five)
        retry = timedelta(seconds=s_ingest.hooks_retry_after_s)
        start = self._episodes.batch_start(tx, scope, list(ids.values()), lock_at=None if append else now,
                                           temp=any(v.speaker is Speaker.USER for v in batch),
                                           hooks_before=now - retry if self._hooks else None)
        plan = _BatchPlan(scope=scope, ingest=s_ingest, rules=self._tier_cases.rules, turn_index=turn_index, ids=ids,
                          core_count=start.counts[Tier.CORE], hooks_left=start.hooks_left)
        plan.sort(batch, start.existing)

        # -- what the new user turns repeat or pick up --------------------------------------------
        user_fresh = plan.fresh_user_turns()
        matches = self._episodes.matches(
            tx, scope, [(v.index, v.text, analysis[v.index].embedding) for v in user_fresh],  # float32 as they are
            duplicate=s_ingest.duplicate_similarity, engagement=s_ingest.engagement_similarity,
            exact_max=EXACT_SCAN_MAX_MEMORIES)
        plan.read_matches(matches, start.temp_entities if user_fresh else {})
        plan.read_asserting(self._episodes.asserting(tx, scope, [
            (v.index, analysis[v.index].embedding, self._restated_facts(v, analysis[v.index])) for v in user_fresh]))
        for v in plan.fresh:
            self._plan_fresh_turn(plan, v, analysis)

        # -- write it all, then answer with the final state ------------------------------------------
        final, stored_triples, capacity = self._write_plan(tx, plan, now=now)
        return plan.answer(batch, final, stored_triples, capacity)

    def _place_turns(self, tx: Tx, scope: Scope, batch: Sequence[_Valid], *, append: bool,
                     now: datetime) -> dict[int, int]:
        """Each turn's index in its session (by request position): its own, or, appending (ingestTurn), the
        next after its session's last stored turn, unless it is a retry of that last turn."""
        if not append:
            return {v.index: int(v.turn or 0) for v in batch}
        turn_index: dict[int, int] = {}
        self._tiers.lock_user(tx, scope, now=now)  # before the tails: batch_start locks otherwise
        tails = self._episodes.session_tails(tx, scope, sorted({v.session_id for v in batch if v.turn is None}))
        next_turn = {s: t.turn + 1 for s, t in tails.items()}
        for v in batch:
            if v.turn is not None:
                turn_index[v.index] = v.turn
                continue
            tail = tails.get(v.session_id)
            if (tail is not None and tail.speaker == v.speaker.value and tail.text == v.text
                    and (not v.at_given or tail.at == v.at)):
                turn_index[v.index] = tail.turn  # a retry of the last turn: found below as existing
            else:
                turn_index[v.index] = next_turn.get(v.session_id, 0)
                if turn_index[v.index] > MAX_TURN:  # rolls the transaction back: nothing of the batch is written
                    raise BadInput(f"session {v.session_id!r} is full: its last turn is {turn_index[v.index] - 1} "
                                   f"and a turn index is at most {MAX_TURN}; continue in a new session",
                                   field="turn")
                next_turn[v.session_id] = turn_index[v.index] + 1
        return turn_index

    def _plan_fresh_turn(self, plan: _BatchPlan, v: _Valid, analysis: dict[int, _Analysis]) -> None:
        """A fresh turn is stored. A user turn the salience filter keeps is a mention of the memory it repeats
        or else a new memory; either way it may pick up the topic of earlier temp memories."""
        r = plan.results[v.index]
        r.stored = True
        if v.speaker is not Speaker.USER:
            r.reason = f"{v.speaker.value}_turn"  # assistant_turn, system_turn, tool_turn
            return
        a = analysis[v.index]
        key = text_key(v.text)
        # the memory this turn repeats: the most similar live one, stored or created earlier in the batch
        # (a turn whose triples the memory does not assert is no repeat: "my birthday is July 21"
        # after "... July 20" scores 0.96 yet contradicts it)
        turn_keys = {t.key() for t in self._triples_of(v, a)}
        match = plan.repeated_memory(v, a.embedding, key, turn_keys)
        sal = a.salience
        if match is None and sal.remember and (restated := plan.restated_memory(v, turn_keys, sal.preset_kind)) \
                and restates(v.text, self._triples_of(v, a), self._extractor):
            match = restated  # the facts said again in other words: a mention, not a memory beside it
        if not sal.remember and match is not None:
            # local: the transaction may run again, and must start from the analysis as it was
            sal = assess(v.text, speaker=v.speaker.value, repeated=True, extractor=self._extractor)
        r.remembered, r.reason = sal.remember, sal.reason
        if sal.remember and match is not None:
            plan.mention(match, v, emphasis=sal.emphasis)
        elif sal.remember:
            self._classify(v, a)
            plan.new_memory(v, a, sal, key=key, turn_keys=turn_keys, preset=self._preset(sal.preset_kind))
        # implicit engagement: this turn picks up the topic of temp memories said before it; a turn asking not
        # to remember ("don't remember that about Paris") names the topic without engaging with it
        if not sal.refused_by_user:
            plan.pick_up_topics(v, a.embedding)

    def _write_plan(self, tx: Tx, plan: _BatchPlan, *,
                    now: datetime) -> tuple[dict[str, Memory], list[Triple], list[TierChange]]:
        """The planned writes, then the capacities restored: the wanted memories as they are now, the new
        triples as stored, the capacity moves."""
        scope, w = plan.scope, self._settings.weights
        # the new memories wait for their hooks (marked with the write; run_hooks clears the mark when they went
        # through, resume_hooks runs them again when they did not)
        self._memories.store_many_in(tx, scope, plan.new_memories, now=plan.new_times, passive=w.initial_passive,
                                     active=w.initial_active, hooks_pending_at=now if self._hooks else None)
        stored_triples = self._triples.add_many_in(tx, scope, [s for specs in plan.new_specs.values() for s in specs])
        # the new turns (sessions, episodes, NEXT: nothing above reads them), the mentions and promotions (tier/update),
        # provenance (DERIVED_FROM), the counts capacity enforcement starts from and the memories to answer with, in
        # one statement; read again after the rare enforcement that moves or evicts something
        wanted = plan.wanted()
        # engagement's active +0.2 lands on weights brought to now, and a memory entering core is brought to the
        # turn that moved it before it locks (a locked memory no longer decays: a conversation ingested weeks after
        # it was said charged "Remember this: ..." those weeks, locked from its turn); a statement only when some
        # turn did either, one more for each other time a turn moved a memory into core
        for at, ids in _decay_groups(plan.updates.values(), now).items():
            self._tier_cases.decay_in(tx, scope, ids, now=at)
        counts, final = self._episodes.batch_end(tx, scope, wanted, plan.derived,
                                                 tier_updates=self._tiers.update_params(list(plan.updates.values())),
                                                 episodes=plan.episode_rows())
        # what this batch said or promoted counts but gives way last (as a reaction's promotion, TierUseCases.react,
        # and remember's new memory): a full temp evicted "Remember this: I take warfarin every day", refused by a
        # full core, the moment it was said (the newest and lightest)
        keep = frozenset(plan.batch_new) | frozenset(u.id for u in plan.updates.values() if u.tier is Tier.MID)
        capacity = self._tier_cases.enforce(tx, scope, counts, keep=keep)
        plan.events += [change_event(scope, c, now) for c in capacity]
        if capacity:
            final = self._episodes.memories(tx, scope, wanted)
        return final, stored_triples, capacity

    def _preset(self, kind: PresetKind) -> float:
        w = self._settings.weights
        return {PresetKind.SAFETY: w.preset_safety, PresetKind.TEMPORARY: w.preset_temporary}.get(
            kind, w.preset_default)

    # ----- working memory ------------------------------------------------------------------

    def working_memory(self, tenant: str, user_id: str, session_id: str, n: int | None = None) -> list[Turn]:
        scope = Scope(tenant, validate.identifier(user_id, field="userId"))
        session = validate.identifier(session_id, field="sessionId")
        if n is not None:  # 1 to the turns held per session: a larger n is refused, not cut down (every surface)
            validate.page_size(n, maximum=self._wm.turns_per_session, field="n")
        return self._wm.recent(scope, session, n)
