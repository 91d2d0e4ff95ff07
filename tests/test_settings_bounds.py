"""Every number among the BMAM_* settings has bounds (bmam/settings.py): a value that would fail later (a negative
transaction timeout was a driver traceback at the first statement), hang (a pool of 0 connections) or refuse every
request (a page size of 0) is refused when the settings are read, and the CLI says so in one line naming the
variable, exit 2, never a traceback (README "The CLI")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from bmam.cli import app
from bmam.settings import Settings

PROJECT_ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


@pytest.fixture
def no_bmam_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the variables a test sets: none of the environment's own BMAM_* settings."""
    for name in list(os.environ):
        if name.startswith("BMAM_"):
            monkeypatch.delenv(name)


REFUSED = [
    # the audit's four
    ("BMAM_NEO4J__TX_TIMEOUT_S", "-1"),
    ("BMAM_NEO4J__MAX_POOL_SIZE", "0"),
    ("BMAM_LIMITS__MAX_BODY_BYTES", "-5"),
    ("BMAM_LIMITS__MAX_PAGE_SIZE", "0"),
    # Neo4j
    ("BMAM_NEO4J__TX_TIMEOUT_S", "0"),  # no timeout at all: a runaway query would hold the service
    ("BMAM_NEO4J__MAX_POOL_SIZE", "-1"),
    ("BMAM_NEO4J__START_TIMEOUT_S", "0"),
    ("BMAM_NEO4J__BOLT_PORT", "0"),
    ("BMAM_NEO4J__BOLT_PORT", "65536"),
    ("BMAM_NEO4J__HTTP_PORT", "-1"),
    ("BMAM_NEO4J__HTTP_PORT", "70000"),
    # the embedding model
    ("BMAM_EMBEDDING__THREADS", "0"),
    ("BMAM_EMBEDDING__BATCH_SIZE", "0"),
    # input limits
    ("BMAM_LIMITS__MAX_BODY_BYTES", "1023"),
    ("BMAM_LIMITS__MAX_TEXT_BYTES", "0"),
    ("BMAM_LIMITS__MAX_TEXT_BYTES", "255"),
    ("BMAM_LIMITS__MAX_PAGE_SIZE", "-1"),
    ("BMAM_LIMITS__MAX_TRAVERSAL_DEPTH", "0"),
    ("BMAM_LIMITS__MAX_TRAVERSAL_DEPTH", "6"),  # relatedSearch has 5 rounds: 6 was taken as 5
    ("BMAM_LIMITS__MAX_QUERY_DEPTH", "3"),
    ("BMAM_LIMITS__MAX_ALIASES", "-1"),
    ("BMAM_LIMITS__MAX_TOKENS", "99"),
    ("BMAM_LIMITS__MAX_SELECTIONS", "9"),
    ("BMAM_LIMITS__MAX_QUERY_COST", "19"),
    # the HTTP face
    ("BMAM_API__PORT", "0"),
    ("BMAM_API__PORT", "65536"),
    ("BMAM_API__KEY_CACHE_S", "-1"),
    ("BMAM_API__WORKER_THREADS", "0"),
    ("BMAM_API__TIER_COUNT_CACHE_S", "-0.5"),
    # a number is finite: inf passed every lower bound (as a transaction timeout, an OverflowError in the driver)
    ("BMAM_NEO4J__TX_TIMEOUT_S", "inf"),
    ("BMAM_NEO4J__TX_TIMEOUT_S", "nan"),
    ("BMAM_API__KEY_CACHE_S", "inf"),
    ("BMAM_MAINTENANCE__TX_TIMEOUT_S", "inf"),
]


@pytest.mark.parametrize(("variable", "value"), REFUSED)
def test_a_value_out_of_bounds_is_refused_naming_the_setting(variable: str, value: str, no_bmam_env: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as refused:
        Settings()
    section, name = variable.removeprefix("BMAM_").lower().split("__")
    assert [e["loc"] for e in refused.value.errors()] == [(section, name)]


def test_a_calibration_line_is_a_cosine(no_bmam_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BMAM_RECALL__CALIBRATION", '{"usem3": {"sim_floor": 0.2, "sim_ceiling": 1.5, '
                                                   '"gate_similarity": 0.25, "gate_similarity_general": 0.35}}')
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert [e["loc"] for e in refused.value.errors()] == [("recall", "calibration", "usem3", "sim_ceiling")]


ACCEPTED = [
    ("BMAM_NEO4J__TX_TIMEOUT_S", "0.0005", ("neo4j", "tx_timeout_s"), 0.0005),  # the driver sends 1 ms
    ("BMAM_NEO4J__MAX_POOL_SIZE", "1", ("neo4j", "max_pool_size"), 1),
    ("BMAM_NEO4J__BOLT_PORT", "65535", ("neo4j", "bolt_port"), 65535),
    ("BMAM_API__PORT", "1", ("api", "port"), 1),
    ("BMAM_API__KEY_CACHE_S", "0", ("api", "key_cache_s"), 0.0),  # every request checks its key
    ("BMAM_API__TIER_COUNT_CACHE_S", "0", ("api", "tier_count_cache_s"), 0.0),  # counted on every scrape
    ("BMAM_LIMITS__MAX_ALIASES", "0", ("limits", "max_aliases"), 0),  # no aliases
    ("BMAM_LIMITS__MAX_PAGE_SIZE", "1", ("limits", "max_page_size"), 1),
    ("BMAM_LIMITS__MAX_TRAVERSAL_DEPTH", "5", ("limits", "max_traversal_depth"), 5),
    ("BMAM_LIMITS__MAX_BODY_BYTES", "1024", ("limits", "max_body_bytes"), 1024),
    ("BMAM_EMBEDDING__THREADS", "4", ("embedding", "threads"), 4),
]


@pytest.mark.parametrize(("variable", "value", "path", "expected"), ACCEPTED)
def test_the_edges_of_the_bounds_are_taken(variable: str, value: str, path: tuple[str, str], expected: float,
                                           no_bmam_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, value)
    assert getattr(getattr(Settings(), path[0]), path[1]) == expected


def test_every_default_is_within_its_bounds(no_bmam_env: None) -> None:
    """Settings() with no BMAM_* variable builds (every default passes the new bounds), and the defaults are
    the documented ones."""
    s = Settings()
    assert (s.neo4j.tx_timeout_s, s.neo4j.max_pool_size, s.neo4j.start_timeout_s) == (15.0, 50, 120.0)
    assert (s.neo4j.bolt_port, s.neo4j.http_port, s.api.port) == (7687, 7474, 8000)
    assert (s.embedding.threads, s.embedding.batch_size) == (1, 32)
    assert (s.api.key_cache_s, s.api.worker_threads, s.api.tier_count_cache_s) == (10.0, 32, 5.0)
    assert s.limits.model_dump() == {
        "max_text_bytes": 32 * 1024, "max_page_size": 100, "max_traversal_depth": 5, "max_query_depth": 10,
        "max_aliases": 15, "max_tokens": 5000, "max_body_bytes": 1024 * 1024, "max_selections": 1000,
        "max_query_cost": 50_000}
    # every section re-validated from its own values: nothing the defaults hold is out of bounds
    assert Settings.model_validate(s.model_dump()) == s


@pytest.mark.parametrize(("variable", "value", "says"), [
    ("BMAM_NEO4J__TX_TIMEOUT_S", "-1", "Input should be greater than 0"),
    ("BMAM_NEO4J__MAX_POOL_SIZE", "0", "Input should be greater than or equal to 1"),
    ("BMAM_LIMITS__MAX_BODY_BYTES", "-5", "Input should be greater than or equal to 1024"),
    ("BMAM_LIMITS__MAX_PAGE_SIZE", "0", "Input should be greater than or equal to 1"),
    ("BMAM_API__PORT", "70000", "Input should be less than or equal to 65535"),
])
def test_the_cli_says_a_bad_value_in_one_line(variable: str, value: str, says: str, no_bmam_env: None) -> None:
    result = runner.invoke(app, ["memories", "-u", "alice"], env={variable: value})
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and result.stdout == ""
    assert result.stderr.splitlines() == [f"error [BAD_USER_INPUT]: bad setting {variable}: {says}"]


def test_the_installed_command_says_it_too() -> None:
    """The command as installed (no test runner around it): BMAM_NEO4J__TX_TIMEOUT_S=-1 was a driver traceback."""
    env = {**os.environ, "BMAM_NEO4J__TX_TIMEOUT_S": "-1", "NEO4J_URI": "bolt://127.0.0.1:7687"}
    done = subprocess.run([str(Path(sys.executable).parent / "bmam"), "memories", "-u", "alice"], env=env,
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "error [BAD_USER_INPUT]: bad setting BMAM_NEO4J__TX_TIMEOUT_S: Input should be greater than 0"]
