"""Recall (issue 4): hybrid retrieval with a gate, graph expansion and anti-repetition; related search;
and the context prompt for an LLM.

recall: embed the query, read dense and full-text candidates (graph/recall.py), gate, expand one hop
from the best direct hits, score (ingest/scoring.py; of two memories on one thing, the latest word first), damp
what the session surfaced lately (ingest/repetition.py), and in the same transaction read the chosen memories back
while recording their use (recall_count, last_recalled_at, passive + 0.1, weight) and strengthening the
associations of the memories recalled together.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, tzinfo
from typing import Any, Protocol

from bmam import validate
from bmam.clock import Clock
from bmam.settings import Settings
from graph.errors import BadInput, LimitExceeded
from graph.memories import WeightShares
from graph.model import Memory, MemoryType, Scope, Tier
from graph.recall import (
    ExpansionParams,
    Found,
    Neighbour,
    Prefetched,
    RecallFilters,
    RecallRepository,
    RetrievalLimits,
    SlotQuestion,
)
from graph.related import MAX_DEPTH, MIN_DEPTH, RelatedMemory, RelatedRepository, TraversalParams, Via
from graph.store import Tx
from ingest.embedding import Embedder
from ingest.lexicon import CAPITAL_BESIDE_I, GIVEN_NAMES_EN, has_han, is_request
from ingest.periods import Period, asked_period
from ingest.repetition import RepetitionParams, RepetitionTracker
from ingest.salience import is_small_talk
from ingest.scoring import (
    Candidate,
    Fusion,
    GateDecision,
    GraphLink,
    Scores,
    ScoringParams,
    asks_a_task,
    gate,
    is_personal,
    latest_word_first,
    lucene_query,
    score_candidates,
    select,
    terms,
    wants_advice,
)
from ingest.slot_meaning import SlotExamples
from ingest.slots import (
    FOOD_LIKING,
    REPLY_STYLE,
    REQUEST_EXAMPLES,
    answered,
    asked_slots,
    asks_own_fact,
    asks_what_to_do,
    asks_what_was_done,
    constrains_answer,
    kin_words,
    people_asked,
    shapes_answer,
    stored_predicates,
    without_stand_ins,
)
from ingest.weights import WeightPolicy

log = logging.getLogger(__name__)

# A family member named in a text written all in lower case (graph/recall.py SlotQuestion)
_LOWER_CASE_NAMES: dict[str, Any] = {"given_names": tuple(sorted(GIVEN_NAMES_EN)),
                                     "capital_pattern": f"(?s).*{CAPITAL_BESIDE_I}.*"}


@dataclass(frozen=True, slots=True)
class RecallRequest:
    user_id: str
    query: str
    session_id: str | None = None
    k: int | None = None
    types: Sequence[str | MemoryType] | None = None
    tiers: Sequence[Tier] | None = None
    min_score: float = 0.0
    include_history: bool = False
    as_of: datetime | None = None
    time_zone: str | None = None  # the user's (IANA name): how days are counted ("yesterday"); None: the setting's


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    memory: Memory
    scores: Scores
    why: str


@dataclass(frozen=True, slots=True)
class RecallResult:
    gated: bool
    reason: str
    memories: list[RecalledMemory]
    best_similarity: float | None = None  # the best cosine any memory had with the input (None: no memories)
    best_coverage: float = 0.0  # the largest share of the input's terms one full-text hit held
    period: Period | None = None  # the past period the input asks about (what was said then was read for it)


class TurnLike(Protocol):
    @property
    def speaker(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def at(self) -> datetime: ...
    @property
    def turn(self) -> int: ...


# (scope, session_id, n) -> the last n turns of the session, oldest first.
TurnSource = Callable[[Scope, str, int], Sequence[TurnLike]]


@dataclass(frozen=True, slots=True)
class ContextTurn:
    speaker: str
    text: str
    at: datetime
    turn: int


@dataclass(frozen=True, slots=True)
class ContextPrompt:
    text: str
    memories: list[RecalledMemory]
    turns: list[ContextTurn]
    gated: bool
    reason: str = ""
    period: Period | None = None  # the past period the input asks about (RecallResult.period)
    reply_styles: list[Memory] = field(default_factory=list)  # how the user wants to be answered, as shown


@dataclass
class _Pool:
    """Candidates by id while they are gathered from the stages."""

    items: dict[str, Candidate] = field(default_factory=dict)


def scoring_params(settings: Settings) -> ScoringParams:
    r = settings.recall
    cal = r.calibration_for(settings.embedding.model)
    return ScoringParams(
        relevance_share=r.relevance_share,
        freshness_share=r.freshness_share,
        freshness_lambda_per_hour=r.freshness_lambda_per_hour,
        weight_share=r.weight_share,
        fusion=Fusion(r.fusion),
        rrf_k=r.rrf_k,
        sim_floor=cal.sim_floor,
        sim_ceiling=cal.sim_ceiling,
        gate_similarity=cal.gate_similarity,
        gate_similarity_general=cal.gate_similarity_general,
        gate_similarity_knowledge=cal.gate_similarity_general if cal.gate_similarity_knowledge is None
        else cal.gate_similarity_knowledge,
        gate_coverage=r.gate_coverage,
        gate_min_terms=r.gate_min_terms,
        min_relevance=r.min_relevance,
        min_relative_relevance=r.min_relative_relevance,
        task_relative_relevance=r.task_relative_relevance,
        graph_share=r.graph_share,
        text_share=r.text_share,
        unseen_term_weight=r.unseen_term_weight,
        entity_share=r.entity_share,
        slot_share=r.slot_share,
        period_share=r.period_share,
        period_bonus=r.period_bonus,
        others_factor=r.others_factor,
        liking_bonus=r.liking_bonus,
        change_bonus=r.change_bonus,
    )


def repetition_params(settings: Settings) -> RepetitionParams:
    r = settings.recall
    return RepetitionParams(
        window_turns=r.repeat_window_turns,
        memory_damping=r.repeat_damping,
        term_run=r.term_run,
        term_damping=r.term_damping,
        dominance=r.term_dominance,
        max_sessions=r.max_sessions,
    )


class RecallUseCases:
    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        embedder: Embedder,
        repository: RecallRepository,
        related: RelatedRepository,
        repetition: RepetitionTracker,
        turn_source: TurnSource | None = None,
        scoring: ScoringParams | None = None,
        weight_policy: WeightPolicy | None = None,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._embedder = embedder
        self._repo = repository
        self._related = related
        self.repetition = repetition
        self._turn_source = turn_source
        self.scoring = scoring or scoring_params(settings)
        calibration = settings.recall.calibration_for(settings.embedding.model)
        self.slot_examples = SlotExamples(embedder.embed_query, calibration.slot_example_similarity)
        self.request_examples = SlotExamples(embedder.embed_query, calibration.request_example_similarity,
                                             REQUEST_EXAMPLES)
        self._zone = validate.time_zone(settings.recall.time_zone, field="recall.time_zone")
        # With the weight policy (issue 5) the recalled memories' weights are decayed to now before the
        # recall boost lands, in the same transaction; without it the boost lands on the stored parts.
        self._policy = weight_policy
        w = settings.weights
        self._shares = WeightShares(passive=w.passive_share, active=w.active_share, preset=w.preset_share)
        self._boost = weight_policy.recall_boost if weight_policy else settings.living.recall_boost
        r = settings.recall
        self.limits = RetrievalLimits(
            k_dense=r.dense_candidates, k_text=r.text_candidates, exact_max=r.exact_scan_max,
            exact_per_candidate=r.exact_scan_per_candidate, oversample=r.oversample,
            max_candidates=r.max_index_candidates,
        )
        self.traversal = TraversalParams(entity_base=r.entity_strength, max_degree=r.max_entity_degree)
        prefetch = r.expand_seeds > 0
        self.expansion = ExpansionParams(
            min_strength=r.expand_min_strength, hop=self.traversal, per_seed=r.expand_per_seed,
            prefetch_dense=r.expand_prefetch_dense if prefetch else 0,
            prefetch_text=r.expand_prefetch_text if prefetch else 0,
        )

    # ----- recall ---------------------------------------------------------------------------

    def scope(self, tenant: str, user_id: str | None) -> Scope:
        return Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))

    def recall(self, tenant: str, request: RecallRequest) -> RecallResult:
        return self._recall(tenant, request, rehearsal=False)

    def rehearse(self, tenant: str, request: RecallRequest) -> RecallResult:
        """A recall whose transaction is rolled back and whose turn is not recorded: the same statements with
        the same parameters as a recall (so Neo4j compiles their plans: bmam/usecases/warm_up.py), nothing
        remembered of it (no usage, no strengthened association, no anti-repetition turn)."""
        return self._recall(tenant, request, rehearsal=True)

    def asked_slots(self, query: str, embedding: Sequence[float]) -> tuple[str, ...]:
        """The user's own facts the input asks for: as the patterns read it (ingest/slots.py), else, for input
        about the user that asks no advice, as its meaning is closest to an example question, else, for a request,
        as it is closest to an example request those facts shape (a meal, a CV: ingest/slot_meaning.py). A request
        for help or advice asks how the user wants to be answered too (REPLY_STYLE: "keep it short")."""
        request, advice = asks_what_to_do(query), wants_advice(query)
        found = self._asked_facts(query, embedding, request=request, advice=advice)
        return (*found, REPLY_STYLE) if request or advice or is_request(query) else found

    def _asked_facts(self, query: str, embedding: Sequence[float], *, request: bool, advice: bool) -> tuple[str, ...]:
        if found := asked_slots(query):
            return found
        if asks_what_was_done(query):
            return ()  # the user's doings ("What did I do?"): no fact of theirs, by meaning or as a request
        personal = is_personal(query)
        if personal and not request and (by_meaning := self.slot_examples.nearest(embedding)) is not None:
            return by_meaning  # () for an open preference: no slot, by requests either
        if personal and not (request or advice):
            return ()  # a question about the user is no request ("Which dish do I like most?" is no meal to plan)
        return self.request_examples.asked(embedding)

    def user_zone(self, time_zone: str | None) -> tzinfo:
        """The user's time zone: the one given (an IANA name), else the setting recall.time_zone."""
        return validate.time_zone(time_zone, field="timeZone") if time_zone is not None else self._zone

    def rehearsal_subjects(self, limit: int) -> list[tuple[Scope, str]]:
        """Users to rehearse on, one per plan size class of (tenant, user id), the biggest of each, with one of
        their live memories (graph/recall.py rehearsal_subjects); none on an empty store."""
        return self._repo.rehearsal_subjects(limit)

    def _recall(self, tenant: str, request: RecallRequest, *, rehearsal: bool,
                fit: Callable[[Sequence[Memory]], list[str]] | None = None, said: Sequence[str] = (),
                apart: Collection[str] = ()) -> RecallResult:
        """fit: given the chosen memories as stored, the ids of those the caller will show (contextPrompt's
        budget); only they are recalled: their use recorded, their pairs strengthened, their turn remembered.
        said: the one-lined texts of the turns the caller shows whole; a memory one of them says is left out
        before the k are chosen (the next one takes its place) and is not recalled. apart: the ids of the
        memories the caller shows in a section of their own (contextPrompt's reply styles), left out alike."""
        scope = self.scope(tenant, request.user_id)
        s = self._settings
        query = validate.text(request.query, field="query", max_bytes=s.limits.max_text_bytes)
        k = validate.page_size(request.k if request.k is not None else s.recall.default_k,
                               maximum=s.limits.max_page_size, field="k")
        # "" is no session id (as "  " is not): an error, not a recall without anti-repetition
        session = validate.optional_identifier(request.session_id, field="sessionId")
        min_score = validate.unit_interval(request.min_score, field="minScore")
        as_of = None
        if request.as_of is not None:
            if request.as_of.tzinfo is None:
                raise BadInput("asOf must carry a time zone", field="asOf")
            as_of = validate.moment(request.as_of, field="asOf")
        now = self._clock.now()
        filters = RecallFilters(
            types=[validate.memory_type(t) for t in request.types] if request.types else None,
            tiers=list(request.tiers) if request.tiers else None,
            include_history=request.include_history,
            as_of=as_of,
            # ranked on weights as of now (the stored ones are as old as the memory's last write)
            weight_at=now,
            decay=self._policy.cypher_params() if self._policy is not None else None,
        )
        embedding = [float(x) for x in self._embedder.embed_query(query)]
        query_terms = terms(query)
        slots = self.asked_slots(query, embedding) if self.scoring.slot_share > 0 else ()
        # a question about the user's people reads what was said of them by name: in lower-case chat too ("greg
        # agreed to pay")
        people = people_asked(slots)
        words = kin_words(people[0]) if len(people) == 1 else ()  # "my mom": one relative, by the words for them
        # the likings read beside the constraints take rows of their own: as many again, so that no allergy is left
        # out for them (nor a liked food for the user's many other likings, dropped by answered())
        limit = s.recall.slot_candidates * (2 if FOOD_LIKING in slots else 1)
        asked = SlotQuestion(stored_predicates(slots), limit, asked=slots, people=people,
                             kin=people[0] if words else None, kin_words=words,
                             **_LOWER_CASE_NAMES if people else {}) if slots else None
        own_fact = asks_own_fact(slots, query)
        advice_or_task = wants_advice(query) or asks_a_task(query)
        reference = as_of or now
        zone = self.user_zone(request.time_zone)
        period = asked_period(query, reference, zone)
        key = (scope.tenant, scope.user_id, session) if session else None

        def work(tx: Tx) -> tuple[RecallResult, list[tuple[str, str]]]:
            pool, prefetched = self._gather(tx, scope, embedding, query_terms, filters, reference, asked)
            if period is not None:
                self._keep_period(tx, scope, embedding, filters, reference, pool, period)
            decision = self._gate(pool, query, query_terms, period, zone)
            best_sim = decision.best_similarity if pool.items else None
            cov = decision.best_coverage
            if decision.gated:
                return RecallResult(gated=True, reason=decision.reason, memories=[], best_similarity=best_sim,
                                    best_coverage=cov, period=period), []
            if period is None or not period.open_question:  # a neighbour said another day does not answer
                self._expand(tx, scope, embedding, query, query_terms, filters, reference, pool, prefetched,
                             advice_or_task=advice_or_task)
            # Chinese names the input says (朵朵): no capital marks them, and as words they are found as written
            said_names = {e for c in pool.items.values() for e in c.entities
                          if len(e) > 1 and has_han(e) and e in query}
            damping = self.repetition.damping(key, [(c.id, c.text) for c in pool.items.values()], query,
                                              said_names) if key else {}
            scored = latest_word_first(score_candidates(
                list(pool.items.values()), query, query_terms, self.scoring,
                damping={i: d.factor for i, d in damping.items()},
                damping_why={i: d.reason for i, d in damping.items()},
                own_fact=own_fact, advice_or_task=advice_or_task,
            ))
            repeated = shown_apart = 0
            if said or apart:  # scored after the relative cut, so leaving the repeats out lets in nothing that cut
                repeats = {c.candidate.id for c in scored if _said(_one_line(c.candidate.text), said)}
                first = [c.candidate.id for c in select(scored, k=k, min_score=min_score)]
                repeated = sum(1 for i in first if i in repeats)
                shown_apart = sum(1 for i in first if i in apart and i not in repeats)
                scored = [c for c in scored if c.candidate.id not in repeats and c.candidate.id not in apart]
            chosen = select(scored, k=k, min_score=min_score)
            reason = decision.reason + (f"; {repeated} said in the recent turns shown" if repeated else "") \
                + (f"; {shown_apart} shown apart as how the user wants to be answered" if shown_apart else "")
            if not chosen:
                return RecallResult(gated=False,
                                    reason=reason if repeated or shown_apart else _nothing_left(decision, min_score),
                                    memories=[], best_similarity=best_sim, best_coverage=cov, period=period), []
            if fit is not None:
                shown = set(fit(self._repo.chosen(tx, scope, [c.candidate.id for c in chosen])))
                over_budget = sum(1 for c in chosen if c.candidate.id not in shown)
                chosen = [c for c in chosen if c.candidate.id in shown]
                if over_budget:
                    reason = f"{reason}; {over_budget} more left out (over the budget)"
                if not chosen:
                    return RecallResult(gated=False, reason=reason, memories=[], best_similarity=best_sim,
                                        best_coverage=cov, period=period), []
            ids = [c.candidate.id for c in chosen]
            # Pairs of direct hits only: a memory here through an association alone strengthening that same
            # edge would feed itself (a link on a filler word grew 0.5 -> 0.95 and rode along every recall).
            top = [c.candidate.id for c in chosen if c.link is None][: s.recall.co_recall_top]
            pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1:]]
            # With the weight policy the weights are decayed to now (locked in id order) before the boost.
            touched = self._repo.touch(tx, scope, ids, now=now, boost=self._boost, shares=self._shares,
                                       pairs=pairs, delta=s.recall.co_recall_delta,
                                       decay=filters.decay)
            # A memory forgotten since it was read is left out (touch found nothing to update).
            recalled = [RecalledMemory(memory=touched[c.candidate.id], scores=c.scores, why=c.why)
                        for c in chosen if c.candidate.id in touched]
            return (RecallResult(gated=False, reason=reason, memories=recalled, best_similarity=best_sim,
                                 best_coverage=cov, period=period),
                    [(c.candidate.id, c.candidate.text) for c in chosen])

        result, surfaced = self._repo.rehearse(work) if rehearsal else self._repo.write(work)
        if key is not None and not rehearsal:
            # After the commit (the transaction function may be retried): one turn of the session.
            self.repetition.record(key, surfaced)
        return result

    def _gather(self, tx: Tx, scope: Scope, embedding: list[float], query_terms: list[str],
                filters: RecallFilters, reference: datetime,
                asked: SlotQuestion | None = None) -> tuple[_Pool, Prefetched | None]:
        found = self._repo.candidates(tx, scope, embedding, query_terms, lucene_query(query_terms), filters,
                                      self.limits, self.expansion, asked)
        # A question asking for the user's own facts (ingest/slots.py): its answers were read with the
        # candidates when the vector cache answered, else they take a statement of their own.
        answers = found.slots or []
        if asked is not None and found.slots is None:
            answers = self._repo.slot_answers(tx, scope, asked, embedding, filters)
        pool = _Pool()
        for d in found.dense:
            pool.items[d.memory.id] = _candidate(d.memory, d.cosine, reference, dense_rank=d.rank)
        for t in found.text:
            existing = pool.items.get(t.memory.id)
            if existing is None:
                cos = t.cosine if t.cosine is not None else -1.0
                pool.items[t.memory.id] = _candidate(t.memory, cos, reference, text_rank=t.rank, text_score=t.score)
            else:
                pool.items[t.memory.id] = _replace(existing, text_rank=t.rank, text_score=t.score)
        constraint = asked is not None and constrains_answer(asked.asked)  # the question's, so every answer's
        each = [answered(asked.asked, a.answers, a.memory.entities) if asked is not None else a.answers
                for a in answers]
        if asked is not None:
            each = without_stand_ins(asked.asked, each)  # the nickname asked, not the name, when one is stated
        for a, stated in zip(answers, each, strict=True):
            if not stated:
                continue  # "I'm a vegetarian" asked for a job
            existing = pool.items.get(a.memory.id)
            constrains = constraint or stated == (REPLY_STYLE,)  # how to answer, not the answer: no bar for the rest
            shapes = shapes_answer(asked.asked, stated) if asked is not None else False
            pool.items[a.memory.id] = \
                _candidate(a.memory, a.cosine, reference, answers=stated, constrains=constrains, shapes=shapes) \
                if existing is None else _replace(existing, answers=stated, constrains=constrains, shapes=shapes)
        return pool, found.prefetched

    def _keep_period(self, tx: Tx, scope: Scope, embedding: list[float], filters: RecallFilters,
                     reference: datetime, pool: _Pool, period: Period) -> None:
        """The memories said in the period asked about join the candidates. When the input asks only what happened
        then ("What did I do yesterday?"), they are the only ones and each answers it; otherwise ("What did I eat
        yesterday?") they rank ahead of the others, which stay (a meal told the morning after was said another
        day)."""
        hits = self._repo.in_period(tx, scope, period.start, period.end, embedding, filters,
                                    self._settings.recall.period_candidates)
        said = {h.memory.id for h in hits}
        if period.open_question:
            for memory_id in [i for i in pool.items if i not in said]:
                del pool.items[memory_id]
        for h in hits:
            existing = pool.items.get(h.memory.id)
            if existing is None:
                existing = _candidate(h.memory, -1.0 if h.cosine is None else h.cosine, reference)
            pool.items[h.memory.id] = _replace(existing, said_in_period=True, period_answer=period.open_question)

    def _gate(self, pool: _Pool, query: str, query_terms: list[str], period: Period | None,
              zone: tzinfo) -> GateDecision:
        candidates = list(pool.items.values())
        decision = gate(candidates, query, query_terms, self.scoring)
        if not decision.gated and is_small_talk(query):
            # "lol" held all of its one term in "... this morning lol", "haha ok" lay at 0.36 from 好开心！
            decision = replace(decision, gated=True, reason="the input is small talk only (greetings, thanks, "
                                                            "laughter, acknowledgements): nothing to recall")
        if period is None:
            return decision
        when = f"{period.words} ({period_dates(period, zone)})"
        said = sum(1 for c in candidates if c.said_in_period)
        if period.open_question:
            if not said:
                return replace(decision, gated=True, reason=f"nothing was said {when}")
            return replace(decision, gated=False,
                           reason=f"the input asks what happened {when}: {said} memories said then")
        return replace(decision, reason=f"{decision.reason}; {said} memories said {when} ranked ahead")

    def _expand(self, tx: Tx, scope: Scope, embedding: list[float], query: str, query_terms: list[str],
                filters: RecallFilters, reference: datetime, pool: _Pool, prefetched: Prefetched | None, *,
                advice_or_task: bool = False) -> None:
        r = self._settings.recall
        if r.expand_seeds <= 0:
            return
        direct = score_candidates(list(pool.items.values()), query, query_terms, self.scoring,
                                  advice_or_task=advice_or_task)
        seeds = [s.candidate.id for s in direct[: r.expand_seeds]]
        neighbours = self._repo.expand(tx, scope, seeds, embedding, filters, self.expansion, prefetched)
        for n in neighbours:
            link = GraphLink(seed_id=n.seed_id, via=Via(n.via), strength=n.strength, entity=n.entity)
            existing = pool.items.get(n.memory.id)
            if existing is None:
                existing = _candidate(n.memory, _cos(n), reference)
            pool.items[n.memory.id] = _replace(existing, links=(*existing.links, link))

    # ----- related search --------------------------------------------------------------------

    def related(
        self,
        tenant: str,
        user_id: str,
        memory_id: str,
        *,
        depth: int | None = None,
        limit: int | None = None,
        min_strength: float | None = None,
        include_history: bool = False,
    ) -> list[RelatedMemory]:
        """Best paths from one memory over ASSOCIATED edges and shared entities, at most `depth` hops.
        A depth outside 1..5 is refused (BAD_USER_INPUT), never clamped silently. Each round of the search expands at
        most `limit` memories, each along its min(limit, recall.related_width) strongest hops."""
        scope = self.scope(tenant, user_id)
        r = self._settings.recall
        depth = r.related_depth if depth is None else depth
        maximum = min(MAX_DEPTH, self._settings.limits.max_traversal_depth)
        if isinstance(depth, bool) or not isinstance(depth, int) or not MIN_DEPTH <= depth <= maximum:
            raise BadInput(f"depth must be between {MIN_DEPTH} and {maximum}, got {depth}", field="depth")
        limit = validate.page_size(r.related_limit if limit is None else limit,
                                   maximum=self._settings.limits.max_page_size, field="limit")
        strength = validate.unit_interval(r.related_min_strength if min_strength is None else min_strength,
                                          field="minStrength")
        return self._related.search(
            scope, validate.identifier(memory_id, field="memoryId"), depth=depth, limit=limit,
            min_strength=strength, traversal=self.traversal, width=min(limit, r.related_width),
            include_history=include_history,
        )

    # ----- context prompt --------------------------------------------------------------------

    def context_prompt(self, tenant: str, user_id: str, session_id: str, text: str,
                       budget: int | None = None, time_zone: str | None = None) -> ContextPrompt:
        """The current date and time in the user's zone (time_zone, else the setting recall.time_zone), then the
        session's recent turns plus the gated relevant memories, as text within `budget` chars."""
        scope = self.scope(tenant, user_id)
        session = validate.identifier(session_id, field="sessionId")
        validate.text(text, field="input", max_bytes=self._settings.limits.max_text_bytes)  # named as asked
        zone = self.user_zone(time_zone)
        r = self._settings.recall
        budget = r.context_budget if budget is None else budget
        if budget < 100:
            raise BadInput("budget must be at least 100 characters", field="budget")
        if budget > r.max_context_budget:
            raise LimitExceeded(f"budget must be at most {r.max_context_budget} characters", field="budget")
        turns = self.recent_turns(scope, session, r.context_turns)
        # How the user wants to be answered holds on every turn ("keep it short"), chit-chat included: its own
        # section, whatever recall lets through; not recalled (no use of it is recorded, no relevance shown).
        now = self._clock.now()  # one "now" for the date line, the ages fitted and the ages shown
        header = now_line(now, zone)  # the sections share what the date line leaves of the budget
        room = section_room(budget, header)
        styles = self._repo.standing(scope, REPLY_STYLE, r.context_reply_styles)
        # those the budget holds (they go before any memory): one it leaves out stays a memory recall may choose
        styles = [styles[i] for i in _pack([], turns, budget=room, now=now, styles=styles).styles]

        def fit(chosen: Sequence[Memory]) -> list[str]:  # the repeats were left out before the choice (said)
            return [chosen[i].id for i in _pack(chosen, turns, budget=room, now=now, styles=styles).memories]

        result = self._recall(tenant, RecallRequest(user_id=user_id, query=text, session_id=session,
                                                    time_zone=time_zone),
                              rehearsal=False, fit=fit, said=said_in_turns(turns, room),
                              apart={m.id for m in styles})
        return render_context(turns, result, budget=budget, now=now, styles=styles, header=header)

    def recent_turns(self, scope: Scope, session_id: str, n: int) -> list[ContextTurn]:
        if n <= 0:
            return []
        if self._turn_source is None:
            return []
        held = self._turn_source(scope, session_id, n)
        return [ContextTurn(speaker=t.speaker, text=t.text, at=t.at, turn=t.turn) for t in list(held)[-n:]]


# ----- helpers ------------------------------------------------------------------------------------


def period_dates(period: Period, zone: tzinfo) -> str:
    """The days of a period in the user's zone: "2026-12-04", or "2026-11-28 to 2026-11-29"."""
    first = period.start.astimezone(zone).date()
    last = (period.end - timedelta(microseconds=1)).astimezone(zone).date()
    return first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"


def _candidate(found: Found, cosine: float, reference: datetime, **ranks: Any) -> Candidate:
    hours = (reference.timestamp() * 1000.0 - found.seen_ms) / 3_600_000.0
    return Candidate(id=found.id, text=found.text, cosine=cosine, hours=hours, weight=found.weight,
                     entities=found.entities, **ranks)


def _replace(c: Candidate, **changes: Any) -> Candidate:
    return replace(c, **changes)


def _cos(n: Neighbour) -> float:
    return n.cosine if n.cosine is not None else -1.0


def _nothing_left(decision: GateDecision, min_score: float) -> str:
    if min_score > 0:
        return f"{decision.reason}; no memory reached minScore {min_score}"
    return f"{decision.reason}; no single memory relates enough"


def humanize_age(then: datetime, now: datetime) -> str:
    """'just now', '5 minutes ago', '3 hours ago', '2 days ago', '4 months ago', '1 year ago'."""
    seconds = max(0.0, (now - then).total_seconds())
    for unit, size in (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600),
                       ("minute", 60)):
        if seconds >= size:
            n = math.floor(seconds / size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


def _one_line(text: str) -> str:
    return " ".join(text.split())


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # not the locale's
SECTION_GAP = "\n\n"


def now_line(now: datetime, zone: tzinfo) -> str:
    """The line a context prompt opens with: the current date and time in the user's zone, "Now: Monday 2026-12-07
    14:05 (Europe/Berlin)", so an LLM can place what the ages ("3 days ago") and the user ("last month") say."""
    local = now.astimezone(zone)
    name = getattr(zone, "key", None) or local.tzname() or "UTC"
    return f"Now: {_WEEKDAYS[local.weekday()]} {local:%Y-%m-%d %H:%M} ({name})"


def section_room(budget: int, header: str) -> int:
    """What a budget leaves the sections under a header line (and the blank line after it)."""
    return max(0, budget - len(header) - len(SECTION_GAP)) if header else budget


def _headed(header: str, body: str) -> str:
    return SECTION_GAP.join(part for part in (header, body) if part)


STYLE_HEADER = "How the user wants to be answered:"
MEMORY_HEADER = "Relevant memories:"
TURN_HEADER = "Recent conversation:"


def _compose(memory_lines: Sequence[str], turn_lines_newest_first: Sequence[str],
             style_lines: Sequence[str] = ()) -> str:
    sections: list[str] = []
    if style_lines:
        sections.append("\n".join([STYLE_HEADER, *style_lines]))
    if memory_lines:
        sections.append("\n".join([MEMORY_HEADER, *memory_lines]))
    if turn_lines_newest_first:
        sections.append("\n".join([TURN_HEADER, *reversed(turn_lines_newest_first)]))
    return SECTION_GAP.join(sections)


def _memory_line(memory: Memory, now: datetime) -> str:
    return f"- [{memory.type.value}, {humanize_age(memory.created_at, now)}] {_one_line(memory.text)}"


def _turn_line(turn: ContextTurn) -> str:
    return f"{turn.speaker}: {_one_line(turn.text)}"


@dataclass(frozen=True, slots=True)
class Packed:
    """What pack_context fits: the memories shown (their indexes, best first) and their lines (the last one maybe
    cut), the turn lines shown (newest first), the memories left out as repeats, and the reply styles shown (their
    indexes and lines, whole)."""

    memories: list[int]
    memory_lines: list[str]
    turn_lines: list[str]
    repeats: list[int]
    styles: list[int] = field(default_factory=list)
    style_lines: list[str] = field(default_factory=list)


# A memory line cut to fit keeps at least this many characters after its "- [TYPE, age] " (else it is left out).
MIN_CUT_MEMORY = 24


def pack_context(memory_lines: Sequence[str], turn_lines_newest_first: Sequence[str], *, budget: int,
                 memory_texts: Sequence[str] = (), turn_texts_newest_first: Sequence[str] = (),
                 style_lines: Sequence[str] = (), style_texts: Sequence[str] = ()) -> Packed:
    """What of the memory lines (best first) and the turn lines (newest first) fits in `budget` characters of the
    composed text, and which memory lines were left out as repeats. The newest turns take up to half the budget
    first (the newest alone cut to that half when it is longer), the memories the rest, and what the memories
    leave goes to older turns; the turn that no longer fits whole is cut with an ellipsis. The memories go in
    rank order: the first that does not fit whole is cut with an ellipsis (when MIN_CUT_MEMORY of its characters
    fit) and the rest left out, so a shorter, lower-ranked memory never takes a better one's place (a friend's
    birthday in place of the user's allergy). A memory whose text (memory_texts, one-lined) a turn of the first
    part says whole (turn_texts_newest_first) is left out: the prompt carries its words already, the budget goes
    to others. The reply styles (style_lines, newest first) come before the memories, each whole or not at all
    (half an instruction misleads), a repeat of those turns left out as a memory is."""
    kept_m: list[int] = []
    lines: list[str] = []
    kept_s: list[int] = []
    styles: list[str] = []

    def length(m: list[str], t: list[str]) -> int:
        return len(_compose(m, t, styles))

    kept_t, whole = _first_part(turn_lines_newest_first, budget)  # 1: the newest turns, within half the budget
    said = turn_texts_newest_first[:whole]
    repeats = [i for i, text in enumerate(memory_texts) if _said(text, said)]
    for i, line in enumerate(style_lines):  # 2: how the user wants to be answered, each whole
        if not (i < len(style_texts) and _said(style_texts[i], said)) \
                and len(_compose([], kept_t, [*styles, line])) <= budget:
            kept_s.append(i)
            styles.append(line)
    for i, line in enumerate(memory_lines):  # 3: the memories, best first; the first that does not fit is cut
        if i in repeats:
            continue
        if length([*lines, line], kept_t) <= budget:
            kept_m.append(i)
            lines.append(line)
            continue
        room = budget - length([*lines, ""], kept_t)
        if room >= line.find("] ") + 2 + MIN_CUT_MEMORY and (cut := _cut(line, room)) is not None:
            kept_m.append(i)
            lines.append(cut)
        break
    for line in turn_lines_newest_first[len(kept_t):]:  # 4: older turns with what is left; the last one cut
        if length(lines, [*kept_t, line]) <= budget:
            kept_t.append(line)
            continue
        if (older := _cut(line, budget - length(lines, [*kept_t, ""]))) is not None:
            kept_t.append(older)
        break
    return Packed(memories=kept_m, memory_lines=lines, turn_lines=kept_t, repeats=repeats, styles=kept_s,
                  style_lines=styles)


def _first_part(turn_lines_newest_first: Sequence[str], budget: int) -> tuple[list[str], int]:
    """pack_context's first part, before any memory: the newest turns whole within half the budget (the newest
    alone cut to that half when it is longer), and how many of them are whole (what a memory may repeat)."""
    kept_t: list[str] = []
    whole = 0
    for line in turn_lines_newest_first:
        if len(_compose([], [*kept_t, line])) <= budget // 2:
            kept_t.append(line)
            whole += 1
            continue
        newest = _cut(line, budget // 2 - len(_compose([], [*kept_t, ""]))) if not kept_t else None
        if newest is not None:
            kept_t.append(newest)  # the conversation's last word is never crowded out by memories
        break
    return kept_t, whole


def _cut(line: str, room: int) -> str | None:
    """A line cut to `room` characters with an ellipsis; None when the room is too small to say anything."""
    return line[: room - 1] + "…" if room >= 16 else None


def _said(text: str, turns: Sequence[str]) -> bool:
    """Whether a memory's one-lined text is said whole in one of these one-lined turns."""
    return bool(text) and any(text in turn for turn in turns)


def said_in_turns(turns: Sequence[ContextTurn], budget: int) -> list[str]:
    """The one-lined texts of the recent turns (oldest first) that contextPrompt shows whole whatever the
    memories: a memory one of them says is a repeat, left out before recall chooses its k."""
    newest_first = list(reversed(turns))
    _, whole = _first_part([_turn_line(t) for t in newest_first], budget)
    return [_one_line(t.text) for t in newest_first[:whole]]


def render_context(turns: Sequence[ContextTurn], result: RecallResult, *, budget: int,
                   now: datetime, styles: Sequence[Memory] = (), header: str = "") -> ContextPrompt:
    """The header (now_line: contextPrompt's opens every prompt; "" none), then how the user wants to be answered
    (styles, newest first), the memories (best first) and the recent turns (oldest first), within `budget`
    characters, the header's included: the sections get what it leaves (section_room), as pack_context fits them."""
    packed = _pack([m.memory for m in result.memories], turns, budget=section_room(budget, header), now=now,
                   styles=styles)
    kept_turns = list(reversed(turns))[: len(packed.turn_lines)]
    return ContextPrompt(
        text=_headed(header, _compose(packed.memory_lines, packed.turn_lines, packed.style_lines)),
        memories=[result.memories[i] for i in packed.memories],
        turns=list(reversed(kept_turns)),
        gated=result.gated,
        reason=result.reason,
        period=result.period,
        reply_styles=[styles[i] for i in packed.styles],
    )


def _pack(memories: Sequence[Memory], turns: Sequence[ContextTurn], *, budget: int, now: datetime,
          styles: Sequence[Memory] = ()) -> Packed:
    """pack_context over memories and turns (oldest first) and the reply styles, the fit recall applies and the
    text shown alike."""
    newest_first = list(reversed(turns))
    return pack_context([_memory_line(m, now) for m in memories], [_turn_line(t) for t in newest_first],
                        budget=budget, memory_texts=[_one_line(m.text) for m in memories],
                        turn_texts_newest_first=[_one_line(t.text) for t in newest_first],
                        style_lines=[_memory_line(m, now) for m in styles],
                        style_texts=[_one_line(m.text) for m in styles])
