"""Recall's reads and writes (cypher/recall/*): candidates from the vector and full-text indexes, one hop
of graph expansion, and the usage update of the recalled memories, all inside the caller's transaction
so recall reads its final results and records their use atomically."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from graph.ids import entity_id
from graph.memories import WeightShares
from graph.model import USER_ENTITY_KINDS, USER_ENTITY_NAME, Memory, MemoryType, Scope, Tier, scope_params
from graph.records import Floats, memory_from_row
from graph.related import TraversalParams
from graph.scope_token import scoped_query
from graph.store import GraphStore, Row, Tx
from graph.vector_cache import (
    CachedUser,
    QueryCosines,
    Ranked,
    UserState,
    VectorCache,
    rank_dense,
    rank_terms,
    user_state,
    user_state_of,
)

T = TypeVar("T")


def plan_size_class(text: str) -> int:
    """The size class Neo4j files a string (or list) parameter under when it caches a plan: length 0 and 1 alone,
    then 2-10, 11-100, 101-1000... (measured on 5.26: a user id of 10 characters and one of 11 compile apart).
    recall/rehearsal_subjects computes the same in Cypher."""
    n = len(text)
    return n if n <= 1 else len(str(n - 1))


def cosine_of(score: float | None) -> float | None:
    """Neo4j's vector functions answer (1 + cos) / 2; recall thinks in plain cosines."""
    return None if score is None else 2.0 * float(score) - 1.0


@dataclass(frozen=True, slots=True)
class RecallFilters:
    """Which memories recall may see, and how: live memories only, unless include_history (superseded too)
    or as_of (those valid at that instant); their weights decayed to weight_at with the weight policy's
    parameters `decay` (cypher/recall/weight_now), or as stored without them."""

    types: Sequence[MemoryType] | None = None
    tiers: Sequence[Tier] | None = None
    include_history: bool = False
    as_of: datetime | None = None
    weight_at: datetime | None = None
    decay: Mapping[str, float] | None = None

    def params(self) -> dict[str, Any]:
        decaying = self.weight_at is not None and self.decay is not None
        return {
            "types": [t.value for t in self.types] if self.types else None,
            "tiers": [t.value for t in self.tiers] if self.tiers else None,
            "include_history": self.include_history,
            "as_of": self.as_of,
            "weight_at_ms": int(self.weight_at.timestamp() * 1000) if decaying and self.weight_at else None,
            **(self.decay if decaying and self.decay is not None else _AS_STORED),
        }


# The weight parameters when weights are read as stored (recall/weight_now never uses them then).
_AS_STORED = {"passive_share": 0.0, "active_share": 0.0, "preset_share": 0.0, "passive_keep": 1.0,
              "emotional_factor": 1.0, "week_ms": 1.0, "day_ms": 1.0}


@dataclass(frozen=True, slots=True)
class RetrievalLimits:
    """How many candidates each stage reads, and when the exact scan beats the vector index."""

    k_dense: int = 30
    k_text: int = 30
    exact_max: int = 300
    exact_per_candidate: float = 8.0
    oversample: float = 1.5
    max_candidates: int = 2000

    def plan(self, mine: int, total: int) -> CandidatePlan:
        """Exact scan or indexes for a user with mine memories among total, and how many candidates each
        index is asked for: the vector index k * all / the user's * oversample (it ranks every user's
        memories), the full-text index k * oversample (it returns the user's own: recall/index_text);
        within [k, max_candidates]. The oversampling covers recall's filters (types, tiers, validity)."""
        ratio = total / mine * self.oversample if mine > 0 else 1.0

        def asked(k: int, factor: float) -> int:
            return int(min(max(k * factor, k), self.max_candidates))

        exact = mine <= self.exact_max or mine <= self.exact_per_candidate * min(self.k_dense * ratio,
                                                                                 self.max_candidates)
        return CandidatePlan(exact=exact, index_dense=asked(self.k_dense, ratio),
                             index_text=asked(self.k_text, self.oversample))


@dataclass(frozen=True, slots=True)
class CandidatePlan:
    exact: bool  # scan the user's own memories (dense and text) rather than ask the global indexes
    index_dense: int
    index_text: int


@dataclass(frozen=True, slots=True)
class Found:
    """A candidate memory as recall scores it: a compact row, not the whole memory (recall reads the
    full memories of the ones it returns in recall/touch)."""

    id: str
    text: str
    weight: float
    seen_ms: int  # when the memory was last mentioned (or created), epoch milliseconds
    entities: tuple[str, ...] = ()  # names of the entities the memory mentions


@dataclass(frozen=True, slots=True)
class DenseHit:
    memory: Found
    cosine: float
    rank: int


@dataclass(frozen=True, slots=True)
class TextHit:
    memory: Found
    score: float
    cosine: float | None
    rank: int


@dataclass(frozen=True, slots=True)
class SlotHit:
    """A memory stating a fact of the user that the question asks for (recall/slot_answers)."""

    memory: Found
    cosine: float
    answers: tuple[str, ...]  # the asked predicates it states


@dataclass(frozen=True, slots=True)
class PeriodHit:
    """A memory said in the period a question asks about (recall/in_period)."""

    memory: Found
    cosine: float | None  # None: a vector of another size (an earlier model's)


def user_entity_ids(scope: Scope) -> list[str]:
    """The ids of the user's own entity, one per kind it may carry (USER_ENTITY_KINDS)."""
    return [entity_id(scope, kind, USER_ENTITY_NAME) for kind in USER_ENTITY_KINDS]


@dataclass(frozen=True, slots=True)
class SlotQuestion:
    """The user's facts a question asks for (predicates, ingest/slots.py) and how many memories stating them
    recall reads (recall/slot_match): none asked, nothing read."""

    predicates: tuple[str, ...]
    limit: int = 10
    asked: tuple[str, ...] = ()  # as the question asked them (ingest/slots.py: OCCUPATION for a job's is_a)
    # common given names (lower case): a family member's in any case in a text written all in lower case, that is
    # one capital_pattern (a Java regex, matched whole) does not match
    given_names: tuple[str, ...] = ()
    capital_pattern: str = "(?!)"
    # a question about the user's people alone ("my daughter", "my coworker": ingest/slots.py people_asked): their
    # predicates, whose values' memories are read too (the members named: "Lily started piano lessons")
    people: tuple[str, ...] = ()
    # one relative asked about ("my mom", 我妈: kin) and the words the user calls them by (ingest/slots.py kin_words):
    # the memories speaking of them by those words, the user's own relative, answer too (an unnamed one has no name)
    kin: str | None = None
    kin_words: tuple[str, ...] = ()

    def params(self, scope: Scope) -> dict[str, Any]:
        subjects = user_entity_ids(scope) if self.predicates else []
        words = [w for w in self.kin_words if '"' not in w and "\\" not in w]
        lucene = scoped_query(scope, " OR ".join(f'"{w}"' for w in words)) if self.kin and words else None
        return {"slot_subject_ids": subjects, "slot_predicates": list(self.predicates), "slot_limit": self.limit,
                "slot_people": list(self.people), "given_names": list(self.given_names),
                "capital_pattern": self.capital_pattern, "slot_kin": self.kin or "", "slot_kin_lucene": lucene,
                "slot_kin_pattern": _kin_pattern(words)}


def _kin_pattern(words: Sequence[str]) -> str:
    """A Java regex a text matches when it speaks of the user's own relative by one of the words: not someone
    else's ("her mom", "Jordan's mom", 他妈妈, 朋友的妈妈), not inside a longer Latin word ("grandmother")."""
    if not words:
        return "(?!)"
    alternatives = "|".join(f"\\Q{w}\\E" for w in words)
    return ("(?is).*(?<![\\p{IsLatin}'\u2019])(?<!(?:his|her|their|your) )(?<!['\u2019]s )(?<![他她你的])"
            f"(?:{alternatives})(?![\\p{{IsLatin}}]).*")


@dataclass(frozen=True, slots=True)
class ExpansionParams:
    """How recall expands from its seed hits (recall/neighbours); and how many likely seeds candidates()
    expands ahead, in the statement reading its candidates, when the vector cache ranks them (the first
    prefetch_dense of the cache's ranking that pass recall's filters, the first prefetch_text full-text hits
    and the slot question's answers): the seeds are the best direct hits once scored, and a seed expanded
    ahead costs no round trip of its own."""

    min_strength: float
    hop: TraversalParams
    per_seed: int
    prefetch_dense: int = 0
    prefetch_text: int = 0

    def params(self) -> dict[str, Any]:
        return {"min_strength": self.min_strength, "entity_base": self.hop.entity_base,
                "max_degree": self.hop.max_degree, "per_seed": self.per_seed}


@dataclass(frozen=True, slots=True)
class Prefetched:
    """Neighbour rows (recall/neighbours) read ahead in the candidates' statement: every seed expanded ahead
    has its rows here (maybe none), in the statement's order."""

    rows_by_seed: dict[str, list[Row]]


@dataclass(frozen=True, slots=True)
class CandidateSet:
    user_memories: int  # how many memories the user has (0 when the user is unknown)
    dense: list[DenseHit]
    text: list[TextHit]
    prefetched: Prefetched | None = None
    slots: list[SlotHit] | None = None  # the slot question's answers when read with the candidates, else None


@dataclass(frozen=True, slots=True)
class Neighbour:
    seed_id: str
    memory: Found
    strength: float
    via: str  # ASSOCIATED or ENTITY
    entity: str | None
    cosine: float | None




class RecallRepository:
    def __init__(self, store: GraphStore, vector_dimensions: int, cache: VectorCache | None = None) -> None:
        self._store = store
        self._dimensions = vector_dimensions
        self._cache = cache

    def write(self, work: Callable[[Tx], T]) -> T:
        """Run recall's statements in one write transaction (the read of the results and their usage)."""
        return self._store.write_tx(work)

    def read(self, work: Callable[[Tx], T]) -> T:
        return self._store.read_tx(work)

    def rehearse(self, work: Callable[[Tx], T]) -> T:
        """Run recall's statements as write() does, then roll them back: the plan warm-up's recall."""
        return self._store.rolled_back_tx(work)

    def rehearsal_subjects(self, limit: int) -> list[tuple[Scope, str]]:
        """For each plan size class of (tenant, user id) among users with memories (plan_size_class), the user with
        the most memories and one of its live memories, biggest first, at most limit (recall/rehearsal_subjects);
        none on a store without memories."""
        rows = self._store.read("recall/rehearsal_subjects", {"limit": limit})
        return [(Scope(tenant=r["tenant"], user_id=r["user_id"]), r["memory_id"]) for r in rows]

    def candidates(
        self,
        tx: Tx,
        scope: Scope,
        embedding: Sequence[float],
        query_terms: Sequence[str],
        lucene: str | None,
        filters: RecallFilters,
        limits: RetrievalLimits,
        expansion: ExpansionParams | None = None,
        slots: SlotQuestion | None = None,
    ) -> CandidateSet:
        """Dense and full-text candidates. query_terms are matched as substrings for a small user (exact
        path), lucene is the full-text index query for a large one. With a vector cache the exact scans
        run in numpy over the cached rows and only the best are read back; Neo4j scans or asks its
        indexes for whatever the cache cannot answer. With expansion, the likely seeds' neighbours are read
        ahead when the cache's answer is read (CandidateSet.prefetched, for expand()); with slots, the memories
        stating the user's facts asked for, when read in the same statement (CandidateSet.slots; else None,
        and slot_answers() reads them)."""
        guess = self._speculate(tx, scope, embedding, query_terms, lucene, filters, limits, expansion, slots)
        state = guess.state if guess is not None else user_state(tx, scope)
        if state.mine == 0:
            return CandidateSet(user_memories=0, dense=[], text=[])
        plan = limits.plan(state.mine, state.total)
        read = guess.read if guess is not None else None
        if read is None and self._cache is not None:
            cached = self._cache.user(tx, scope, state)
            if cached is not None:
                # After a stale guess the catch-up only appended rows: the guess's cosines are kept.
                query = guess.query if guess is not None and guess.query.cached is cached else \
                    QueryCosines(cached, embedding)
                read = self._read_back(tx, scope, filters, _wanted(query, query_terms, plan, limits))
        dense_rows: list[Row] | None = None
        text_rows: list[Row] | None = None
        if read is not None:
            dense_rows = read[0]
            if plan.exact:
                text_rows = read[1] if query_terms else []
            elif lucene is None:
                text_rows = []
            elif guess is not None and not guess.plan.exact:
                # The full-text index's answer, read in this transaction with the guess (current even when
                # the cache was not), asked for as many hits as the user's state at its last recall says:
                # an oversampling count, not a fact about this moment (every write in the store moves it).
                # Their cosines come from the cache (Neo4j reading each hit's embedding cost ~0.4 ms a recall).
                text_rows = _with_cached_sims(guess.text, self._cache.peek(scope) if self._cache else None,
                                             embedding)
        if dense_rows is None or text_rows is None:
            params = {
                **scope_params(scope),
                **filters.params(),
                "embedding": Floats(embedding),
                "terms": list(query_terms),
                "lucene": scoped_query(scope, lucene),
                "k_dense": limits.k_dense,
                "k_text": limits.k_text,
                "exact": plan.exact,
                "index_dense": plan.index_dense,
                "index_text": plan.index_text,
                "want_dense": dense_rows is None,
                "want_text": text_rows is None,
            }
            [row] = tx.run("recall/candidates", params, dimensions=self._dimensions) or [{"dense": [], "text": []}]
            dense_rows = row["dense"] if dense_rows is None else dense_rows
            text_rows = row["text"] if text_rows is None else text_rows
        dense = [
            DenseHit(memory=_found(d), cosine=float(cosine_of(d["sim"]) or 0.0), rank=i + 1)
            for i, d in enumerate(sorted(dense_rows, key=lambda d: (-float(d["sim"]), d["id"])))
        ]
        text = [
            TextHit(memory=_found(t), score=float(t["score"]), cosine=cosine_of(t["sim"]), rank=i + 1)
            for i, t in enumerate(text_rows)
        ]
        slot_hits = None
        if guess is not None and slots is not None:  # their cosines from the cache, as caught up by now
            cached_now = self._cache.peek(scope) if self._cache is not None else None
            slot_hits = [_slot_hit(r) for r in _with_cached_sims(guess.slots, cached_now, embedding)]
        return CandidateSet(user_memories=state.mine, dense=dense, text=text,
                            prefetched=guess.prefetched if guess is not None else None, slots=slot_hits)

    def slot_answers(self, tx: Tx, scope: Scope, asked: SlotQuestion, embedding: Sequence[float],
                     filters: RecallFilters) -> list[SlotHit]:
        """The user's memories (newest first, at most asked.limit) stating one of the user's facts asked for:
        their affirmed (user, predicate, value) triples (recall/slot_answers: the path without the cache)."""
        if not asked.predicates:
            return []
        rows = tx.run("recall/slot_answers", {**scope_params(scope), **filters.params(), **asked.params(scope),
                                              "embedding": Floats(embedding)})
        return [_slot_hit(r) for r in rows]

    def in_period(self, tx: Tx, scope: Scope, start: datetime, end: datetime, embedding: Sequence[float],
                  filters: RecallFilters, limit: int) -> list[PeriodHit]:
        """The user's memories said (or said again) at start <= t < end, the most recently mentioned first, at
        most `limit`, with their cosines to the query (recall/in_period: a question about a past period)."""
        rows = tx.run("recall/in_period", {**scope_params(scope), **filters.params(), "start": start, "end": end,
                                           "limit": limit, "embedding": Floats(embedding)})
        return [PeriodHit(memory=_found(r), cosine=cosine_of(r["sim"])) for r in rows]

    def _speculate(self, tx: Tx, scope: Scope, embedding: Sequence[float], query_terms: Sequence[str],
                   lucene: str | None, filters: RecallFilters, limits: RetrievalLimits,
                   expansion: ExpansionParams | None, slots: SlotQuestion | None = None) -> _Guess | None:
        """The cache's answer in one round trip when it is still current: rank with the cached rows as
        they were at the user's last recall, and read the user's state (and, for a user the full-text index
        answers, its full-text candidates; with expansion, the neighbours of the likely seeds) in the
        statement reading the rows back (recall/rows_checked).
        None when there was nothing to guess from; else the state read, with the rows when the state shows
        the guess held (read None when the user changed since: new memories, an undo; the caller catches
        up with that state and keeps the guess's cosines)."""
        cached = self._cache.peek(scope) if self._cache is not None else None
        guessed = cached.state if cached is not None else None
        if cached is None or guessed is None or guessed.mine == 0:
            return None
        plan = limits.plan(guessed.mine, guessed.total)
        query = QueryCosines(cached, embedding)
        ranked_as = cached.ranked_as()  # before the ranking reads the rows
        text_lucene = None if plan.exact else scoped_query(scope, lucene)
        ahead = expansion if expansion is not None else ExpansionParams(0.0, TraversalParams(0.0, 0), 0)
        seen: list[tuple[UserState, list[Row], Prefetched, list[Row]]] = []
        asked = (slots or SlotQuestion(())).params(scope)

        def first_round(ids: list[str], reserves: list[_Reserve]) -> _FirstRound:
            # reserves: each ranking's batch, best first (dense, then the cache's term ranking on the exact
            # path); the statement expands the first prefetch_dense of the dense ones that pass the filters
            heads = [r.batch for r in reserves]
            [row] = tx.run("recall/rows_checked", {
                **scope_params(scope), **filters.params(), **ahead.params(), "ids": ids, "lucene": text_lucene,
                "reserves": [{"batch": r.batch, "need": r.need, "ids": r.ids} for r in reserves],
                "embedding": [], "k_text": limits.k_text,  # the full-text hits' cosines: from the cache
                "index_text": plan.index_text, "with_sim": False,
                "prefetch_ranked": heads[0] if ahead.prefetch_dense > 0 else [],
                "prefetch_dense": ahead.prefetch_dense,
                "prefetch_terms": heads[1][: ahead.prefetch_text] if len(heads) > 1 else [],
                "prefetch_text": ahead.prefetch_text, "prefetch_slots": expansion is not None, **asked,
            })
            state = user_state_of(row)
            text_hits = list(row["text_hits"] or [])
            expanded: dict[str, list[Row]] = {seed: [] for seed in row["seeds"]}
            for n in row["neighbours"]:
                expanded[n["seed_id"]].append(n)
            seen.append((state, text_hits, Prefetched(expanded), [{**r, "sim": None} for r in row["slot_rows"]]))
            if self._cache is None or not self._cache.current(scope, cached, state, ranked_as) \
                    or limits.plan(state.mine, state.total).exact != plan.exact:
                raise _Stale
            return _FirstRound(rows=list(row["rows"]), reserved=list(row["reserved"]),
                               reserve_rows=list(row["reserve_rows"]))

        try:
            read = self._read_back(tx, scope, filters, _wanted(query, query_terms, plan, limits),
                                   first_round=first_round)
        except _Stale:
            read = None
        if not seen:
            return None
        state, text, prefetched, slot_rows = seen[0]
        return _Guess(state=state, plan=plan, query=query, read=read, text=text,
                      prefetched=prefetched if expansion is not None else None, slots=slot_rows)

    def _read_back(self, tx: Tx, scope: Scope, filters: RecallFilters,
                   wanted: Sequence[tuple[Callable[[int], Ranked], int]],
                   first_round: Callable[[list[str], list[_Reserve]], _FirstRound] | None = None,
                   ) -> list[list[Row] | None]:
        """For each (ranking, k): the first k of the cache's ranking that pass recall's filters, read from
        Neo4j as candidate rows (a memory deleted since is not found), all rankings in one statement per
        round, as far down each ranking as _round_limit says; None for a ranking whose filters leave fewer
        than k of its best 32k while more remain (a narrow filter: the Neo4j scan is better). first_round,
        when given, reads the first round's rows instead of recall/rows (given the ids and each ranking's
        batch with its reserve: the next _reserve_size ids, read in the same statement when the batch comes
        back short of k, so most short rankings need no second round)."""
        def rows(ids: list[str]) -> list[Row]:
            return tx.run("recall/rows", {**scope_params(scope), **filters.params(), "ids": ids})

        passed: list[list[Row]] = [[] for _ in wanted]
        fetched = [0 for _ in wanted]
        done: list[bool] = [False for _ in wanted]

        def take(i: int, ranked: Ranked, batch: list[str], limit: int, found: Mapping[str, Row]) -> None:
            for position, memory_id in enumerate(batch, start=fetched[i]):
                if memory_id in found:
                    # Neo4j's cosine convention, (1 + cos) / 2, like the statement's rows
                    passed[i].append({**found[memory_id], "sim": (1.0 + ranked.cosines[memory_id]) / 2.0,
                                      "score": ranked.scores[position]})
            fetched[i] = min(limit, len(ranked.ids))
            done[i] = len(passed[i]) >= wanted[i][1] or (ranked.complete and fetched[i] >= len(ranked.ids))

        for round_ in (0, 1, 2):
            reserving = round_ == 0 and first_round is not None
            batches: dict[int, tuple[Ranked, list[str], int]] = {}
            for i, (ranking, k) in enumerate(wanted):
                if not done[i]:
                    limit = _round_limit(round_, k, fetched[i], len(passed[i]))
                    if limit <= fetched[i]:
                        continue  # an earlier round already read as far as this one would (its 32k)
                    ranked = ranking(limit + _reserve_size(k) if reserving else limit)
                    batches[i] = (ranked, ranked.ids[fetched[i]:limit], limit)
            ids = sorted({memory_id for _, batch, _ in batches.values() for memory_id in batch})
            if reserving and first_round is not None:
                reserves = [_Reserve(batch=batch, need=wanted[i][1], ids=ranked.ids[limit:limit + _reserve_size(
                    wanted[i][1])]) for i, (ranked, batch, limit) in batches.items()]
                first = first_round(ids, reserves)
                found = {r["id"]: r for r in first.rows}
                reserve_found = {r["id"]: r for r in first.reserve_rows}
                for (i, (ranked, batch, limit)), reserve, was_read in zip(
                        batches.items(), reserves, first.reserved, strict=True):
                    take(i, ranked, batch, limit, found)
                    if was_read and not done[i] and reserve.ids:
                        take(i, ranked, reserve.ids, limit + len(reserve.ids), reserve_found)
            else:
                found = {r["id"]: r for r in rows(ids)} if ids else {}
                for i, (ranked, batch, limit) in batches.items():
                    take(i, ranked, batch, limit, found)
            if all(done):
                break
        return [rows[: wanted[i][1]] if done[i] else None for i, rows in enumerate(passed)]

    def expand(
        self,
        tx: Tx,
        scope: Scope,
        seeds: Sequence[str],
        embedding: Sequence[float],
        filters: RecallFilters,
        expansion: ExpansionParams,
        prefetched: Prefetched | None = None,
        *,
        use_cache: bool = True,
    ) -> list[Neighbour]:
        """The neighbours of the seeds (recall/neighbours), seed by seed in the seeds' order: a seed read
        ahead by candidates() (prefetched) is not read again."""
        if not seeds:
            return []
        # The user's vectors are in memory when candidates() just read through the cache: the neighbours'
        # cosines come from there, not from Neo4j reading each embedding (~0.05 ms each).
        cached = self._cache.peek(scope) if self._cache is not None and use_cache else None
        ahead = prefetched.rows_by_seed if prefetched is not None and cached is not None else {}
        missing = [seed for seed in seeds if seed not in ahead]
        by_seed: dict[str, list[Row]] = {seed: ahead.get(seed, []) for seed in seeds}
        if missing:
            params = {
                **scope_params(scope),
                **filters.params(),
                **expansion.params(),
                "seeds": missing,
                # 512 floats sent for nothing when the cache has the vectors
                "embedding": Floats(embedding) if cached is None else [],
                "with_sim": cached is None,
            }
            for r in tx.run("recall/expand", params):
                by_seed[r["seed_id"]].append(r)
        rows = [r for seed in seeds for r in by_seed[seed]]
        if cached is not None:
            cosines = cached.cosines([r["id"] for r in rows], embedding)
            if any(r["id"] not in cosines for r in rows):  # written since the cache read the user
                return self.expand(tx, scope, seeds, embedding, filters, expansion, use_cache=False)
            return [_neighbour(r, cosines[r["id"]]) for r in rows]
        return [_neighbour(r, cosine_of(r["sim"])) for r in rows]

    def chosen(self, tx: Tx, scope: Scope, ids: Sequence[str]) -> list[Memory]:
        """The memories a recall chose, as stored, in ids order, before touch records their use
        (recall/chosen)."""
        if not ids:
            return []
        rows = tx.run("recall/chosen", {**scope_params(scope), "ids": list(ids)})
        return [memory_from_row(r["memory"]) for r in rows]

    def standing(self, scope: Scope, predicate: str, limit: int) -> list[Memory]:
        """The user's live memories stating `predicate` of the user (how they want to be answered), newest first,
        at most `limit` (recall/reply_styles), in a read of their own."""
        if limit <= 0:
            return []
        rows = self._store.read("recall/reply_styles", {**scope_params(scope), "subject_ids": user_entity_ids(scope),
                                                       "predicate": predicate, "limit": limit})
        return [memory_from_row(r["memory"]) for r in rows]

    def touch(
        self, tx: Tx, scope: Scope, ids: Sequence[str], *, now: datetime, boost: float, shares: WeightShares,
        pairs: Sequence[tuple[str, str]] = (), delta: float = 0.0, decay: Mapping[str, float] | None = None,
    ) -> dict[str, Memory]:
        """The recalled memories as they are after this recall: recall_count + 1, last_recalled_at, passive
        + boost, weight recomputed; and the associations of the pairs recalled together + delta (one atomic
        statement). With decay (the weight policy's parameters) their weights are first decayed to now,
        in the same statement (recall/use)."""
        if not ids:
            return {}
        params = {
            **scope_params(scope), "ids": list(ids), "now": now, "boost": boost,
            "passive_share": shares.passive, "active_share": shares.active, "preset_share": shares.preset,
            "pairs": [{"low": min(a, b), "high": max(a, b)} for a, b in pairs if a != b] if delta > 0 else [],
            "delta": delta,
        }
        if decay is not None:
            # One statement, one set of names: the policy's shares are the settings' shares, as the touch's.
            params = {**decay, **params, "with_before": False}
        rows = tx.run("recall/use" if decay is not None else "recall/touch", params)
        memories = [memory_from_row(r["memory"]) for r in rows]
        return {m.id: m for m in memories}


class _Stale(Exception):
    """The vector cache changed under a speculative read (graph/recall.py RecallRepository._speculate)."""


@dataclass(frozen=True, slots=True)
class _Guess:
    """What a speculative read (RecallRepository._speculate) found: the user's state; the rankings' cosines;
    the rows (None: the cache was not current) and the full-text candidates read with them, by plan; the
    neighbours of the likely seeds (read in the same transaction: current whether or not the cache was)."""

    state: UserState
    plan: CandidatePlan
    query: QueryCosines
    read: list[list[Row] | None] | None
    text: list[Row]
    prefetched: Prefetched | None = None
    slots: list[Row] = field(default_factory=list)  # recall/slot_match's rows (sim None: from the cache)


@dataclass(frozen=True, slots=True)
class _Reserve:
    """One ranking's first batch in recall/rows_checked, and the ids after it, read only when fewer than
    need of the batch pass recall's filters."""

    batch: list[str]
    need: int
    ids: list[str]


@dataclass(frozen=True, slots=True)
class _FirstRound:
    """What recall/rows_checked read of the rankings: the batches' rows, whether each reserve was read (in
    the order of the reserves) and the rows of those read."""

    rows: list[Row]
    reserved: list[bool]
    reserve_rows: list[Row]


def _reserve_size(k: int) -> int:
    """How many ids after a ranking's first batch recall/rows_checked reads when the batch comes back short:
    on the 10k bench user a fifth of the questions had their first k + k/4 short (superseded memories beside
    the live ones), and a second round trip (recall/rows, 3.6-7.7 ms) made those recalls the p95; rows cost
    ~0.05 ms each, so k/2 more covers most shortfalls for ~1 ms, and only when short."""
    return max(8, k // 2)


def _round_limit(round_: int, k: int, fetched: int, passed: int) -> int:
    """How far down a ranking round round_ of RecallRepository._read_back reads (each row read back costs
    ~0.05 ms): the best k + k/4; then, for what is missing, twice as many rows as the pass rate so far says
    it takes (a user with a history: the superseded memories rank right beside the ones that replaced them,
    48 of the bench user's 274 real ones; reading 32k at once cost 50-140 ms a question); then up to 32k."""
    widest = 32 * k
    if round_ == 0:
        return min(widest, k + max(4, k // 4))
    if round_ == 1 and passed > 0:
        return min(widest, fetched + max(8, math.ceil(2 * (k - passed) * fetched / passed)))
    return widest


def _wanted(query: QueryCosines, query_terms: Sequence[str], plan: CandidatePlan,
            limits: RetrievalLimits) -> list[tuple[Callable[[int], Ranked], int]]:
    """The rankings the cache answers: dense always, the terms too when the plan scans exactly."""
    wanted: list[tuple[Callable[[int], Ranked], int]] = [(lambda n: rank_dense(query, n), limits.k_dense)]
    if plan.exact and query_terms:
        terms_ranked = rank_terms(query, query_terms)  # complete: any limit gives it whole
        wanted.append((lambda n: terms_ranked, limits.k_text))
    return wanted


def _with_cached_sims(rows: Sequence[Row], cached: CachedUser | None, embedding: Sequence[float]) -> list[Row]:
    """Candidate rows read without their cosine (sim null) with it from the cached vectors, in Neo4j's
    convention (1 + cos) / 2; a row the cache does not hold keeps none (written after its catch-up)."""
    cosines = cached.cosines([r["id"] for r in rows if r["sim"] is None], embedding) if cached is not None else {}
    return [{**r, "sim": (1.0 + cosines[r["id"]]) / 2.0} if r["sim"] is None and r["id"] in cosines else r
            for r in rows]


def _neighbour(row: Row, cosine: float | None) -> Neighbour:
    return Neighbour(seed_id=row["seed_id"], memory=_found(row), strength=float(row["strength"]), via=str(row["via"]),
                     entity=row["entity"], cosine=cosine)


def _slot_hit(row: Row) -> SlotHit:
    # a memory the cache does not hold yet (written after its catch-up) has no cosine: -1, unrelated by meaning
    cosine = cosine_of(row["sim"])
    return SlotHit(memory=_found(row), cosine=-1.0 if cosine is None else cosine, answers=tuple(row["answers"]))


def _found(row: dict[str, Any]) -> Found:
    return Found(id=row["id"], text=row["text"], weight=float(row.get("weight") or 0.0), seen_ms=int(row["seen"]),
                 entities=tuple(row.get("names") or ()))
