"""The cache of checked documents (resolvers/documents.py): a valid text is parsed and validated once; a
refused text is refused every time, with the same code, and never kept."""

from __future__ import annotations

from graphql import get_introspection_query

from resolvers.documents import DocumentCache
from resolvers.schema import build_schema


def _codes(result: object) -> list[str]:
    return [str((e.extensions or {}).get("code")) for e in getattr(result, "errors", None) or []]


def test_a_valid_text_is_kept_and_answered_from_the_kept_document() -> None:
    cache = DocumentCache()
    schema = build_schema(documents=cache)
    first = schema.execute_sync("query Q { __typename }")
    assert first.errors is None and first.data == {"__typename": "Query"}
    assert len(cache) == 1
    (key,) = list(cache._valid)
    kept = cache.get(key)
    second = schema.execute_sync("query Q { __typename }")
    assert second.data == first.data and len(cache) == 1
    assert cache.get(key) is kept  # the same document object: not parsed again


def test_refused_texts_are_refused_every_time_and_never_kept() -> None:
    cache = DocumentCache()
    schema = build_schema(documents=cache, max_aliases=2)
    over_limit = "{ a: x b: x c: x }"  # limits are checked before the (unknown) fields are
    unknown_field = "{ noSuchField }"
    syntax = "{ __typename"
    for _ in range(2):
        assert _codes(schema.execute_sync(over_limit)) == ["LIMIT_EXCEEDED"]
        assert _codes(schema.execute_sync(unknown_field)) == ["BAD_USER_INPUT"]
        assert _codes(schema.execute_sync(syntax)) == ["BAD_USER_INPUT"]
    assert len(cache) == 0


def test_introspection_stays_off_for_a_text_that_another_schema_accepted() -> None:
    """Each schema has its own cache: a production schema never reuses a dev schema's decision."""
    query = get_introspection_query()
    dev, production = build_schema(introspection=True), build_schema(introspection=False)
    assert dev.execute_sync(query).errors is None
    for _ in range(2):
        codes = _codes(production.execute_sync(query))
        assert codes and set(codes) == {"BAD_USER_INPUT"}


def test_least_recently_used_texts_are_dropped_past_the_size() -> None:
    cache = DocumentCache(maxsize=3)
    schema = build_schema(documents=cache)
    texts = [f"query Q{i} {{ __typename }}" for i in range(5)]
    for text in texts[:3]:
        schema.execute_sync(text)
    schema.execute_sync(texts[0])  # used again: now the most recent
    for text in texts[3:]:
        schema.execute_sync(text)
    assert sorted(key[0] for key in cache._valid) == sorted([texts[0], texts[3], texts[4]])
