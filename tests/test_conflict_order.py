"""Which of two memories is the newer when they were said at the same time: a conversation sent at once
without times (an ingestConversation, a JSONL file) stamps every turn with one time. The later turn wins
across sessions too: the memories are stored in the order they were said, and their hooks run after all
of them were stored, so the memory being checked may be the older of the two."""

from __future__ import annotations

from bmam.container import Container
from graph.conflicts import ConflictStatus
from ingest.turns import TurnInput


def test_a_change_of_mind_in_a_later_session_of_one_upload_wins(container: Container, tenant: str) -> None:
    turns = [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="I live in Boston."),
        TurnInput(user_id="zoe", session_id="s1", speaker="assistant", text="Boston is lovely."),
        TurnInput(user_id="zoe", session_id="s2", speaker="user", text="Big news: we moved to Seattle last month."),
    ]
    report = container.ingest.ingest_conversation(tenant, turns)
    boston, seattle = (r.memories[0] for r in report.turns if r.memories)
    assert boston.created_at == seattle.created_at  # one time for the whole upload
    settled = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert [(c.winner_id, c.loser_id) for c in settled] == [(seattle.id, boston.id)]
    live = {m.text for m in container.memories.page(tenant, "zoe").items}
    assert live == {"Big news: we moved to Seattle last month."}
