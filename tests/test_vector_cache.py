"""Recall's in-process vector cache (graph/vector_cache.py) against the real Neo4j: the cached exact scan
finds what Neo4j's scan finds, and it follows the store's writes (new memories, deletions, an erased and
re-created user) without being told."""

from __future__ import annotations

import threading
import uuid
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from bmam.container import Container
from graph.ids import new_memory_id
from graph.model import MemoryType, NewMemory, Scope, Tier
from graph.recall import (
    CandidateSet,
    ExpansionParams,
    Neighbour,
    RecallFilters,
    RecallRepository,
    RetrievalLimits,
)
from graph.store import Row, Tx
from graph.text_key import text_key
from graph.vector_cache import CachedUser, UserState, VectorCache, user_state

WORDS = ["tea", "hiking", "成都", "火锅", "python", "guitar", "sister", "rain", "bread", "train"]


def unit(rng: np.random.Generator, dims: int) -> list[float]:
    v = rng.standard_normal(dims)
    return [float(x) for x in v / np.linalg.norm(v)]


def store(c: Container, scope: Scope, text: str, embedding: list[float], tier: Tier = Tier.TEMP,
          type: MemoryType = MemoryType.SEMANTIC) -> str:
    new = NewMemory(id=new_memory_id(), text=text, type=type, embedding=embedding, tier=tier)
    return c.memory_repository.remember(scope, new, now=c.clock.now(), passive=0.2, active=0.5).memory.id


def fill(c: Container, scope: Scope, n: int, seed: int, words: list[str] = WORDS) -> list[str]:
    rng = np.random.default_rng(seed)
    ids = []
    for i in range(n):
        text = f"note {i} " + " ".join(rng.choice(words, 3))
        tier = Tier.MID if i % 7 == 0 else Tier.TEMP
        kind = MemoryType.FACTUAL if i % 3 == 0 else MemoryType.SEMANTIC
        ids.append(store(c, scope, text, unit(rng, c.vector_dimensions), tier=tier, type=kind))
    return ids


def both(c: Container, cache: VectorCache, scope: Scope, embedding: list[float], terms: list[str],
         filters: RecallFilters, limits: RetrievalLimits) -> tuple[CandidateSet, CandidateSet]:
    cached = RecallRepository(c.store, c.vector_dimensions, cache)
    plain = RecallRepository(c.store, c.vector_dimensions)
    with_cache = cached.read(lambda tx: cached.candidates(tx, scope, embedding, terms, None, filters, limits))
    without = plain.read(lambda tx: plain.candidates(tx, scope, embedding, terms, None, filters, limits))
    return with_cache, without


def dense_ids(repo: RecallRepository, scope: Scope, query: list[float]) -> set[str]:
    """The ids of the (up to 50) nearest memories, through the cache when repo has one."""
    found = repo.read(lambda tx: repo.candidates(tx, scope, query, [], None, RecallFilters(),
                                                 RetrievalLimits(k_dense=50)))
    return {h.memory.id for h in found.dense}


def same(a: CandidateSet, b: CandidateSet) -> None:
    assert a.user_memories == b.user_memories
    assert [h.memory.id for h in a.dense] == [h.memory.id for h in b.dense]
    assert [h.cosine for h in a.dense] == pytest.approx([h.cosine for h in b.dense], abs=1e-5)
    assert [h.memory.id for h in a.text] == [h.memory.id for h in b.text]
    # Lucene's scores use the whole index's term statistics: another process writing between the two reads
    # moves them a little (seen: 3.58104 vs 3.58101).
    assert [h.score for h in a.text] == pytest.approx([h.score for h in b.text], rel=1e-3)
    assert [h.cosine for h in a.text] == pytest.approx([h.cosine for h in b.text], abs=1e-5)
    assert [h.memory for h in a.dense] == [h.memory for h in b.dense]


@pytest.mark.parametrize("filters", [
    RecallFilters(),
    RecallFilters(tiers=[Tier.MID]),
    RecallFilters(types=[MemoryType.FACTUAL], include_history=True),
], ids=["live", "mid-only", "factual-with-history"])
def test_cached_scan_finds_what_the_neo4j_scan_finds(container: Container, scope: Scope,
                                                     filters: RecallFilters) -> None:
    fill(container, scope, 80, seed=3)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20)
    rng = np.random.default_rng(4)
    limits = RetrievalLimits(k_dense=10, k_text=10)
    for terms in (["tea"], ["火锅", "guitar"], []):
        with_cache, without = both(container, cache, scope, unit(rng, container.vector_dimensions), terms, filters,
                                   limits)
        same(with_cache, without)
        assert len(with_cache.dense) == 10
        assert bool(with_cache.text) == bool(terms)
    assert cache.loads == 1  # read once, then answered from memory


def test_cache_follows_new_and_deleted_memories(container: Container, scope: Scope) -> None:
    fill(container, scope, 30, seed=5)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    cache.PAGE = 7
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    rng = np.random.default_rng(6)
    query = unit(rng, container.vector_dimensions)
    limits = RetrievalLimits(k_dense=5)

    def nearest() -> list[str]:
        found = repo.read(lambda tx: repo.candidates(tx, scope, query, [], None, RecallFilters(), limits))
        return [h.memory.id for h in found.dense]

    before = nearest()
    near = np.asarray(query) + 0.05 * np.asarray(unit(rng, container.vector_dimensions))
    added = store(container, scope, "a memory written after the cache read the user", list(near / np.linalg.norm(near)))
    assert nearest()[0] == added  # caught up by sequence number
    assert cache.loads == 1
    container.memory_repository.forget(scope, added, confirm_locked=True)
    container.memory_repository.forget(scope, before[0], confirm_locked=True)
    after = nearest()
    assert after[:4] == before[1:] and added not in after and before[0] not in after
    plain = RecallRepository(container.store, container.vector_dimensions)
    scan = plain.read(lambda tx: plain.candidates(tx, scope, query, [], None, RecallFilters(), limits))
    assert after == [h.memory.id for h in scan.dense]


def test_an_erased_and_recreated_user_is_read_anew(container: Container, scope: Scope) -> None:
    first = fill(container, scope, 12, seed=7)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    cache.PAGE = 5  # full reads in pages of 5, each its own transaction
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    query = unit(np.random.default_rng(8), container.vector_dimensions)

    assert dense_ids(repo, scope, query) == set(first)
    container.erasure.forget_user(scope.tenant, scope.user_id, confirm=True)
    again = fill(container, scope, 12, seed=9)  # same count, sequence numbers start again at 1
    assert dense_ids(repo, scope, query) == set(again)
    assert cache.loads == 2


def test_a_narrow_filter_falls_back_to_the_neo4j_scan(container: Container, scope: Scope) -> None:
    fill(container, scope, 60, seed=10)
    rng = np.random.default_rng(11)
    query = unit(rng, container.vector_dimensions)
    # The one core memory points away from the query: the cache's best 4k and 32k hold no core memory.
    far = [-x for x in query]
    core = store(container, scope, "the only core memory", far, tier=Tier.CORE)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20)
    with_cache, without = both(container, cache, scope, query, [], RecallFilters(tiers=[Tier.CORE]),
                               RetrievalLimits(k_dense=1))
    same(with_cache, without)
    assert [h.memory.id for h in with_cache.dense] == [core]


def test_least_recently_used_users_leave_first() -> None:
    dims = 8
    rng = np.random.default_rng(0)
    users = {}
    for name in ("a", "b", "c"):
        user = CachedUser(None, 0, dims, capacity=100)
        user.append([f"{name}{i}" for i in range(100)], ["t"] * 100, rng.standard_normal((100, dims)))
        users[name] = user
    cache = VectorCache(dims, max_bytes=2 * users["a"].nbytes + 10)  # room for two users
    cache.put(("t", "a"), users["a"])
    cache.put(("t", "b"), users["b"])
    cache.put(("t", "a"), users["a"])  # used again: b is now the least recently used
    cache.put(("t", "c"), users["c"])
    assert cache.keys() == [("t", "a"), ("t", "c")]
    assert cache.nbytes <= cache.max_bytes


def test_rows_are_kept_once_and_unit_length() -> None:
    user = CachedUser(None, 0, 4, capacity=1)
    user.append(["x", "y"], ["X", "Y"], np.array([[3.0, 4.0, 0, 0], [0, 0, 0, 2.0]]))
    user.append(["y", "z"], ["Y", "Z"], np.array([[0, 0, 0, 2.0], [1.0, 0, 0, 0]]))
    ids, matrix = user.snapshot()
    assert ids == ["x", "y", "z"] and user.lowered == ["x", "y", "z"]
    assert [user.rows_of_key(text_key(t)) for t in ("x", "Y!", "z", "w")] == [[0], [1], [2], []]
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)
    assert np.allclose(matrix[0], [0.6, 0.8, 0, 0])


def test_a_long_catch_up_reads_the_user_anew(container: Container, scope: Scope) -> None:
    fill(container, scope, 10, seed=12)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    cache.CATCH_UP_MAX = 2
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    query = unit(np.random.default_rng(13), container.vector_dimensions)

    before = dense_ids(repo, scope, query)
    later = fill(container, scope, 3, seed=14)
    assert dense_ids(repo, scope, query) == before | set(later)
    assert cache.loads == 2  # 3 new memories > CATCH_UP_MAX: read anew, not caught up


def test_term_hits_count_each_term_once_per_row_as_a_scan_would() -> None:
    rng = np.random.default_rng(1)
    alphabet = ["ab", "ba", "火锅", "锅", "c", "abc", " "]
    texts = ["".join(rng.choice(alphabet, int(rng.integers(0, 6)))) for _ in range(300)]
    user = CachedUser(None, 0, 4, capacity=8)
    for lo in range(0, 300, 70):  # appended in parts: the pair index is extended after each
        chunk = texts[lo: lo + 70]
        user.append([f"m{lo + i}" for i in range(len(chunk))], chunk, rng.standard_normal((len(chunk), 4)))
        for terms in (["ab"], ["火锅", "c"], ["abc", "ab", "ab"], ["zz"], ["b c", "锅a"], [""]):
            expected = {i: h for i, t in enumerate(texts[: lo + len(chunk)])
                        if (h := sum(1 for term in terms if term and term in t.lower())) > 0}
            assert user.term_hits(terms) == expected


def test_expansion_takes_the_cosines_from_the_cache_as_neo4j_computes_them(container: Container,
                                                                           scope: Scope) -> None:
    from graph.associations import AssociationRepository
    from graph.related import TraversalParams

    ids = fill(container, scope, 12, seed=15)
    links = AssociationRepository(container.store)
    for a, b in pairwise(ids):
        links.associate(scope, a, b, 0.8, now=container.clock.now())
    query = unit(np.random.default_rng(16), container.vector_dimensions)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    results = []
    for repo in (RecallRepository(container.store, container.vector_dimensions, cache),
                 RecallRepository(container.store, container.vector_dimensions)):
        def work(tx: Tx, repo: RecallRepository = repo) -> list[Neighbour]:
            repo.candidates(tx, scope, query, [], None, RecallFilters(), RetrievalLimits(k_dense=3))
            return repo.expand(tx, scope, ids[:4], query, RecallFilters(),
                               ExpansionParams(min_strength=0.4, hop=TraversalParams(), per_seed=5))
        results.append(repo.read(work))
    cached, plain = results
    assert cache.peek(scope) is not None and len(cached) >= 4
    assert [(n.seed_id, n.memory.id, n.strength) for n in cached] == [(n.seed_id, n.memory.id, n.strength)
                                                                        for n in plain]
    assert [n.cosine for n in cached] == pytest.approx([n.cosine for n in plain], abs=1e-5)


def test_memories_written_in_one_statement_are_all_read_in_small_pages(container: Container, scope: Scope) -> None:
    from datetime import UTC, datetime

    from graph.bench_load import BenchLoader

    rng = np.random.default_rng(17)
    now = datetime.now(UTC)
    rows = [{"id": f"page-{scope.tenant}-{i}", "text": f"batch memory {i}", "created_at": now, "session_id": "s",
             "embedding": unit(rng, container.vector_dimensions)} for i in range(10)]
    BenchLoader(container.store).memories(scope, rows, now=now)  # one statement: the rows share a sequence number
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    cache.PAGE = 3
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    assert dense_ids(repo, scope, unit(rng, container.vector_dimensions)) == {r["id"] for r in rows}


def test_a_large_user_is_read_in_the_background_while_neo4j_answers(container: Container, scope: Scope,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """At background_min memories the first recall does not wait for the full read: it gets Neo4j's answer
    (the same candidates) while a thread reads the user; later recalls use the cache, caught up."""
    fill(container, scope, 40, seed=11)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store, background_min=30)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    plain = RecallRepository(container.store, container.vector_dimensions)
    query = unit(np.random.default_rng(12), container.vector_dimensions)
    limits = RetrievalLimits(k_dense=10, k_text=10)

    def candidates(r: RecallRepository) -> CandidateSet:
        return r.read(lambda tx: r.candidates(tx, scope, query, ["tea"], None, RecallFilters(), limits))

    held = threading.Event()
    read_all = cache._read_all

    def held_read(tx: Tx | None, scope: Scope, cached: CachedUser) -> None:
        assert held.wait(30)
        read_all(tx, scope, cached)

    monkeypatch.setattr(cache, "_read_all", held_read)
    first = candidates(repo)  # answered by Neo4j while the read is held back
    assert cache.loads == 0 and cache.peek(scope) is None
    same(first, candidates(plain))
    held.set()
    cache.wait_for_loads()
    assert cache.loads == 1 and (loaded := cache.peek(scope)) is not None and loaded.n == 40
    newer = store(container, scope, "tea " * 3, query)  # written after the read: caught up, not read anew
    second = candidates(repo)
    assert cache.loads == 1 and (caught_up := cache.peek(scope)) is not None and caught_up.n == 41
    assert second.dense[0].memory.id == newer
    same(second, candidates(plain))
    below = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store, background_min=42)
    candidates(RecallRepository(container.store, container.vector_dimensions, below))
    assert below.loads == 1 and below.peek(scope) is not None  # 41 < 42 memories: read at once, as before


def test_a_current_cache_answers_in_one_statement_and_a_stale_one_catches_up(container: Container,
                                                                             scope: Scope) -> None:
    """The rows are read with the user's state in one statement (recall/rows_checked) when the cache held
    the user as at the last recall; when memories came since, that state drives the catch-up instead."""
    fill(container, scope, 20, seed=21)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    query = unit(np.random.default_rng(22), container.vector_dimensions)
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        def nearest() -> list[str]:
            ran.clear()
            found = repo.read(lambda tx: repo.candidates(tx, scope, query, [], None, RecallFilters(),
                                                         RetrievalLimits(k_dense=5)))
            return [h.memory.id for h in found.dense]

        first = nearest()
        assert ran[0] == "recall/user_state" and "recall/rows_checked" not in ran  # nothing to guess from yet
        assert nearest() == first and ran == ["recall/rows_checked"]
        added = store(container, scope, "written since", query)
        assert nearest()[0] == added
        assert ran == ["recall/rows_checked", "recall/user_vectors", "recall/rows"]  # stale: caught up, read again
        assert nearest()[0] == added and ran == ["recall/rows_checked"]
    finally:
        container.store.timer.listeners.pop()


def test_the_likely_seeds_are_expanded_with_the_candidates(container: Container, scope: Scope) -> None:
    """With a current cache, the candidates' statement also reads the neighbours of the cache's best hits
    (recall/rows_checked): expanding from seeds among them runs no statement of its own and finds what the
    expansion statement finds; a seed outside them is read by recall/expand, the others still not."""
    from graph.associations import AssociationRepository
    from graph.related import TraversalParams

    ids = fill(container, scope, 16, seed=31)
    links = AssociationRepository(container.store)
    for a, b in pairwise(ids):
        links.associate(scope, a, b, 0.8, now=container.clock.now())
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    query = unit(np.random.default_rng(32), container.vector_dimensions)
    expansion = ExpansionParams(min_strength=0.4, hop=TraversalParams(), per_seed=5, prefetch_dense=4)
    limits = RetrievalLimits(k_dense=6)
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        def expanded(seeds: list[str] | None) -> tuple[list[str], list[tuple[str, str, float, float | None]]]:
            def work(tx: Tx) -> tuple[list[str], list[Neighbour]]:
                found = repo.candidates(tx, scope, query, [], None, RecallFilters(), limits, expansion)
                best = [h.memory.id for h in found.dense]
                ran.clear()
                return best, repo.expand(tx, scope, best[:4] if seeds is None else seeds, query, RecallFilters(),
                                         expansion, found.prefetched)
            best, neighbours = repo.read(work)
            return best, [(n.seed_id, n.memory.id, n.strength, n.cosine) for n in neighbours]

        best, _ = expanded([])  # reads the user into the cache: the next recalls guess from it
        best, ahead = expanded(None)
        assert ran == [] and len(ahead) >= 4  # every seed was read ahead
        plain = repo.read(lambda tx: repo.expand(tx, scope, best[:4], query, RecallFilters(), expansion))
        assert ahead == [(n.seed_id, n.memory.id, n.strength, n.cosine) for n in plain]
        outside = next(m for m in ids if m not in best[:4])
        _, mixed = expanded([best[0], outside, best[1]])
        assert ran == ["recall/expand"]
        plain = repo.read(lambda tx: repo.expand(tx, scope, [best[0], outside, best[1]], query, RecallFilters(),
                                                 expansion))
        assert mixed == [(n.seed_id, n.memory.id, n.strength, n.cosine) for n in plain]
        assert {seed for seed, *_ in mixed} == {best[0], outside, best[1]}
    finally:
        container.store.timer.listeners.pop()


def test_a_guess_counts_as_current_only_for_what_its_ranking_saw() -> None:
    """A catch-up by another recall between the ranking and the check must not pass the ranking off as
    current: it did not hold the memory caught up."""
    from graph.vector_cache import UserState

    cache = VectorCache(4, max_bytes=2**20)
    scope = Scope("t", "u")
    user = CachedUser("e1", 5, 4, capacity=16)
    user.append([f"m{i}" for i in range(5)], ["x"] * 5, np.eye(5, 4, dtype=np.float32) + 0.1)
    cache.put(("t", "u"), user)
    seen_by_ranking = user.ranked_as()
    user.append(["m5"], ["new"], np.ones((1, 4), dtype=np.float32))  # another thread catches up...
    user.seq = 6  # ...and moves the sequence
    now = UserState(mine=6, total=6, seq=6, epoch="e1")
    assert not cache.current(scope, user, now, seen_by_ranking)
    assert cache.current(scope, user, now, user.ranked_as())
    assert not cache.current(scope, user, UserState(mine=6, total=6, seq=6, epoch="e2"), user.ranked_as())


def test_a_large_users_guess_reads_its_full_text_candidates_in_the_same_statement(container: Container,
                                                                                 scope: Scope) -> None:
    """A user the full-text index answers (plan not exact): a current guess reads the state, the rows and
    the index's candidates in one statement, the same candidates as the separate read; a stale guess
    catches up, and the full-text candidates read with it stand (they were read in the same transaction)."""
    from ingest.scoring import lucene_query

    # Words no other test writes: the global index is asked for a bounded number of hits (at most 2000),
    # and a store holding many other users' "tea" would crowd this user's out.
    words = [f"{w}{uuid.uuid4().hex[:6]}" for w in ("tea", "hiking", "rain", "bread", "train")]
    fill(container, scope, 30, seed=31, words=words)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    query = unit(np.random.default_rng(32), container.vector_dimensions)
    terms = words[:2]
    limits = RetrievalLimits(k_dense=5, k_text=5, exact_max=-1, exact_per_candidate=0)  # the index path
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        def candidates() -> CandidateSet:
            ran.clear()
            return repo.read(lambda tx: repo.candidates(tx, scope, query, terms, lucene_query(terms),
                                                        RecallFilters(), limits))

        first = candidates()
        assert "recall/rows_checked" not in ran and "recall/candidates" in ran  # nothing to guess from yet
        assert first.text, "the full-text index found the fill's words"
        second = candidates()
        assert ran == ["recall/rows_checked"]
        same(second, first)  # the hits' cosines too: a guess takes them from the cache, the first read from Neo4j
        added = store(container, scope, f"{words[0]} {words[1]} {words[0]}", query)
        third = candidates()
        assert ran == ["recall/rows_checked", "recall/user_vectors", "recall/rows"]
        assert third.dense[0].memory.id == added and added in [h.memory.id for h in third.text]
        assert all(h.cosine is not None for h in third.text)  # the one caught up too
        fourth = candidates()
        assert ran == ["recall/rows_checked"]
        same(fourth, third)
    finally:
        container.store.timer.listeners.pop()


def test_query_cosines_after_an_append_are_those_of_a_fresh_computation() -> None:
    """QueryCosines keeps the cosines it computed and adds only appended rows': the same values, ids and
    rankings as computing every row anew."""
    from graph.vector_cache import QueryCosines, rank_dense

    rng = np.random.default_rng(5)
    user = CachedUser("e", 0, 8, capacity=4)
    user.append([f"m{i}" for i in range(6)], [f"text {i}" for i in range(6)],
                rng.standard_normal((6, 8)).astype(np.float32))
    embedding = [float(x) for x in rng.standard_normal(8)]
    kept = QueryCosines(user, embedding)
    assert rank_dense(kept, 3).ids == rank_dense(QueryCosines(user, embedding), 3).ids
    user.append([f"m{i}" for i in range(6, 20)], [f"text {i}" for i in range(6, 20)],
                rng.standard_normal((14, 8)).astype(np.float32))  # grows the matrix past its capacity
    values = kept.of_rows(range(20))
    fresh = QueryCosines(user, embedding).of_rows(range(20))
    assert values == pytest.approx(fresh, abs=1e-6)
    assert rank_dense(kept, 20).ids == rank_dense(QueryCosines(user, embedding), 20).ids


# ----- the projection of a large user (two-stage dense ranking) ------------------------------------------


def clustered(rng: np.random.Generator, n: int, dims: int, clusters: int) -> np.ndarray:
    """Unit rows around centres that share a mean component and vary mostly along a few directions, with a
    little noise in every dimension: the shape of sentence embeddings (a fast-decaying spectrum)."""
    shared = rng.standard_normal(dims)
    directions = rng.standard_normal((dims // 6, dims))
    centres = rng.standard_normal((clusters, dims // 6)) @ directions + 2.0 * shared
    rows = centres[rng.integers(0, clusters, n)] + 0.5 * rng.standard_normal((n, dims))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_a_projected_user_ranks_the_memories_that_matter_as_the_exact_scan_does() -> None:
    """20k rows of 64 dimensions on a 16-dimension projection: the shortlist (1000 rows, 5%) ranked by
    exact cosine holds the exact top 30 for queries near the memories, with the exact cosines."""
    from graph.vector_cache import QueryCosines, build_projection, rank_dense

    rng = np.random.default_rng(11)
    matrix = clustered(rng, 20_000, 64, 200)
    user = CachedUser("e", 0, 64, capacity=20_000)
    user.append([f"m{i}" for i in range(20_000)], [""] * 20_000, matrix)
    exact_user = CachedUser("e", 0, 64, capacity=20_000)
    exact_user.append([f"m{i}" for i in range(20_000)], [""] * 20_000, matrix)
    user.projection = build_projection(user.matrix[: user.n], dims=16)
    found = []
    for _ in range(40):
        query = [float(x) for x in matrix[rng.integers(0, 20_000)] + 0.3 * rng.standard_normal(64)]
        approx = rank_dense(QueryCosines(user, query), 30)
        exact = rank_dense(QueryCosines(exact_user, query), 30)
        found.append(len(set(approx.ids) & set(exact.ids)) / 30)
        for memory_id in approx.ids:  # the cosines reported are the exact ones
            assert approx.cosines[memory_id] == pytest.approx(float(exact_user.cosines([memory_id], query)[memory_id]),
                                                              abs=1e-5)
        assert approx.scores == sorted(approx.scores, reverse=True) and not approx.complete
    print(f"\ntop-30 overlap with the exact scan: mean {np.mean(found):.3f}, min {min(found):.3f}")
    assert np.mean(found) >= 0.98 and min(found) >= 0.9


@pytest.mark.parametrize(("rows", "width"), [(0, 16), (1, 4), (3, 8), (77, 100), (5001, 128), (40, 512)])
def test_int8_estimates_are_the_float_products_within_rounding(rows: int, width: int) -> None:
    """The projection's int8 rows (Estimates) give each row's product with a unit query within 0.01 of the
    float32 product, for widths the kernel does not take as they are (padded) and rows stored in two
    appends (the second growing the array)."""
    from graph.vector_cache import Estimates

    rng = np.random.default_rng(rows + width)
    matrix = rng.standard_normal((rows, width)).astype(np.float32)
    matrix[: rows // 3] *= 0.0 if rows > 3 else 1.0  # all-zero rows too
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    estimates = Estimates(matrix[: rows // 2])
    estimates.extend(matrix[rows // 2:], rows // 2)
    query = rng.standard_normal(width).astype(np.float32)
    query /= np.linalg.norm(query)
    got = estimates.products(query, rows)
    assert got.shape == (rows,)
    assert np.abs(got - matrix @ query).max(initial=0.0) <= 0.01
    assert estimates.products(query, rows // 2).shape == (rows // 2,)


def test_int8_estimates_without_torchs_kernel_are_computed_in_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A torch lacking the int8 kernel (it is private API) leaves the estimates to numpy, the same within
    rounding."""
    import graph.vector_cache as vector_cache

    def missing() -> object:
        raise AttributeError("no _weight_int8pack_mm")

    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((300, 40)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[7] + 0.1 * rng.standard_normal(40).astype(np.float32)
    estimates = vector_cache.Estimates(matrix)
    with_kernel = estimates.products(query, 300)
    monkeypatch.setattr(vector_cache, "_int8_kernel", missing)
    monkeypatch.setattr(vector_cache, "_KERNEL_MISSING", False)
    without = estimates.products(query, 300)
    assert vector_cache._KERNEL_MISSING
    assert np.abs(without - matrix @ query).max() <= 0.01 and np.abs(without - with_kernel).max() <= 0.01


def test_rows_appended_to_a_projected_user_are_ranked() -> None:
    """A row appended after the projection was built is projected on append, and one the basis represents
    worse than the rows it was computed from (a new topic) is an outlier: always scored exactly, so a query
    about it finds it; one appended after a query started is scored exactly by that query (the rows its
    projection did not hold)."""
    from graph.vector_cache import QueryCosines, build_projection, rank_dense

    rng = np.random.default_rng(12)
    matrix = clustered(rng, 5000, 32, 50)
    user = CachedUser("e", 0, 32, capacity=16)
    user.append([f"m{i}" for i in range(5000)], [""] * 5000, matrix)
    user.projection = build_projection(user.matrix[: user.n], dims=8)
    target = rng.standard_normal(32)
    started = QueryCosines(user, [float(x) for x in target])
    assert "late" not in rank_dense(started, 10).ids
    user.append(["late"], [""], np.asarray([target], dtype=np.float32))  # grows the matrix and the projection
    assert user.projection is not None and user.projection.m == user.n == 5001
    assert user.projection.outliers.tolist() == [5000]
    assert rank_dense(started, 10).ids[0] == "late"  # the row the query's projection lacks: exact
    fresh = rank_dense(QueryCosines(user, [float(x) for x in target]), 10)
    assert fresh.ids[0] == "late" and fresh.cosines["late"] == pytest.approx(1.0, abs=1e-5)


def test_a_cache_projects_a_user_past_its_threshold_and_recall_reads_the_same(container: Container,
                                                                               scope: Scope) -> None:
    """projection_min_rows wired through the cache: a user read whole with at least that many memories gets
    its projection at once, one catching up past it gets it in the background; either way the cached
    candidates are the Neo4j scan's (80 memories: the shortlist holds them all)."""
    fill(container, scope, 60, seed=21)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store,
                        projection_min_rows=70)
    limits = RetrievalLimits(k_dense=10, k_text=10)
    rng = np.random.default_rng(22)
    query = unit(rng, container.vector_dimensions)
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))
    cached = cache.peek(scope)
    assert cached is not None and cached.projection is None  # 60 rows: below the threshold
    fill(container, scope, 20, seed=23)
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))  # catches up past it
    cache.wait_for_loads()
    assert cached.projection is not None and cached.projection.m == cached.n == 80
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))

    fresh = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store,
                        projection_min_rows=70)
    same(*both(container, fresh, scope, query, ["tea"], RecallFilters(), limits))
    read_whole = fresh.peek(scope)
    assert read_whole is not None and read_whole.projection is not None  # built with the full read


def test_a_projection_left_behind_by_new_topics_is_computed_again(container: Container, scope: Scope) -> None:
    """Memories the basis represents badly (outliers, each scored exactly) past REBUILD_OUTLIER_SHARE of a
    user's rows make the cache compute the projection again, from all the rows; recall reads the same
    candidates as the Neo4j scan throughout."""
    from graph.vector_cache import REBUILD_OUTLIER_SHARE

    fill(container, scope, 80, seed=41)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store,
                        projection_min_rows=70)
    limits = RetrievalLimits(k_dense=10, k_text=10)
    query = unit(np.random.default_rng(42), container.vector_dimensions)
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))
    cached = cache.peek(scope)
    assert cached is not None and cached.projection is not None and cached.projection.m == 80
    first = cached.projection
    fill(container, scope, 3, seed=43)  # random directions: off a basis that spans the first 80 exactly
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))
    cache.wait_for_loads()
    assert cached.projection is first and first.outliers.shape[0] == 3 <= REBUILD_OUTLIER_SHARE * 83
    fill(container, scope, 3, seed=44)
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))  # 6 of 86: computed again
    cache.wait_for_loads()
    again = cached.projection
    assert again is not None and again is not first and again.m == cached.n == 86
    assert again.outliers.shape[0] == 0
    same(*both(container, cache, scope, query, ["tea"], RecallFilters(), limits))


class CountingTx(Tx):
    """The caller's transaction, noting how many ids each recall/rows statement was asked for."""

    def __init__(self, inner: Tx, asked: list[int]) -> None:
        super().__init__(inner._tx, inner._timer)
        self.asked = asked

    def run(self, name: str, params: dict[str, Any] | None = None, **splices: object) -> list[Row]:
        if name == "recall/rows":
            self.asked.append(len((params or {})["ids"]))
        return super().run(name, params, **splices)


def test_a_ranking_short_of_k_after_the_first_round_reads_what_its_pass_rate_says_not_32k(
        container: Container, scope: Scope) -> None:
    """A user with a history: memories a filter leaves out rank among the best (as superseded memories rank
    beside those that replaced them). The second round reads about twice the shortfall over the pass rate,
    not the next 32k rows (a 10k user's 960 rows cost 50-140 ms a question), and finds what the scan finds."""
    rng = np.random.default_rng(31)
    query = unit(rng, container.vector_dimensions)
    near = np.asarray(query)
    for i in range(40):  # every third of the nearest is MID: the TEMP filter leaves it out
        v = near + 0.3 * np.asarray(unit(rng, container.vector_dimensions))
        store(container, scope, f"near {i}", list(v / np.linalg.norm(v)), tier=Tier.MID if i % 3 == 0 else Tier.TEMP)
    fill(container, scope, 200, seed=32)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    plain = RecallRepository(container.store, container.vector_dimensions)
    filters, limits = RecallFilters(tiers=[Tier.TEMP]), RetrievalLimits(k_dense=20)
    asked: list[int] = []
    with_cache = repo.read(lambda tx: repo.candidates(CountingTx(tx, asked), scope, query, [], None, filters, limits))
    without = plain.read(lambda tx: plain.candidates(tx, scope, query, [], None, filters, limits))
    same(with_cache, without)
    assert len(with_cache.dense) == 20
    assert asked[0] == 25 and len(asked) == 2  # the best k + k/4, then one more round
    assert asked[1] <= 20  # ~17 of 25 passed (3 short at a pass rate of ~2/3): ~9 more, not the next 215


class CheckedTx(Tx):
    """The caller's transaction, keeping what recall/rows_checked answered and the names of all it ran."""

    def __init__(self, inner: Tx, answers: list[Row], ran: list[str]) -> None:
        super().__init__(inner._tx, inner._timer)
        self.answers, self.ran = answers, ran

    def run(self, name: str, params: dict[str, Any] | None = None, **splices: object) -> list[Row]:
        rows = super().run(name, params, **splices)
        self.ran.append(name)
        if name == "recall/rows_checked":
            self.answers.extend(rows)
        return rows


@pytest.mark.parametrize(("filters", "reserved", "second_rounds"), [
    (RecallFilters(), False, 0),  # the batch holds k: the reserve is not read
    (RecallFilters(tiers=[Tier.TEMP]), True, 0),  # about 2/3 pass: the reserve covers the batch's shortfall
    (RecallFilters(types=[MemoryType.SEMANTIC]), True, 1),  # about 1/2 pass: short even with it, one more round
], ids=["full", "reserve-covers", "reserve-short"])
def test_a_short_first_batch_reads_its_reserve_in_the_same_statement(
        container: Container, scope: Scope, filters: RecallFilters, reserved: bool, second_rounds: int) -> None:
    """With a current cache, a ranking whose first batch (k + k/4) comes back short of k reads the next ids of
    its ranking (the reserve) in recall/rows_checked itself, and only then: no second round trip when the
    reserve covers the shortfall, one recall/rows round when it does not; either way what the scan finds."""
    rng = np.random.default_rng(35)
    query = unit(rng, container.vector_dimensions)
    near = np.asarray(query)
    for i in range(60):  # ranked by closeness; every third is MID, every second FACTUAL
        v = near + (0.1 + 0.02 * i) * np.asarray(unit(rng, container.vector_dimensions))
        store(container, scope, f"near {i}", list(v / np.linalg.norm(v)), tier=Tier.MID if i % 3 == 0 else Tier.TEMP,
              type=MemoryType.FACTUAL if i % 2 == 0 else MemoryType.SEMANTIC)
    fill(container, scope, 60, seed=36)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    plain = RecallRepository(container.store, container.vector_dimensions)
    limits = RetrievalLimits(k_dense=20)
    repo.read(lambda tx: repo.candidates(tx, scope, query, [], None, filters, limits))  # the cache reads the user
    answers: list[Row] = []
    ran: list[str] = []
    with_cache = repo.read(lambda tx: repo.candidates(CheckedTx(tx, answers, ran), scope, query, [], None, filters,
                                                      limits))
    without = plain.read(lambda tx: plain.candidates(tx, scope, query, [], None, filters, limits))
    same(with_cache, without)
    assert len(with_cache.dense) == 20
    assert ran == ["recall/rows_checked"] + ["recall/rows"] * second_rounds
    [answer] = answers
    assert answer["reserved"] == [reserved]
    # The reserve: places 26-35 of the unfiltered ranking (the scan's), those passing the filters when read.
    ranking = plain.read(lambda tx: plain.candidates(tx, scope, query, [], None, RecallFilters(),
                                                     RetrievalLimits(k_dense=35)))
    passing = {h.memory.id for h in without.dense} | {h.memory.id for h in plain.read(
        lambda tx: plain.candidates(tx, scope, query, [], None, filters, RetrievalLimits(k_dense=35))).dense}
    expected = {h.memory.id for h in ranking.dense[25:35] if h.memory.id in passing} if reserved else set()
    assert {r["id"] for r in answer["reserve_rows"]} == expected


def test_the_seeds_read_ahead_are_the_best_that_pass_the_filters(container: Container, scope: Scope) -> None:
    """The memories a filter leaves out (a user's superseded ones, here the MID ones with a TEMP filter) do not
    take the places of the seeds read ahead: the best four that pass are expanded in the candidates'
    statement, though the cache ranks four that do not above them, and no statement of its own expands them."""
    from graph.associations import AssociationRepository
    from graph.related import TraversalParams

    rng = np.random.default_rng(41)
    query = unit(rng, container.vector_dimensions)
    near = np.asarray(query)
    ids = []
    for i in range(12):  # ranked by closeness: the first four are MID, the TEMP filter leaves them out
        v = near + (0.1 + 0.05 * i) * np.asarray(unit(rng, container.vector_dimensions))
        ids.append(store(container, scope, f"near {i}", list(v / np.linalg.norm(v)),
                         tier=Tier.MID if i < 4 else Tier.TEMP))
    fill(container, scope, 30, seed=42)
    links = AssociationRepository(container.store)
    for a, b in pairwise(ids):
        links.associate(scope, a, b, 0.8, now=container.clock.now())
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    filters = RecallFilters(tiers=[Tier.TEMP])
    expansion = ExpansionParams(min_strength=0.4, hop=TraversalParams(), per_seed=5, prefetch_dense=4)
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        def expanded() -> tuple[list[str], list[tuple[str, str, float, float | None]]]:
            def work(tx: Tx) -> tuple[list[str], list[Neighbour]]:
                found = repo.candidates(tx, scope, query, [], None, filters, RetrievalLimits(k_dense=6), expansion)
                best = [h.memory.id for h in found.dense]
                ran.clear()
                return best, repo.expand(tx, scope, best[:4], query, filters, expansion, found.prefetched)
            best, neighbours = repo.read(work)
            return best, [(n.seed_id, n.memory.id, n.strength, n.cosine) for n in neighbours]

        expanded()  # reads the user into the cache: the next recall guesses from it
        best, ahead = expanded()
        assert best[:4] == ids[4:8]
        assert ran == []  # every seed was read ahead
        plain = repo.read(lambda tx: repo.expand(tx, scope, best[:4], query, filters, expansion))
        assert ahead == [(n.seed_id, n.memory.id, n.strength, n.cosine) for n in plain] and ahead
    finally:
        container.store.timer.listeners.pop()


# ----- erased users: other workers, and reads racing the erasure (review data.md #4) -------------------


def test_a_user_erased_through_another_worker_leaves_this_workers_cache_at_its_next_recall(
        container: Container, scope: Scope) -> None:
    """Two workers on one store: the one that did not serve forgetUser drops the user's texts and embeddings
    as soon as its next recall finds the user without memories (not at LRU eviction)."""
    fill(container, scope, 12, seed=31)
    other = Container(container.settings)  # another worker: its own cache, no erasure hook run in it
    try:
        cache = other.vector_cache
        repo = RecallRepository(other.store, other.vector_dimensions, cache)
        query = unit(np.random.default_rng(32), container.vector_dimensions)
        assert len(dense_ids(repo, scope, query)) == 12
        assert len(dense_ids(repo, scope, query)) == 12  # answered by the guess (recall/rows_checked)
        assert cache.peek(scope) is not None
        container.erasure.forget_user(scope.tenant, scope.user_id, confirm=True)
        assert cache.peek(scope) is not None  # nothing told this worker
        assert dense_ids(repo, scope, query) == set()
        assert cache.peek(scope) is None
    finally:
        other.close()


def test_a_user_found_without_memories_or_in_another_epoch_is_dropped(container: Container, scope: Scope) -> None:
    fill(container, scope, 5, seed=33)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    state = container.store.read_tx(lambda tx: user_state(tx, scope))
    cached = container.store.read_tx(lambda tx: cache.user(tx, scope, state))
    assert cached is not None and cache.peek(scope) is cached
    empty = UserState(mine=0, total=state.total, seq=0, epoch=None)
    assert container.store.read_tx(lambda tx: cache.user(tx, scope, empty)) is None
    assert cache.peek(scope) is None and cached.erased
    cache.put((scope.tenant, scope.user_id), cached)  # a put after the drop keeps nothing
    assert cache.peek(scope) is None
    again = container.store.read_tx(lambda tx: cache.user(tx, scope, state))
    assert again is not None and again is not cached
    other = UserState(mine=state.mine, total=state.total, seq=state.seq, epoch="another epoch")
    assert not cache.current(scope, again, other, again.ranked_as())
    assert cache.peek(scope) is None


def test_a_background_read_that_ends_after_the_erasure_keeps_nothing(container: Container, scope: Scope,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A load that read the rows before forgetUser committed and puts them after the erasure hook ran."""
    fill(container, scope, 40, seed=34)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store, background_min=30)
    repo = RecallRepository(container.store, container.vector_dimensions, cache)
    query = unit(np.random.default_rng(35), container.vector_dimensions)
    read, erased = threading.Event(), threading.Event()
    read_all = cache._read_all

    def read_then_wait(tx: Tx | None, scope: Scope, cached: CachedUser) -> None:
        read_all(tx, scope, cached)
        assert cached.n == 40
        read.set()
        assert erased.wait(30)

    monkeypatch.setattr(cache, "_read_all", read_then_wait)
    assert len(dense_ids(repo, scope, query)) == 40  # Neo4j answers; the cache reads in the background
    assert read.wait(30)
    container.erasure.forget_user(scope.tenant, scope.user_id, confirm=True)
    cache.forget(scope)  # the erasure hook, as the container wires it
    erased.set()
    cache.wait_for_loads()
    assert cache.loads == 1 and cache.peek(scope) is None


def test_an_inline_read_that_ends_after_the_erasure_keeps_nothing(container: Container, scope: Scope,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fill(container, scope, 10, seed=36)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20, store=container.store)
    read_all = cache._read_all

    def read_then_erase(tx: Tx | None, scope: Scope, cached: CachedUser) -> None:
        read_all(tx, scope, cached)
        assert cached.n == 10
        container.erasure.forget_user(scope.tenant, scope.user_id, confirm=True)
        cache.forget(scope)

    monkeypatch.setattr(cache, "_read_all", read_then_erase)
    state = container.store.read_tx(lambda tx: user_state(tx, scope))
    assert container.store.read_tx(lambda tx: cache.user(tx, scope, state)) is None  # the erased rows not used
    assert cache.peek(scope) is None


def test_a_memory_the_user_forgets_leaves_no_copy_in_the_recall_cache(container: Container, scope: Scope) -> None:
    """The cache holds every cached memory's text; a deleted row was harmless to ranking (never read back) but its
    text stayed in the process until the user was read anew. forget (and forgetSession, through it) drops the
    user's entry, so nothing of the forgotten memory is left here, and the next recall reads the user anew."""
    from bmam.usecases.recall import RecallRequest

    fill(container, scope, 12, seed=11)
    pin = unit(np.random.default_rng(12), container.vector_dimensions)
    secret = store(container, scope, "my bank pin is 4921", pin)
    container.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query="bank pin"))
    cached = container.vector_cache.peek(scope)
    assert cached is not None and "my bank pin is 4921" in cached.lowered[:cached.n]

    container.memories.forget(scope.tenant, scope.user_id, secret)
    assert container.vector_cache.peek(scope) is None
    container.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query="bank pin"))
    again = container.vector_cache.peek(scope)
    assert again is not None and again.n == 12 and "my bank pin is 4921" not in again.lowered[:again.n]
