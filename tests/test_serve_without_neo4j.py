"""Neo4j out of reach, as the CLI says it: `bmam serve` (one process or --workers 2) was ~60 lines of uvicorn's
start-up traceback and "Application startup failed" (four tracebacks with --workers 2); now one line naming where
Neo4j was looked for, a non-zero exit. A one-shot command printed each retry of its read as several lines of driver
text before its one error line; now only that line, the retries shown with --verbose (graph.store's warnings stay in
a server's log). Each against a port where nothing listens, bound by this test so no one else takes it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ops_support import free_port

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BMAM = str(Path(sys.executable).parent / "bmam")


@pytest.fixture
def closed_uri() -> Iterator[str]:
    """A bolt URI whose port is bound but not listening: every connection is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"bolt://127.0.0.1:{sock.getsockname()[1]}"


def _bmam(args: list[str], uri: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NEO4J_URI": uri, "BMAM_DATA_DIR": str(data_dir), "BMAM_NEO4J__RETRY_TIME_S": "1"}
    return subprocess.run([BMAM, *args], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_says_in_one_line_that_neo4j_is_out_of_reach(workers: int, closed_uri: str, tmp_path: Path) -> None:
    done = _bmam(["serve", "--port", str(free_port()), "--workers", str(workers)], closed_uri, tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "Application startup failed" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error [UNAVAILABLE]: cannot reach Neo4j at {closed_uri}: "), line
    assert "Connection refused" in line
    assert not (tmp_path / "dev-api-key").exists()


def test_a_command_says_neo4j_is_unavailable_without_the_retries(closed_uri: str, tmp_path: Path) -> None:
    done = _bmam(["memories", "-u", "alice"], closed_uri, tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == ["error [UNAVAILABLE]: the memory store is unavailable, try again shortly"]


def test_verbose_shows_the_retries_each_on_one_line(closed_uri: str, tmp_path: Path) -> None:
    done = _bmam(["--verbose", "memories", "-u", "alice"], closed_uri, tmp_path)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[-1] == "error [UNAVAILABLE]: the memory store is unavailable, try again shortly"
    retries = [line for line in lines if line.startswith("neo4j read failed, retried in ")]
    assert retries and all(closed_uri.removeprefix("bolt://") in line for line in retries)
    assert "Traceback" not in done.stderr
