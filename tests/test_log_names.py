"""Logs name a user by a digest, never by the id an app gave (graph/ids.py log_name): an app may use e-mail addresses
as user ids, and logs outlive forgetUser. The names alone (pure), then a correction and the recalls of a warm-up
against the real Neo4j with the log captured: the user id appears nowhere in it, nor the memory's text."""

from __future__ import annotations

import logging
import uuid

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.ids import log_name, log_session
from graph.model import Scope


def test_a_user_is_named_by_a_digest_of_tenant_and_id() -> None:
    scope = Scope("shop", "ada@example.com")
    name = log_name(scope)
    assert name.startswith("shop/u:") and "ada" not in name and len(name) == len("shop/u:") + 12
    assert log_name(Scope("shop", "ada@example.com")) == name  # stable: a support person can find the lines
    assert log_name(Scope("other", "ada@example.com")) != name.replace("shop", "other")  # per tenant
    assert log_name(Scope("shop", "bob@example.com")) != name
    session = log_session(scope, "ada@example.com-chat-1")
    assert session.startswith("s:") and "ada" not in session
    assert log_session(scope, "chat-2") != log_session(scope, "chat-1")


def test_a_correction_and_a_warm_up_log_no_user_id_and_no_text(
        container: Container, tenant: str, caplog: pytest.LogCaptureFixture) -> None:
    user = f"ada-{uuid.uuid4().hex[:8]}@example.com"
    request = RememberRequest(user_id=user, text="I work at Acme as a welder.", type="factual")
    old = container.memories.remember(tenant, request)
    with caplog.at_level(logging.DEBUG):
        container.corrections.correct(tenant, user, old.id, "I work at Initech as a welder.")
        report = container.plan_warm_up.run(subjects=[(Scope(tenant, user), old.id)])
    # bmam's own lines (the driver's debug log carries the statements' parameters: never on in production)
    said = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("neo4j"))
    assert f"memory {old.id} of {log_name(Scope(tenant, user))} corrected by" in said  # the line is there
    assert report.users == (log_name(Scope(tenant, user)),)
    assert user not in said and user.split("@")[0] not in said
    assert "Acme" not in said and "Initech" not in said


def test_check_prints_the_name_logs_give_the_user(container: Container, tenant: str) -> None:
    user = f"bob-{uuid.uuid4().hex[:8]}@example.com"
    container.memories.remember(tenant, RememberRequest(user_id=user, text="I live in Lyon.", type="factual"))
    result = CliRunner().invoke(app, ["check", "--tenant", tenant, "--user", user])
    assert f"\n  named in logs: {log_name(Scope(tenant, user))}\n" in result.output, result.output
