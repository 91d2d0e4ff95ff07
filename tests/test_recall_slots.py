"""Slot questions end to end (ingest/slots.py, cypher/recall/slot_answers): a question asking for one of the
user's own facts is answered by the memory whose triple states it, whatever the memory's wording, through
GraphQL and the use-case, never across users, and only for live memories."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from bmam.client import BmamClient
from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.turns import TurnInput


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def _conversation(user: str) -> list[dict[str, str]]:
    return [
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I live in Boston and I work at Moderna."},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "Lily started piano lessons on Saturdays."},
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": "Big news: we moved to Seattle last month."},
    ]


def test_where_do_i_live_finds_the_move_that_never_says_live(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_conversation(user))
    for question in ("Where do I live?", "我住在哪里？", "Where did we move?"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        texts = [m["memory"]["text"] for m in r["memories"]]
        # the move, not Boston: that memory was superseded by it (a live memory only)
        assert texts[0] == "Big news: we moved to Seattle last month.", (question, texts)
        assert "I live in Boston and I work at Moderna." not in texts
        assert "states the user's lives_in" in r["memories"][0]["why"]


def test_what_do_you_know_about_me_answers_with_what_describes_the_user(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_conversation(user))
    for question in ("What do you know about me?", "介绍一下我自己"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        # the live memories stating the user's facts (Boston lost to the move, the employer kept in the superseded
        # memory's remains: bmam/usecases/remains.py); not Lily's lessons
        assert sorted(m["memory"]["text"] for m in r["memories"]) == ["Big news: we moved to Seattle last month.",
                                                                      "I work at Moderna"]


def test_a_slot_with_no_memory_stating_it_is_still_gated(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_conversation(user))
    for question in ("How old am I?", "When is my birthday?", "Where is the Eiffel Tower?"):
        r = client.recall(user, question)
        assert r["gated"] is True and r["memories"] == [], (question, r)


def test_slot_answers_never_cross_users(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_conversation(user))
    other = f"{user}-other"
    client.remember(other, "I enjoy hiking on weekends", "FACTUAL")
    r = client.recall(other, "Where do I live?")
    assert r["gated"] is True and r["memories"] == []


def test_the_slot_stage_can_be_turned_off(container: Container, tenant: str) -> None:
    off = Container(container.settings.model_copy(update={
        "recall": container.settings.recall.model_copy(update={"slot_share": 0.0})}))
    off.__dict__["store"] = container.store
    off.__dict__["embedder"] = container.embedder
    container.ingest.ingest_conversation(tenant, [
        TurnInput(
            user_id="zoe", session_id="s1", speaker="user", text="Big news: we moved to Seattle last month.")])
    on = container.recall.recall(tenant, RecallRequest(user_id="zoe", query="Where do I live?"))
    assert not on.gated and [m.memory.text for m in on.memories] == ["Big news: we moved to Seattle last month."]
    assert off.recall.recall(tenant, RecallRequest(user_id="zoe", query="Where do I live?")).gated


def _statements(container: Container, run: Callable[[], object]) -> list[str]:
    """The named statements run while run() runs (the store's query timer)."""
    names: list[str] = []

    def listen(name: str, _seconds: float) -> None:
        names.append(name)

    container.store.timer.listeners.append(listen)
    try:
        run()
    finally:
        container.store.timer.listeners.remove(listen)
    return names


@pytest.mark.parametrize("cache_mb", [512, 0])
def test_the_answers_come_with_the_candidates_or_on_their_own(container: Container, tenant: str,
                                                              cache_mb: int) -> None:
    """With the vector cache the slot answers are read in the statement reading the candidates (no round
    trip of their own); without it, in a statement of their own. The same answer either way."""
    made = Container(container.settings.model_copy(update={
        "recall": container.settings.recall.model_copy(update={"vector_cache_mb": cache_mb})}))
    made.__dict__["store"] = container.store
    made.__dict__["embedder"] = container.embedder
    made.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="I enjoy hiking on weekends."),
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="Big news: we moved to Seattle last month.")])
    made.recall.recall(tenant, RecallRequest(user_id="zoe", query="hiking"))  # the cache's first read of zoe
    answers: list[list[str]] = []
    question = RecallRequest(user_id="zoe", query="Where do I live?")
    ran = _statements(made, lambda: answers.append(
        [m.memory.text for m in made.recall.recall(tenant, question).memories]))
    assert answers == [["Big news: we moved to Seattle last month."]]
    if cache_mb:
        assert "recall/rows_checked" in ran and "recall/slot_answers" not in ran, ran
    else:
        assert "recall/slot_answers" in ran, ran
