"""The answers memory operations give on the surfaces (GraphQL, CLI, `bmam remote`, MCP), as the surface audit found
them wanting: a read for a user with nothing stored writes nothing (D6); one code per kind of bad number, whatever
the surface (D9). Storage on the real Neo4j."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.erasure import ErasureRepository
from graph.model import Scope
from graph.session_state import SessionStateRepository

# ----- D6: a read for a user with nothing stored writes nothing ---------------------------------------------


def test_a_recall_or_context_prompt_with_a_session_for_an_unknown_user_writes_nothing(container: Container,
                                                                                    tenant: str) -> None:
    scope = Scope(tenant, "phantom")
    result = container.recall.recall(tenant, RecallRequest(user_id="phantom", query="tea", session_id="x"))
    assert result.gated and not result.memories
    container.recall.context_prompt(tenant, "phantom", "x", "Tell me about my family")
    assert ErasureRepository(container.store).remaining(scope) == (0, 0)


def test_a_session_that_surfaced_something_keeps_every_later_turn(container: Container, tenant: str) -> None:
    """The control: once a recall surfaced a memory, the session's history exists and a later turn that
    surfaced nothing is still one turn of it (it pushes the older turns towards the window's end)."""
    container.memories.remember(tenant, RememberRequest(user_id="alice", text="I love spicy hotpot in Chengdu",
                                                        type="FACTUAL"))
    first = container.recall.recall(tenant, RecallRequest(user_id="alice", query="spicy hotpot", session_id="s1"))
    assert first.memories
    gated = container.recall.recall(tenant, RecallRequest(user_id="alice", query="quantum chromodynamics lecture",
                                                          session_id="s1"))
    assert not gated.memories
    turns = SessionStateRepository(container.store).surfaced(Scope(tenant, "alice"), "s1")
    assert [ids for ids, _ in turns] == [[first.memories[0].memory.id], []]
    # a leading empty turn left out damps nothing: test_shared_tracker_damps_like_the_local_one (test_workers.py)


# ----- D9: one code per kind of bad number, whatever the surface ---------------------------------------------

OVER_INT = 2**31  # past GraphQL's Int: the CLI and MCP have no such bound and answer the page limit


def _code(client: BmamClient, document: str, variables: dict[str, Any] | None = None) -> str:
    with pytest.raises(BmamClientError) as err:
        client.execute(document, variables)
    return err.value.code


@pytest.mark.parametrize(("document", "variables", "code"), [
    # a page size or the budget past Int is over its limit, as 2^31 - 1 is
    ('{ recall(userId: "u", query: "tea", k: 2147483648) { gated } }', None, "LIMIT_EXCEEDED"),
    ("query($k: Int) { recall(userId: \"u\", query: \"tea\", k: $k) { gated } }", {"k": OVER_INT}, "LIMIT_EXCEEDED"),
    ("query($k: Int) { recall(userId: \"u\", query: \"tea\", k: $k) { gated } }", {"k": 2**70}, "LIMIT_EXCEEDED"),
    ('{ recall(userId: "u", query: "tea", k: 2147483647) { gated } }', None, "LIMIT_EXCEEDED"),
    ('{ contextPrompt(userId: "u", sessionId: "s", input: "tea", budget: 2147483648) { text } }', None,
     "LIMIT_EXCEEDED"),
    ('{ memories(userId: "u", first: 2147483648) { edges { node { id } } } }', None, "LIMIT_EXCEEDED"),
    # given as a variable's default, or too long for Python to read as an int (past 4,300 digits), the same
    ('query($n: Int = 99999999999) { memories(userId: "u", first: $n) { edges { node { id } } } }', None,
     "LIMIT_EXCEEDED"),
    ('{ recall(userId: "u", query: "tea", k: ' + "9" * 4400 + ") { gated } }", None, "LIMIT_EXCEEDED"),
    ('query($k: Int = ' + "9" * 4400 + ') { recall(userId: "u", query: "tea", k: $k) { gated } }', None,
     "LIMIT_EXCEEDED"),
    ('{ recall(userId: "u", query: "tea", k: -' + "9" * 4400 + ") { gated } }", None, "BAD_USER_INPUT"),
    ('{ relatedSearch(userId: "u", memoryId: "m_x", depth: ' + "9" * 4400 + ") { score } }", None, "BAD_USER_INPUT"),
    # below the range, or a number with a range of its own (a depth, a turn), stays bad input as in range
    ("query($k: Int) { recall(userId: \"u\", query: \"tea\", k: $k) { gated } }", {"k": -OVER_INT - 1},
     "BAD_USER_INPUT"),
    ('{ relatedSearch(userId: "u", memoryId: "m_x", depth: 2147483648) { score } }', None, "BAD_USER_INPUT"),
    ('mutation { ingestTurn(input: {userId: "u", sessionId: "s", speaker: "user", text: "hi", turn: 2147483648}) '
     "{ episodeId } }", None, "BAD_USER_INPUT"),
])
def test_graphql_codes_a_number_past_int_as_the_surfaces_without_that_bound_do(
        client: BmamClient, document: str, variables: dict[str, Any] | None, code: str) -> None:
    assert _code(client, document, variables) == code


def test_remote_and_the_cli_answer_the_same_code_for_k_past_int(api_url: str, api_key: str, tenant: str) -> None:
    """`bmam recall -k 2147483648` was LIMIT_EXCEEDED and `bmam remote recall -k 2147483648` BAD_USER_INPUT."""
    runner = CliRunner()
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}
    local = runner.invoke(app, ["recall", "-u", "u", "tea", "-k", str(OVER_INT), "--tenant", tenant])
    remote = runner.invoke(app, ["remote", "recall", "-u", "u", "tea", "-k", str(OVER_INT)], env=env)
    for result in (local, remote):
        assert result.exit_code == 2 and result.stderr.startswith("error [LIMIT_EXCEEDED]"), result.output
