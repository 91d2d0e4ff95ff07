"""A CLI command on a store bmam never migrated applies the schema first, as `bmam serve` does at start (a recall
on a fresh local Neo4j failed on the missing full-text index with a Neo4j traceback); with
BMAM_DEPLOYMENT__MIGRATE_AT_START off it stops with a message naming what is missing and `bmam migrate`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import typer
from neo4j.exceptions import Neo4jError
from typer.testing import CliRunner

from bmam.cli import app
from bmam.cli_support import clear_errors
from bmam.container import Container
from graph.migrations import index_states
from ingest.turns import TurnInput
from tests.ops_support import Inspector

runner = CliRunner()
USER = "mei"


@pytest.fixture
def unmigrated(container: Container, tenant: str) -> Iterator[Inspector]:
    """The store as a fresh Neo4j has it as far as full-text goes: no index, no record of its schema file. A
    user's turns are ingested first: a recall asking about the sister reads the full-text index for the memories
    naming her (the slot stage's kin branch)."""
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id=USER, session_id="s1", speaker="user", text=text, at=container.clock.now())
        for text in ("My sister Lily is a doctor in Shanghai.", "我妹妹Lily下个月要结婚了。")])
    config = container.store.config
    inspector = Inspector(config.uri, config.user, config.password)
    inspector.unapply_fulltext_schema()
    try:
        yield inspector
    finally:
        container.migrate()
        inspector.close()
        container.erasure.forget_user(tenant, USER, confirm=True)


def test_a_command_on_an_unmigrated_store_applies_the_schema_first(
        container: Container, tenant: str, unmigrated: Inspector) -> None:
    assert "schema/003_fulltext" in container.missing_migrations()
    result = runner.invoke(app, ["recall", "-u", USER, "--tenant", tenant, "What does my sister do?"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    assert "applying the schema to the store (1 steps missing)" in result.stderr
    assert "Lily is a doctor" in result.stdout
    assert container.missing_migrations() == []
    assert index_states(container.store)["memory_text_scoped"] == "ONLINE"


def test_with_migrate_at_start_off_a_command_says_to_migrate(
        container: Container, tenant: str, unmigrated: Inspector, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BMAM_DEPLOYMENT__MIGRATE_AT_START", "false")
    result = runner.invoke(app, ["recall", "-u", USER, "--tenant", tenant, "What does my sister do?"])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert "the store lacks 1 schema steps (schema/003_fulltext): run `bmam migrate`" in result.stderr
    assert "memory_text_scoped" not in index_states(container.store)  # nothing applied behind the user's back
    migrated = runner.invoke(app, ["migrate"])
    assert migrated.exit_code == 0, migrated.output
    assert container.missing_migrations() == []


def test_a_statement_neo4j_refuses_is_one_line_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    # a ClientError as the driver builds it from the server's FAILURE message
    with pytest.raises(typer.Exit) as exited, clear_errors():
        raise Neo4jError._hydrate_neo4j(code="Neo.ClientError.Procedure.ProcedureCallFailed",
                                         message="There is no such fulltext schema index: memory_text_scoped")
    assert exited.value.exit_code == 1
    err = capsys.readouterr().err
    assert err.strip() == ("neo4j refused a statement [Neo.ClientError.Procedure.ProcedureCallFailed]: "
                           "There is no such fulltext schema index: memory_text_scoped")
