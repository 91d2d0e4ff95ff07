"""What the server logs for an error: nothing with a traceback for the caller's own bad input (a coded error
tells the caller, and a log full of tracebacks for bad requests hides the real ones), and the whole
traceback for an unexpected error, whose text the caller never sees."""

from __future__ import annotations

import logging
import uuid

import pytest
from graphql import GraphQLError
from starlette.testclient import TestClient

from bmam.container import Container
from resolvers.app import create_app
from resolvers.errors import INTERNAL_MESSAGE, coded


def test_bad_requests_log_no_traceback(container: Container, caplog: pytest.LogCaptureFixture) -> None:
    key = container.keys.create(f"test-log-{uuid.uuid4().hex[:8]}", "log").secret
    bad = [
        '{ memories(userId: "a", first: 0) { edges { cursor } } }',  # a resolver's BadInput
        '{ nosuch }',  # validation
        '{ memory(userId: "a", id: "m_unknown") { id } }',  # not found: null, no error at all
        'mutation { remember(input: {userId: " ", text: "x", type: FACTUAL}) { id } }',
        '{ recall(userId: "a", query: "tea", k: -1) { gated } }',
    ]
    # an app of its own container: the app closes its container when it stops
    app = create_app(Container(container.settings), migrate=False, dev_key_enabled=False)
    with caplog.at_level(logging.DEBUG), TestClient(app) as http:
        answers = [http.post("/graphql", headers={"X-API-Key": key}, json={"query": q}).json() for q in bad]
    codes = [[e["extensions"]["code"] for e in a.get("errors", [])] for a in answers]
    assert codes == [["BAD_USER_INPUT"], ["BAD_USER_INPUT"], [], ["BAD_USER_INPUT"], ["BAD_USER_INPUT"]]
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []
    assert "Traceback" not in caplog.text


def test_an_unexpected_error_is_logged_whole_and_masked(caplog: pytest.LogCaptureFixture) -> None:
    try:
        raise RuntimeError("the neo4j password is hunter2")
    except RuntimeError as boom:
        error = GraphQLError("the neo4j password is hunter2", path=["recall"], original_error=boom)
    with caplog.at_level(logging.INFO, logger="bmam.api"):
        masked = coded(error)
    assert masked.message == INTERNAL_MESSAGE and masked.extensions == {"code": "INTERNAL_SERVER_ERROR"}
    [record] = [r for r in caplog.records if r.name == "bmam.api"]
    assert record.levelno == logging.ERROR and record.exc_info and record.exc_info[1] is error.original_error


def test_a_refused_variable_is_the_callers_error_and_any_other_operation_error_is_ours(
        caplog: pytest.LogCaptureFixture) -> None:
    refused = GraphQLError("Variable '$a' has invalid value: Value cannot represent a DateTime: \"x\"",
                           original_error=ValueError("Value cannot represent a DateTime"))
    try:
        empty: dict[str, object] = {}
        empty["principal"]  # a KeyError of our own, outside any field
    except KeyError as ours:
        slip = GraphQLError("'principal'", original_error=ours)
    with caplog.at_level(logging.INFO, logger="bmam.api"):
        assert coded(refused).extensions == {"code": "BAD_USER_INPUT"}
        assert [r for r in caplog.records if r.name == "bmam.api"] == []
        masked = coded(slip)
    assert masked.message == INTERNAL_MESSAGE and masked.extensions == {"code": "INTERNAL_SERVER_ERROR"}
    [record] = [r for r in caplog.records if r.name == "bmam.api"]
    assert record.levelno == logging.ERROR and record.exc_info and record.exc_info[1] is slip.original_error
