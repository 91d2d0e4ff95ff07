"""A question whose opener names what it asks about is no memory (session 52's long-horizon audit, H6): "Ok and for
tomorrow's lunch, what should I order?" was split at its comma, the opener "Ok and for tomorrow's lunch" read as a
statement (an experience: "tomorrow"), stored as an EPISODIC memory and then ranked first for every food request. A
clause with no subject and no verb that only names the topic of a question after it is part of that question
(ingest/salience.py _question_topic); one that states something stays. First the rule alone, then through ingest and
recall against the real Neo4j."""

from __future__ import annotations

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.salience import assess
from ingest.turns import TurnInput


@pytest.mark.parametrize("text", [
    "Ok and for tomorrow's lunch, what should I order?",
    "And for dinner tonight, any ideas?",
    "Tomorrow's lunch, what should I order?",
    "Speaking of Mochi, how often should I feed her?",
    "As for the weekend, should I go hiking?",
    "Regarding the move, when should I book movers?",
    "ok so for the trip, what do I need?",
    "明天的午饭，点什么好？",
    "关于搬家的事，什么时候订搬家公司好？",
])
def test_a_question_with_its_topic_before_it_is_no_memory(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert not verdict.remember and verdict.reason == "question", verdict


@pytest.mark.parametrize("text", [
    "I'm vegetarian, what should I order?",  # the speaker states something before asking
    "For my birthday I went to Paris, what should I do next year?",
    "On Friday we have a party, what should I bake?",
    "Just got back from Japan, any tips for jet lag?",
    "about to glue up a panel, any tips?",  # "about to": a plan, no topic
    "下周去青岛，有啥推荐的？",  # a verb: a plan for another day
    "这个周末，我想去爬山，有什么推荐？",
])
def test_a_statement_before_a_question_is_still_kept(text: str) -> None:
    assert assess(text, speaker="user").remember


def test_the_question_is_not_stored_nor_recalled_for_food_requests(container: Container, tenant: str) -> None:
    """The audit's live chat: after the question, food requests recalled it first, above the allergy."""
    allergy = "I'm severely allergic to peanuts."
    container.ingest.ingest_turn(tenant, TurnInput(user_id="mei", session_id="s0", speaker="user", text=allergy))
    result = container.ingest.ingest_turn(tenant, TurnInput(
        user_id="mei", session_id="s1", speaker="user", text="Ok and for tomorrow's lunch, what should I order?"))
    assert not result.remembered
    for question in ("Any dessert ideas for tonight?", "What should I bake for the party?"):
        recalled = container.recall.recall(tenant, RecallRequest(user_id="mei", query=question, k=5))
        assert [m.memory.text for m in recalled.memories] == [allergy], (question, recalled.reason)
