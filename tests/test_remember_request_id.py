"""remember with a requestId is safe to retry, against the real Neo4j: the same requestId answers the memory the
first call stored (one memory, one CREATED event), another text under it is a CONFLICT with
nothing written, and the id is the user's own (another user's same requestId is another memory). On every face:
the use case, GraphQL over HTTP, the local CLI and `bmam remote`."""

from __future__ import annotations

import json
import uuid

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError
from bmam.container import Container
from bmam.events import EventKind, MemoryEvent
from bmam.usecases.memories import RememberRequest
from graph.errors import BadInput, Conflict

runner = CliRunner()


def _live_texts(c: Container, tenant: str, user: str) -> list[str]:
    return sorted(m.text for m in c.memories.page(tenant, user, first=100).items)


def test_a_retried_remember_answers_the_first_memory(container: Container, tenant: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[MemoryEvent] = []
    monkeypatch.setattr(container.events, "publish", seen.append)
    first = container.memories.remember(tenant, RememberRequest(
        user_id="alice", text="My sister Lily lives in Hangzhou.", type="FACTUAL", request_id="req-1"))
    again = container.memories.remember(tenant, RememberRequest(
        user_id="alice", text="My sister Lily lives in Hangzhou.", type="FACTUAL", request_id="req-1"))
    assert again.id == first.id and again.created_at == first.created_at
    assert _live_texts(container, tenant, "alice") == ["My sister Lily lives in Hangzhou."]
    assert [(e.kind, e.memory_id) for e in seen if e.kind is EventKind.CREATED] == [(EventKind.CREATED, first.id)]

    # another user's same requestId is that user's own memory
    other = container.memories.remember(tenant, RememberRequest(
        user_id="bob", text="My sister Lily lives in Hangzhou.", type="FACTUAL", request_id="req-1"))
    assert other.id != first.id and _live_texts(container, tenant, "bob") == ["My sister Lily lives in Hangzhou."]

    # without a requestId, each call stores its own (documented: remember's ids are new each time)
    container.memories.remember(tenant, RememberRequest(user_id="carol", text="I keep bees.", type="FACTUAL"))
    container.memories.remember(tenant, RememberRequest(user_id="carol", text="I keep bees.", type="FACTUAL"))
    assert _live_texts(container, tenant, "carol") == ["I keep bees.", "I keep bees."]


def test_a_request_id_sent_with_another_text_is_refused_and_writes_nothing(container: Container,
                                                                           tenant: str) -> None:
    container.memories.remember(tenant, RememberRequest(user_id="alice", text="I drink oat milk.", type="FACTUAL",
                                                        request_id="order-7"))
    with pytest.raises(Conflict, match="requestId 'order-7' was sent before with another text") as refused:
        container.memories.remember(tenant, RememberRequest(user_id="alice", text="I drink soy milk.",
                                                            type="FACTUAL", request_id="order-7"))
    assert refused.value.field == "requestId"
    assert _live_texts(container, tenant, "alice") == ["I drink oat milk."]
    with pytest.raises(BadInput, match="requestId"):
        container.memories.remember(tenant, RememberRequest(user_id="alice", text="I drink soy milk.",
                                                            type="FACTUAL", request_id=""))
    assert _live_texts(container, tenant, "alice") == ["I drink oat milk."]


def test_graphql_remember_with_a_request_id(client: BmamClient) -> None:
    user = f"retry-{uuid.uuid4().hex[:8]}"
    first = client.remember(user, "I'm training for the Berlin marathon.", requestId="r1")
    again = client.remember(user, "I'm training for the Berlin marathon.", requestId="r1")
    assert again["id"] == first["id"]
    with pytest.raises(BmamClientError) as refused:
        client.remember(user, "I'm training for the Paris marathon.", requestId="r1")
    assert refused.value.code == "CONFLICT" and "requestId" in refused.value.message
    stored = [e["node"]["text"] for e in client.memories(user, first=10)["edges"]]
    assert stored == ["I'm training for the Berlin marathon."]


def test_cli_remember_with_a_request_id(container: Container, tenant: str) -> None:
    def remember(text: str) -> tuple[int, str, str]:
        r = runner.invoke(app, ["remember", "-u", "dana", "--tenant", tenant, "--request-id", "cli-1", text])
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        return r.exit_code, r.stdout, r.stderr

    code, out, _ = remember("I cycle to work.")
    assert code == 0
    code, again, _ = remember("I cycle to work.")
    assert code == 0 and json.loads(again)["id"] == json.loads(out)["id"]
    code, out, err = remember("I take the bus to work.")
    assert code != 0 and out == "" and "CONFLICT" in err and "requestId" in err
    assert _live_texts(container, tenant, "dana") == ["I cycle to work."]


def test_remote_remember_with_a_request_id(api_url: str, api_key: str) -> None:
    env, user = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}, f"remote-{uuid.uuid4().hex[:8]}"

    def remember(text: str) -> tuple[int, str, str]:
        r = runner.invoke(app, ["remote", "remember", "-u", user, "--request-id", "x1", text], env=env)
        assert "Traceback" not in r.output
        return r.exit_code, r.stdout, r.stderr

    code, out, _ = remember("I water the plants on Sundays.")
    code2, again, _ = remember("I water the plants on Sundays.")
    assert (code, code2) == (0, 0) and json.loads(again)["id"] == json.loads(out)["id"]
    code, out, err = remember("I water the plants on Mondays.")
    assert code != 0 and out == "" and "CONFLICT" in err
