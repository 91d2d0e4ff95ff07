"""Ingest's and conflict detection's exact scans over the in-process vector cache (graph/cached_scans.py)
against the real Neo4j: repetition (similar memories), engagement (temp topics) and negation candidates
(conflict screening) answer exactly what the Neo4j scans answer, superseded, deleted, mid and locked
memories, same-text matches, ties and limits included; and a cache of 0 bytes leaves Neo4j scanning."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bmam.container import Container
from graph.conflicts import ConflictKind, ConflictRepository, ConflictStrategy, Screening, ScreenItem
from graph.episodes import EpisodeRepository, TurnMatches
from graph.ids import new_memory_id
from graph.model import MemoryType, NewMemory, Scope, Tier
from graph.vector_cache import VectorCache
from ingest.turns import TurnInput

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
TEXTS = ["I live in Berlin", "My sister's name is Anna", "I work at Siemens as an engineer", "I love sushi",
         "Anna visited me in Berlin last summer", "我住在成都，最喜欢吃火锅", "I live in London now",
         "I don't love sushi", "我住在北京", "记住：我对花生过敏", "I play the piano every day"]


def unit(v: np.ndarray) -> list[float]:
    return [float(x) for x in v / np.linalg.norm(v)]


def near(base: Sequence[float], cosine: float, rng: np.random.Generator) -> list[float]:
    """A unit vector at about the given cosine to base."""
    b = np.asarray(base, dtype=np.float64)
    noise = rng.standard_normal(len(b))
    noise -= noise.dot(b) * b
    noise /= np.linalg.norm(noise)
    return unit(cosine * b + np.sqrt(max(0.0, 1.0 - cosine**2)) * noise)


def remember(c: Container, scope: Scope, text: str, embedding: list[float], tier: Tier = Tier.TEMP) -> str:
    new = NewMemory(id=new_memory_id(), text=text, type=MemoryType.FACTUAL, embedding=embedding, tier=tier)
    return c.memory_repository.remember(scope, new, now=c.clock.now(), passive=0.2, active=0.5).memory.id


def supersede(c: Container, scope: Scope, winner: str, loser: str) -> None:
    repo = ConflictRepository(c.store)
    recorded = repo.record(scope, new_id=winner, old_id=loser, kind=ConflictKind.NEGATION,
                           strategy=ConflictStrategy.LATEST, reason="test", now=c.clock.now())
    assert recorded is not None
    policy = c.weight_policy
    settled = repo.resolve(scope, recorded[0], choose=lambda new, old: winner, params=policy.cypher_params(),
                           winner_bonus=policy.winner_bonus, loser_penalty=policy.loser_penalty,
                           resolved_by="test", now=c.clock.now())
    assert settled is not None and settled.loser_id == loser


def build(c: Container, scope: Scope) -> tuple[dict[str, list[float]], list[list[float]], dict[str, str]]:
    """A user with ingested memories (triples, settled conflicts, repeats) and crafted ones: a cluster of
    near-duplicates around one vector (some superseded, one mid, one deleted), exact ties, and memories
    whose text differs from a turn's only by case and spacing. Returns the ingested texts' embeddings,
    the cluster centres and the crafted ids by name."""
    c.ingest.ingest_indexed(scope.tenant, [
        TurnInput(user_id=scope.user_id, session_id="s1", speaker="user", text=t, turn=i,
                  at=T0 + timedelta(minutes=i)) for i, t in enumerate(TEXTS)])
    rng = np.random.default_rng(12)
    vectors = c.embedder.embed_passages(TEXTS)
    embedded = {t: [float(x) for x in v] for t, v in zip(TEXTS, vectors, strict=True)}
    dims = c.vector_dimensions
    centre = unit(rng.standard_normal(dims))
    other = unit(rng.standard_normal(dims))
    ids: dict[str, str] = {}
    for k, cos in enumerate((0.99, 0.985, 0.98, 0.975, 0.97, 0.96, 0.7, 0.55, 0.3)):
        tier = Tier.MID if k == 2 else Tier.TEMP
        ids[f"c{k}"] = remember(c, scope, f"cluster note {k}", near(centre, cos, rng), tier=tier)
    tie = near(other, 0.95, rng)
    ids["tie_a"] = remember(c, scope, "tie a", tie)
    ids["tie_b"] = remember(c, scope, "tie b", tie)
    ids["spaced"] = remember(c, scope, "\u3000  My Favourite Tea Is Oolong \t", unit(rng.standard_normal(dims)))
    ids["nbsp"] = remember(c, scope, "\u00a0my favourite tea is oolong", unit(rng.standard_normal(dims)))
    supersede(c, scope, ids["c3"], ids["c0"])  # the closest one is no longer live
    supersede(c, scope, ids["c4"], ids["c7"])  # a superseded temp memory: history, no topic to pick up
    return embedded, [centre, other], ids


def candidates(embedded: dict[str, list[float]], centres: list[list[float]],
               rng: np.random.Generator) -> list[tuple[int, str, list[float]]]:
    dims = len(centres[0])
    out: list[tuple[int, str, list[float]]] = [
        (0, "I work at Siemens as an engineer", embedded["I work at Siemens as an engineer"]),
        (1, "  my SISTER'S name is anna ", near(embedded["My sister's name is Anna"], 0.6, rng)),  # same text
        (2, "a turn near the cluster", near(centres[0], 0.999, rng)),
        (3, "a turn near the ties", centres[1]),
        (4, "my favourite tea is oolong", unit(rng.standard_normal(dims))),
        (5, "something else entirely", unit(rng.standard_normal(dims))),
        (6, "我住在北京", near(embedded["我住在北京"], 0.95, rng)),
        (7, "engaging the cluster", centres[0]),
    ]
    return out


def same_matches(a: TurnMatches, b: TurnMatches) -> None:
    assert [(s.candidate, s.id, s.text, s.tier, s.locked, s.mention_count) for s in a.similar] == \
        [(s.candidate, s.id, s.text, s.tier, s.locked, s.mention_count) for s in b.similar]
    assert [sorted(s.triples) for s in a.similar] == [sorted(s.triples) for s in b.similar]
    assert [s.cosine for s in a.similar] == pytest.approx([s.cosine for s in b.similar], abs=1e-5)
    assert [(i, m) for i, m, _ in a.topics] == [(i, m) for i, m, _ in b.topics]
    assert [x for _, _, x in a.topics] == pytest.approx([x for _, _, x in b.topics], abs=1e-5)


def both_matches(c: Container, scope: Scope, cache: VectorCache, cands: list[tuple[int, str, list[float]]],
                 k: int = 3) -> tuple[TurnMatches, TurnMatches]:
    cached = EpisodeRepository(c.store, c.vector_dimensions, cache)
    plain = EpisodeRepository(c.store, c.vector_dimensions)
    settings = c.settings.ingest

    def ask(repo: EpisodeRepository) -> TurnMatches:
        return c.store.read_tx(lambda tx: repo.matches(
            tx, scope, cands, duplicate=settings.duplicate_similarity, engagement=settings.engagement_similarity,
            k=k, exact_max=20_000))

    return ask(cached), ask(plain)


def test_repetition_and_engagement_from_the_cache_are_the_neo4j_scans(container: Container, scope: Scope) -> None:
    embedded, centres, ids = build(container, scope)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20)
    cands = candidates(embedded, centres, np.random.default_rng(13))
    for k in (3, 1, 10):
        with_cache, without = both_matches(container, scope, cache, cands, k=k)
        same_matches(with_cache, without)
    with_cache, _ = both_matches(container, scope, cache, cands, k=3)
    by_candidate: dict[int, list[str]] = {}
    for s in with_cache.similar:
        by_candidate.setdefault(s.candidate, []).append(s.id)
    assert by_candidate[2] == [ids["c1"], ids["c2"], ids["c3"]]  # c0 is superseded; at most k, best first
    assert by_candidate[3] == sorted([ids["tie_a"], ids["tie_b"]])  # equal scores by id
    # the same text key (graph/text_key.py): case and spaces, ideographic and non-breaking ones too, set aside
    assert sorted(by_candidate[4]) == sorted([ids["spaced"], ids["nbsp"]])
    assert len(by_candidate[0]) == 1 and len(by_candidate[1]) == 1 and by_candidate[6]
    assert 5 not in by_candidate
    topics = [m for i, m, _ in with_cache.topics if i == 7]
    assert ids["c7"] not in topics and ids["c0"] not in topics  # superseded: history is not picked up
    assert ids["c2"] not in topics and ids["c8"] not in topics  # mid; too far
    assert cache.loads == 1

    # a memory deleted since the cache read the user is not found; one written since is
    container.memory_repository.forget(scope, ids["c1"], confirm_locked=True)
    added = remember(container, scope, "written after the cache read the user", near(centres[0], 0.9999,
                                                                                    np.random.default_rng(14)))
    with_cache, without = both_matches(container, scope, cache, cands)
    same_matches(with_cache, without)
    assert [s.id for s in with_cache.similar if s.candidate == 2][:1] == [added]
    assert ids["c1"] not in {s.id for s in with_cache.similar}
    assert cache.loads == 1


def test_an_unknown_user_and_no_candidates_find_nothing(container: Container, scope: Scope) -> None:
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20)
    cands = [(0, "hello", unit(np.random.default_rng(1).standard_normal(container.vector_dimensions)))]
    with_cache, without = both_matches(container, scope, cache, cands)
    assert with_cache == without == TurnMatches(similar=[], topics=[])
    assert both_matches(container, scope, cache, [])[0] == TurnMatches(similar=[], topics=[])


def same_screening(a: dict[str, Screening], b: dict[str, Screening]) -> None:
    assert a.keys() == b.keys()
    for mid in a:
        x, y = a[mid], b[mid]
        assert (x.exists, x.live, x.text, x.facts) == (y.exists, y.live, y.text, y.facts)
        assert [s.memory_id for s in x.similar] == [s.memory_id for s in y.similar]
        assert [s.text for s in x.similar] == [s.text for s in y.similar]
        assert [s.cosine for s in x.similar] == pytest.approx([s.cosine for s in y.similar], abs=1e-5)


def test_conflict_screening_from_the_cache_is_the_neo4j_scan(container: Container, scope: Scope) -> None:
    embedded, centres, ids = build(container, scope)
    rng = np.random.default_rng(15)
    cache = VectorCache(container.vector_dimensions, max_bytes=64 * 2**20)
    cached = ConflictRepository(container.store, cache)
    plain = ConflictRepository(container.store)
    page = container.memory_repository.page(scope, limit=100, include_history=True)
    by_text = {m.text: m.id for m in page.items}
    items = [
        ScreenItem(memory_id=ids["c3"], subjects=[], predicates=[], embedding=near(centres[0], 0.98, rng)),
        ScreenItem(memory_id=ids["c0"], subjects=[], predicates=[], embedding=centres[0]),  # superseded itself
        ScreenItem(memory_id=ids["tie_a"], subjects=[], predicates=[], embedding=centres[1]),
        ScreenItem(memory_id=by_text["I live in London now"], subjects=["user"], predicates=["lives_in"],
                   embedding=embedded["I live in London now"]),
        ScreenItem(memory_id=by_text["I don't love sushi"], subjects=["user"], predicates=["likes", "eats"],
                   embedding=embedded["I don't love sushi"]),
        ScreenItem(memory_id="m-missing", subjects=[], predicates=[], embedding=centres[0]),
        ScreenItem(memory_id=ids["c5"], subjects=[], predicates=[], embedding=[]),  # no embedding: no similar
    ]
    for threshold, limit in ((0.75, 20), (0.5, 2), (0.95, 1)):
        with_cache = cached.screen(scope, items, threshold=threshold, similar_limit=limit)
        without = plain.screen(scope, items, threshold=threshold, similar_limit=limit)
        same_screening(with_cache, without)
    found = cached.screen(scope, items, threshold=0.75, similar_limit=20)
    assert ids["c0"] not in [s.memory_id for s in found[ids["c3"]].similar]  # not live
    assert ids["c3"] not in [s.memory_id for s in found[ids["c3"]].similar]  # not itself
    assert [s.memory_id for s in found[ids["tie_a"]].similar][:1] == [ids["tie_b"]]
    assert not found["m-missing"].exists and found[ids["c0"]].exists and not found[ids["c0"]].live
    assert found[ids["c5"]].similar == []
    assert cache.loads == 1


def test_a_cache_of_zero_bytes_leaves_neo4j_scanning(container: Container, scope: Scope) -> None:
    embedded, centres, _ = build(container, scope)
    off = VectorCache(container.vector_dimensions, max_bytes=0)
    cands = candidates(embedded, centres, np.random.default_rng(16))
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _: ran.append(name))
    try:
        with_off, without = both_matches(container, scope, off, cands)
        screened = ConflictRepository(container.store, off).screen(
            scope, [ScreenItem(memory_id="m-x", subjects=[], predicates=[], embedding=centres[0])], threshold=0.5)
    finally:
        container.store.timer.listeners.pop()
    same_matches(with_off, without)
    assert with_off.similar and screened["m-x"].similar
    assert "episode/cached_rows" not in ran and "recall/user_state" not in ran
    assert ran.count("episode/similar_memories") == 2 and "conflict/similar_many" in ran
    assert off.keys() == [] and off.loads == 0
