"""`bmam remote` for an app's core calls against a running server (tests/conftest.py's live uvicorn, real
Neo4j): ingest a JSONL file in batches with each turn in its place, recall, the context prompt, remember."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.container import Container
from graph.episodes import EpisodeRepository
from graph.model import Scope

runner = CliRunner()


def test_remote_ingest_recall_and_context(container: Container, api_url: str, api_key: str, api_tenant: str,
                                          tmp_path: Path) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}
    lines = [
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I live in Boston and I work at Moderna."},
        {"userId": user, "sessionId": "s1", "speaker": "assistant", "text": "Boston is lovely."},
        {"userId": user, "sessionId": "s1", "speaker": "narrator", "text": "bad speaker"},
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": "Big news: we moved to Seattle last month."},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "My daughter Lily is allergic to peanuts."},
    ]
    file = tmp_path / "conversation.jsonl"
    file.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")

    first = runner.invoke(cli_app, ["remote", "ingest", str(file), "--batch", "2"], env=env)
    assert first.exit_code == 2, first.output
    assert [ln.split(":")[0] for ln in first.stderr.splitlines()] == ["line 3"]
    assert "5 lines: 4 turns stored, 0 already present, 3 memories created, 1 bad lines" in first.stdout
    # in their places across the requests of two turns: the bad line holds index 2 of s1, as `bmam ingest`
    episodes = EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(api_tenant, user), "s1", 9)
    assert [(e.turn, e.speaker) for e in episodes] == [(0, "user"), (1, "assistant"), (3, "user")]
    again = runner.invoke(cli_app, ["remote", "ingest", str(file)], env=env)
    assert "0 turns stored, 4 already present, 0 memories created" in again.stdout

    recalled = runner.invoke(cli_app, ["remote", "recall", "-u", user, "Where do I live?", "-k", "3"], env=env)
    assert recalled.exit_code == 0, recalled.output
    answer = json.loads(recalled.stdout)
    assert answer["gated"] is False
    texts = [m["memory"]["text"] for m in answer["memories"]]  # the answer first, Boston superseded
    assert texts[0] == "Big news: we moved to Seattle last month." and not any("Boston" in t for t in texts)

    prompt = runner.invoke(cli_app, ["remote", "context", "-u", user, "--session", "s1",
                                     "What should I cook for Lily?"], env=env)
    assert prompt.exit_code == 0, prompt.output
    assert "My daughter Lily is allergic to peanuts." in prompt.stdout and "Recent conversation:" in prompt.stdout

    stored = runner.invoke(cli_app, ["remote", "remember", "-u", user, "I prefer tea to coffee", "-t", "emotional"],
                           env=env)
    assert stored.exit_code == 0 and json.loads(stored.stdout)["type"] == "EMOTIONAL"
    refused = runner.invoke(cli_app, ["remote", "recall", "-u", user, "x", "-k", "0"], env=env)
    assert refused.exit_code == 2 and "BAD_USER_INPUT" in refused.output
