"""Every GraphQL operation reachable from `bmam remote` as from the local CLI (helper B35's audit): related
memories and the export, the tiers, conflict checks, maintenance and one memory, each against a live server
(tests/conftest.py's uvicorn on the real Neo4j) with a success and a bad-input path: bad input is one line on
standard error and a non-zero exit (2 for BAD_USER_INPUT), never a traceback."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.container import Container

runner = CliRunner()


def _env(api_url: str, api_key: str) -> dict[str, str]:
    return {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}


def remote(env: dict[str, str], *args: str, code: int = 0) -> str:
    """One `bmam remote` command that must exit with `code`: its standard output, or its one error line."""
    result = runner.invoke(cli_app, ["remote", *args], env=env)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    if code == 0:
        return str(result.stdout)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and result.stdout == "", result.output
    return lines[0]


def test_remote_related_follows_an_association_and_refuses_depth_6(api_url: str, api_key: str) -> None:
    """remote had no relatedSearch (the client hard-coded depth 2, limit 20): depth, limit and min strength go
    to the server as given, which refuses a depth outside 1..5 as it does for the API and `bmam related`."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    dog = json.loads(remote(env, "remember", "-u", user, "Biscuit is my dog"))["id"]
    kettle = json.loads(remote(env, "remember", "-u", user, "I bought a red kettle"))["id"]
    assert remote(env, "related", "-u", user, dog) == ""  # nothing links them yet
    remote(env, "associate", "-u", user, dog, kettle, "--strength", "0.6")
    [found] = [json.loads(x) for x in remote(env, "related", "-u", user, dog, "--depth", "5").splitlines()]
    assert (found["id"], found["score"]) == (kettle, 0.6)
    assert found["path"] == [{"from": dog, "to": kettle, "via": "ASSOCIATED", "strength": 0.6, "entity": None}]
    assert remote(env, "related", "-u", user, dog, "--min-strength", "0.7") == ""  # the edge is weaker
    assert remote(env, "related", "-u", user, dog, "--depth", "6", code=2) == \
        "error [BAD_USER_INPUT]: depth must be between 1 and 5, got 6"
    assert remote(env, "related", "-u", user, "no-such-memory", code=1) == \
        "error [NOT_FOUND]: memory no-such-memory not found"


def test_remote_export_streams_what_the_local_export_writes(container: Container, api_url: str, api_key: str,
                                                            api_tenant: str, tmp_path: Path) -> None:
    """remote had no export: GET /export streamed to standard output or a file, the bytes `bmam export`
    writes; an unknown format is refused before anything is sent, an unknown user is NOT_FOUND."""
    env, user = _env(api_url, api_key), f"u-{uuid.uuid4().hex[:8]}"
    remote(env, "remember", "-u", user, "我住在成都")
    local = b"".join(container.export.export_rdf(api_tenant, user, "nt"))
    out = runner.invoke(cli_app, ["remote", "export", "-u", user, "-f", "n-triples"], env=env)
    assert out.exit_code == 0, out.output
    assert out.stdout_bytes == local and "我住在成都" in out.stdout
    target = tmp_path / "alice.graphml"
    written = runner.invoke(cli_app, ["remote", "export", "-u", user, "-f", "graphml", "-o", str(target)], env=env)
    assert written.exit_code == 0, written.output
    assert written.stderr.startswith(f"wrote {target} (") and b"<graphml" in target.read_bytes()
    assert remote(env, "export", "-u", user, "-f", "docx", code=2) == \
        "unknown format 'docx'; one of ttl, nt, jsonld, rdf (RDF/XML), graphml or gexf"
    missing = tmp_path / "nobody.ttl"
    assert remote(env, "export", "-u", f"{user}-nobody", "-o", str(missing), code=1).startswith("error [NOT_FOUND]:")
    assert not missing.exists() and list(tmp_path.iterdir()) == [target]  # no half file left
