"""The text key (graph/text_key.py): what makes two memories say the same text. Pure rules alone; then, against
the real Neo4j, that a turn repeating a stored memory's text with other case, spacing or end punctuation is
a mention of it whichever way the repeat check runs (the vector cache, Neo4j's exact scan, the vector index
with the key's seek), across requests as within one; that the data step gives keys to memories written
before them; and that an import and an undo key what they re-create."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bmam.container import Container
from graph.episodes import EpisodeRepository
from graph.ids import new_memory_id
from graph.migrations import give_text_keys
from graph.model import MemoryType, NewMemory, Scope, Tier
from graph.text_key import normalized_text, text_key
from graph.vector_cache import VectorCache
from ingest.turns import TurnInput
from tests.ops_support import Inspector, store_rows

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("a", "b"), [
    ("I am a nurse", "I AM A NURSE!"),
    ("I love  Spicy food!", "i love spicy food"),
    ("我住在成都。", "我住在成都"),
    ("\u3000my favourite tea is oolong\t", "My Favourite Tea Is Oolong..."),
    ("\u00a0ｃａｆé au lait", "café au lait"),  # NFKC: full-width letters and the non-breaking space
])
def test_texts_that_say_the_same_share_a_key(a: str, b: str) -> None:
    assert normalized_text(a) == normalized_text(b)
    assert text_key(a) == text_key(b)


@pytest.mark.parametrize(("a", "b"), [
    ("I am a nurse", "I am not a nurse"),
    ("I am a nurse", "Am I a nurse?"),  # only trailing punctuation goes, and word order stays
    ("我住在成都", "我住在北京"),
    ("don't", "dont"),
])
def test_texts_that_differ_have_different_keys(a: str, b: str) -> None:
    assert text_key(a) != text_key(b)


def test_a_key_has_a_fixed_size_whatever_the_text() -> None:
    # the range index on (tenant, user_id, text_key) refuses values over ~8 KB: a 32 KB turn must still key
    for text in ("", "x", "记" * 32_000):
        key = text_key(text)
        assert len(key) == 32 and set(key) <= set("0123456789abcdef")


def _remember(c: Container, scope: Scope, text: str, embedding: list[float]) -> str:
    new = NewMemory(id=new_memory_id(), text=text, type=MemoryType.FACTUAL, embedding=embedding, tier=Tier.TEMP)
    return c.memory_repository.remember(scope, new, now=c.clock.now(), passive=0.2, active=0.5).memory.id


def _unit(rng: np.random.Generator, dims: int) -> list[float]:
    v = rng.standard_normal(dims)
    return [float(x) for x in v / np.linalg.norm(v)]


def _same_text_hits(c: Container, scope: Scope, repo: EpisodeRepository, text: str, embedding: list[float],
                    *, exact_max: int) -> list[str]:
    settings = c.settings.ingest
    found = c.store.read_tx(lambda tx: repo.matches(
        tx, scope, [(0, text, embedding)], duplicate=settings.duplicate_similarity,
        engagement=settings.engagement_similarity, k=3, exact_max=exact_max))
    return [s.id for s in found.similar]


def test_every_repeat_check_finds_the_same_text_whatever_the_vectors(container: Container, scope: Scope) -> None:
    """Stored memory and turn with unrelated embeddings (so only the text can match): the cache, the exact
    scan and the indexed path all find it, and none finds a different text."""
    rng = np.random.default_rng(5)
    dims = container.vector_dimensions
    nurse = _remember(container, scope, "I am a nurse", _unit(rng, dims))
    _remember(container, scope, "I am not a nurse", _unit(rng, dims))
    cached = EpisodeRepository(container.store, dims, VectorCache(dims, max_bytes=16 * 2**20))
    plain = EpisodeRepository(container.store, dims)
    turn = _unit(rng, dims)
    for repo, exact_max in ((cached, 20_000), (plain, 20_000), (plain, 0)):
        assert _same_text_hits(container, scope, repo, "  I AM A NURSE! ", turn, exact_max=exact_max) == [nurse]
        assert _same_text_hits(container, scope, repo, "I was a nurse", turn, exact_max=exact_max) == []


def _memories(c: Container, scope: Scope) -> list[dict[str, object]]:
    return store_rows(c, "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u "
                         "RETURN m.text AS text, m.mention_count AS mentions, m.text_key AS key ORDER BY m.created_at",
                      t=scope.tenant, u=scope.user_id)


def test_a_repeat_in_a_later_request_is_a_mention_as_within_one(container: Container, scope: Scope) -> None:
    def turn(text: str, i: int, session: str = "s1") -> TurnInput:
        return TurnInput(user_id=scope.user_id, session_id=session, speaker="user", text=text, turn=i,
                         at=T0 + timedelta(minutes=i))

    container.ingest.ingest_indexed(scope.tenant, [turn("I am a nurse", 0)])
    report = container.ingest.ingest_indexed(scope.tenant, [turn("I AM A NURSE!", 1)])
    assert report.turns[0].remembered and not report.turns[0].memories
    assert [m.text for m in report.turns[0].mentioned] == ["I am a nurse"]
    assert _memories(container, scope) == [{"text": "I am a nurse", "mentions": 2, "key": text_key("I am a nurse")}]


def test_the_data_step_keys_memories_written_before_keys(container: Container, tenant: str) -> None:
    rng = np.random.default_rng(6)
    dims = container.vector_dimensions
    alice, bob = Scope(tenant, "alice"), Scope(tenant, "bob")
    texts = {alice: ["Alice keeps bees", "记住：我对花生过敏"], bob: ["Bob sells honey."]}
    for scope, said in texts.items():
        for text in said:
            _remember(container, scope, text, _unit(rng, dims))
    config = container.store.config
    inspector = Inspector(config.uri, config.user, config.password)
    try:
        inspector.forget_text_keys(tenant)
        keys = "MATCH (m:Memory) WHERE m.tenant = $t RETURN m.text AS text, m.text_key AS key"
        assert {r["key"] for r in inspector.rows(keys, t=tenant)} == {None}
        assert give_text_keys(container.store, page=1000) >= 3  # (the whole store, a page at a time)
        assert {(r["text"], r["key"]) for r in inspector.rows(keys, t=tenant)} == {
            (t, text_key(t)) for said in texts.values() for t in said}
        assert give_text_keys(container.store) == 0  # nothing left to key
    finally:
        inspector.close()
    plain = EpisodeRepository(container.store, dims)
    assert len(_same_text_hits(container, bob, plain, "bob sells honey", _unit(rng, dims), exact_max=0)) == 1


def test_an_import_keys_the_memories_it_creates(container: Container, tenant: str) -> None:
    source, target = Scope(tenant, "alice"), Scope(tenant, "carol")
    container.ingest.ingest_indexed(tenant, [TurnInput(
        user_id=source.user_id, session_id="s1", speaker="user", text="My sister's name is Anna", turn=0, at=T0)])
    data = container.export.export_rdf_text(tenant, source.user_id, "turtle")
    assert "text_key" not in data  # bookkeeping: made anew on import, never exported
    container.export.import_rdf(tenant, target.user_id, data.encode(), "turtle", source_user=source.user_id)
    assert [(m["text"], m["key"]) for m in _memories(container, target)] == [
        ("My sister's name is Anna", text_key("My sister's name is Anna"))]
