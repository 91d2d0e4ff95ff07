"""Small talk recalls nothing, and a feeling with nothing it is about is a passing mood (session 52's long-horizon
audit, M6): "lol" opened the gate by its one term in "Mochi knocked over my coffee this morning lol", "haha ok" by
its cosine 0.36 to a stored 好开心！, which was kept at full weight. Input made only of greetings, thanks, laughter,
acknowledgements or talk about the talk is gated (ingest/salience.py is_small_talk, bmam/usecases/recall.py); a
feeling with nothing it is about is kept, as what carries emotion is, but temporary (salience's _passing_mood). First
the rules alone, then through ingest and recall against the real Neo4j."""

from __future__ import annotations

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from graph.model import PresetKind
from ingest.salience import assess, is_small_talk
from ingest.turns import TurnInput

SMALL_TALK = ["lol", "haha ok", "ok thanks bye", "thanks, bye", "Sure, go ahead", "ok cool", "哈哈哈哈", "好的好的",
              "爱你么么哒", "hi there"]


@pytest.mark.parametrize("text", SMALL_TALK)
def test_small_talk_is_read_as_such(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", [
    "Mochi is so cute lol", "What's my cat's name?", "今天天气怎么样", "好开心！", "我好难过", "I'm so stressed",
    "Where do I live?", "", "?!",
    # a question or a request in the talk's words (no memory of its own: salience) asks as any other
    "What do you know about me?", "What do you think?", "Tell me more", "What about me?",
])
def test_other_input_is_no_small_talk(text: str) -> None:
    assert not is_small_talk(text)


@pytest.mark.parametrize("text", ["好开心！", "So happy!!", "ugh, so tired", "我好烦啊", "I'm so stressed", "累死了😩"])
def test_a_feeling_with_nothing_it_is_about_is_a_passing_mood(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert verdict.remember and verdict.emotional and verdict.preset_kind is PresetKind.TEMPORARY, verdict


@pytest.mark.parametrize("text", ["好开心！终于拿到驾照了🎉", "I'm so stressed about the exam", "I miss my mom",
                                  "跟男朋友吵架了，好烦"])
def test_a_feeling_with_what_it_is_about_is_no_passing_mood(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert verdict.remember and verdict.preset_kind is PresetKind.DEFAULT, verdict


def test_small_talk_recalls_nothing(container: Container, tenant: str) -> None:
    said = ("I have a cat named Mochi.", "Mochi knocked over my coffee this morning lol", "好开心！")
    for i, text in enumerate(said):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="mei", session_id=f"s{i}", speaker="user", text=text))
    for query in ("lol", "haha ok", "好的好的"):
        result = container.recall.recall(tenant, RecallRequest(user_id="mei", query=query, k=5))
        assert result.gated and "small talk" in result.reason, (query, result.reason,
                                                                [m.memory.text for m in result.memories])
    prompt = container.recall.context_prompt(tenant, "mei", "s9", "haha ok")
    assert prompt.gated and "好开心" not in prompt.text
    for query in ("Mochi is so cute lol", "What do you know about me?"):
        result = container.recall.recall(tenant, RecallRequest(user_id="mei", query=query, k=5))
        assert "I have a cat named Mochi." in [m.memory.text for m in result.memories], (query, result.reason)
