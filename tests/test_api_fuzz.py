"""Schema fuzz: queries and mutations generated from the committed schema.graphql by hypothesis-graphql
(valid ones and ones with a schema violation), a fixed seed, 500 examples, against the live server through
the gql client. No answer may be a 5xx or a masked internal error: every refusal carries a known code."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import graphql
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, queries

from bmam.client import BmamClient, BmamClientError, ClientConfig

SDL = (Path(__file__).resolve().parent.parent / "schema.graphql").read_text(encoding="utf-8")
KNOWN_CODES = {"BAD_USER_INPUT", "UNAUTHENTICATED", "NOT_FOUND", "CONFLICT", "LIMIT_EXCEEDED", "UNAVAILABLE",
               "TIMEOUT"}
BUILTIN_SCALARS = {"String", "Int", "Float", "Boolean", "ID"}


def _custom_scalars() -> dict[str, st.SearchStrategy[graphql.ValueNode]]:
    """A string for every custom scalar of the schema (DateTime and whatever is added later), often valid."""
    schema = graphql.build_schema(SDL)
    values = st.one_of(st.just("2026-11-30T12:00:00+00:00"), st.text(max_size=12))
    return {
        name: values.map(lambda v: graphql.StringValueNode(value=v))
        for name, t in schema.type_map.items()
        if isinstance(t, graphql.GraphQLScalarType) and name not in BUILTIN_SCALARS and not name.startswith("__")
    }


def _documents() -> st.SearchStrategy[str]:
    """One root field a document (so one refused field does not hide what the others did), every root
    field of Query and Mutation equally likely; three in four valid, one in four with a schema violation."""
    schema = graphql.build_schema(SDL)
    scalars = _custom_scalars()
    per_field: list[st.SearchStrategy[str]] = []
    for root, make in ((schema.query_type, queries), (schema.mutation_type, mutations)):
        for name, f in (root.fields if root else {}).items():
            valid = make(SDL, fields=[name], custom_scalars=scalars, mode=Mode.POSITIVE)
            if not f.args:  # nothing to violate
                per_field.append(valid)
                continue
            invalid = make(SDL, fields=[name], custom_scalars=scalars, mode=Mode.NEGATIVE)
            per_field.append(st.one_of(valid, valid, valid, invalid))
    return st.one_of(per_field)


DOCUMENTS = _documents()


@pytest.fixture(scope="module")
def fuzz_client(api_url: str, container: object) -> Iterator[BmamClient]:
    from bmam.container import Container

    assert isinstance(container, Container)
    key = container.keys.create(f"test-fuzz-{uuid.uuid4().hex[:8]}", "fuzz").secret  # a cheap, empty tenant
    c = BmamClient(ClientConfig(url=api_url, api_key=key, timeout_s=120))
    yield c
    c.close()


def test_fuzzed_documents_never_get_a_5xx(fuzz_client: BmamClient) -> None:
    seen: dict[str, int] = {}
    check = _checker(fuzz_client, seen)

    @seed(20261130)
    @settings(max_examples=500, deadline=None, database=None, derandomize=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(DOCUMENTS)
    def run(document: str) -> None:
        check(document)

    run()
    assert sum(seen.values()) >= 500
    assert seen.get("ok", 0) > 0 and len(seen) > 2, seen


def _checker(c: BmamClient, seen: dict[str, int]) -> Callable[[str], None]:
    def check(document: str) -> None:
        try:
            c.execute(document)
            outcome = "ok"
        except BmamClientError as exc:
            outcome = exc.code
            assert exc.code in KNOWN_CODES, (exc.code, exc.message, document[:500])
        seen[outcome] = seen.get(outcome, 0) + 1

    return check
