"""The two changes of an app developer's audit end to end (session 50), against the real Neo4j: the switch said
bare supersedes the editor in use, the plan decided against supersedes the plan, and recall answers with the new
state only."""

from __future__ import annotations

import uuid

from bmam.client import BmamClient


def _said(client: BmamClient, user: str, *texts: str) -> None:
    client.ingest_conversation([{"userId": user, "sessionId": f"s{i}", "speaker": "user", "text": t}
                                for i, t in enumerate(texts)])


def test_a_bare_switch_and_a_dropped_plan_supersede_and_recall_the_new_state(client: BmamClient) -> None:
    user = f"switch-{uuid.uuid4().hex[:8]}"
    _said(client, user, "I use Vim for coding.", "I use Python for work.", "I switched to VS Code last week.",
          "We're planning to get a dog in spring.", "We decided not to get a dog after all.")
    live = {e["node"]["text"] for e in client.memories(user, first=50)["edges"]}
    assert "I use Vim for coding." not in live and "We're planning to get a dog in spring." not in live, live
    assert {"I use Python for work.", "I switched to VS Code last week."} <= live
    editor = [m["memory"]["text"] for m in client.recall(user, "Which editor do I use?", k=4)["memories"]]
    # (the new editor, not the old one; "I use Python for work." may rank above it: it shares "use")
    assert "I switched to VS Code last week." in editor and "I use Vim for coding." not in editor, editor
    dog = [m["memory"]["text"] for m in client.recall(user, "Are we getting a dog?", k=4)["memories"]]
    assert dog[:1] == ["We decided not to get a dog after all."] and "We're planning to get a dog in spring." \
        not in dog, dog
