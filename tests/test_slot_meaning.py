"""A slot question in words no pattern reads ("Which town am I living in at the moment?", 我在哪个城市定居？) asks for
its slot by meaning: the example question of ingest/slots.py SLOT_EXAMPLES its embedding lies closest to
(ingest/slot_meaning.py). Each such question was gated ("nothing relates") although a memory stated the answer.
First the matching alone on toy vectors, then with the embedding model, then through ingest and recall against the
real Neo4j."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.slot_meaning import SlotExamples
from ingest.slots import DIET, FAMILY, FOOD_DISLIKE, FOOD_LIKING, MUSIC, OCCUPATION, REPLY_STYLE, asked_slots
from ingest.turns import TurnInput
from tests.test_routine_conflicts import START

TOY = {"where do I live": [1.0, 0.0, 0.0], "my home city": [0.8, 0.6, 0.0], "my pet": [0.0, 0.0, 1.0]}
TOY_EXAMPLES = ((("lives_in",), ("where do I live", "my home city")), (("pet",), ("my pet",)))


def toy_slots(threshold: float | None) -> tuple[SlotExamples, list[str]]:
    embedded: list[str] = []

    def embed(text: str) -> np.ndarray:
        embedded.append(text)
        return np.asarray(TOY[text], dtype=np.float32)

    return SlotExamples(embed, threshold, TOY_EXAMPLES), embedded


def asked_by(container: Container, text: str) -> tuple[str, ...]:
    """RecallUseCases.asked_slots given the input's embedding as recall gives it: a list of floats."""
    return container.recall.asked_slots(text, [float(x) for x in container.embedder.embed_query(text)])


def test_the_closest_example_gives_the_slots_when_close_enough() -> None:
    slots, embedded = toy_slots(0.55)
    assert slots.asked([0.6, 0.8, 0.0]) == ("lives_in",)  # closest to "my home city" (0.96)
    assert slots.asked([0.0, 0.6, 0.8]) == ("pet",)  # closest to "my pet" (0.8)
    assert slots.asked([0.3, 0.0, -0.95]) == ()  # nothing reaches 0.55
    assert embedded == ["where do I live", "my home city", "my pet"]  # each example embedded once, at first use
    stricter, _ = toy_slots(0.85)
    assert stricter.asked([0.0, 0.6, 0.8]) == ()  # "my pet" at 0.8 is the closest, not close enough


def test_without_a_calibrated_cosine_only_the_patterns_read_slots() -> None:
    slots, embedded = toy_slots(None)
    slots.prepare()
    assert slots.asked([1.0, 0.0, 0.0]) == ()
    assert embedded == []


def test_prepared_examples_are_not_embedded_again() -> None:
    slots, embedded = toy_slots(0.55)
    slots.prepare()  # the plan warm-up's call: no question waits for the examples
    assert embedded == ["where do I live", "my home city", "my pet"]
    assert slots.asked([1.0, 0.0, 0.0]) == ("lives_in",)
    assert len(embedded) == 3


@pytest.mark.parametrize(("question", "asked"), [
    ("Which town am I living in at the moment?", ("lives_in",)),
    ("Where am I residing these days?", ("lives_in",)),
    ("我在哪个城市定居？", ("lives_in",)),
    ("What kind of work do I do?", ("works_at", OCCUPATION)),
    ("我平常靠什么谋生？", ("works_at", OCCUPATION)),
    ("What kind of tunes do I enjoy?", (MUSIC,)),
    ("我一般听哪类歌？", (MUSIC,)),
    ("Have I got any pets?", ("pet",)),
    ("Where did I fly to on my last vacation?", ("visited",)),
])
def test_a_paraphrase_no_pattern_reads_asks_for_its_slot(container: Container, question: str,
                                                         asked: tuple[str, ...]) -> None:
    assert asked_slots(question) == ()  # the patterns miss it
    assert asked_by(container, question) == asked


@pytest.mark.parametrize("question", [
    "Which city has the best food?",  # close to "Which city do I live in?" (0.67), but not about the user
    "What is the capital of Australia?",
    "How do black holes form?",
    "How do I renew my passport?",
    "我该怎么开始理财？",
    "What's the weather like in Paris?",
    # an open preference: closest to "What food don't I eat?" (0.8) until the table held it as no slot
    "What snacks do I enjoy?",
    "我爱吃哪些零食？",
    # advice or a plan: by meaning alone the user's name (0.56) and where they study (0.57)
    "What should I name my startup?",
    "我想学吉他，应该从哪开始？",
])
def test_other_input_asks_for_no_slot(container: Container, question: str) -> None:
    assert facts(asked_by(container, question)) == ()


def facts(asked: tuple[str, ...]) -> tuple[str, ...]:
    """The user's facts asked, without how they want to be answered (which every request asks for too)."""
    return tuple(p for p in asked if p != REPLY_STYLE)


@pytest.mark.parametrize(("text", "request_"), [
    ("How do I renew my passport?", True), ("帮我写一首关于秋天的诗", True),
    ("i'm so overwhelmed today. any advice?", True),
    ("Where do I live?", False), ("What is the capital of Australia?", False),
])
def test_a_request_asks_how_the_user_wants_to_be_answered(container: Container, text: str, request_: bool) -> None:
    asked = asked_by(container, text)
    assert (REPLY_STYLE in asked) is request_ and asked[-1:] == ((REPLY_STYLE,) if request_ else asked[-1:])


@pytest.mark.parametrize(("request_", "asked"), [
    # a meal must respect an allergy, a condition, the foods refused, a diet; what the user likes shapes it
    # (晚上叫个外卖吧，你帮我选 is read by the words now: tests/test_food_requests.py)
    ("Could you suggest something for me to cook tonight?",
     ("allergic_to", "has_condition", "not eats", DIET, FOOD_DISLIKE, FOOD_LIKING)),
    # a CV or a cover letter is about the job, the team included
    ("帮我写份简历，突出一下工作经历", ("works_at", OCCUPATION, "on_team")),
    ("Help me polish my CV", ("works_at", OCCUPATION, "on_team")),
    # a playlist follows the user's music
    ("给我推荐点适合跑步听的歌", (MUSIC,)),
])
def test_a_request_the_users_facts_shape_asks_for_them(container: Container, request_: str,
                                                       asked: tuple[str, ...]) -> None:
    assert asked_slots(request_) == ()  # the patterns miss it
    assert facts(asked_by(container, request_)) == asked


@pytest.mark.parametrize("request_", [
    # requests no fact of the user shapes, each the closest the eval's unrelated ones came to an example
    "帮我起草一封请假邮件", "帮我写一首关于秋天的诗", "Recommend some books on economics", "推荐一部电影",
    "Recommend a good movie", "How do I start writing a novel?", "Plan a trip to Japan for me",
    "How do I delete my LinkedIn account?",
])
def test_other_requests_ask_for_no_slot(container: Container, request_: str) -> None:
    assert facts(asked_by(container, request_)) == ()


def test_the_patterns_come_first(container: Container) -> None:
    # the family is what the patterns read; by meaning alone it was the user's own job (0.68)
    question = "What do my parents do for work?"
    assert asked_by(container, question) == FAMILY


@pytest.mark.parametrize(("question", "answer"), [
    ("Which town am I living in at the moment?", "I've been living in Lisbon for three years now."),
    ("我在哪个城市定居？", "I've been living in Lisbon for three years now."),
    ("What kind of tunes do I enjoy?", "I mostly listen to jazz, especially Miles Davis."),
])
def test_recall_answers_a_paraphrased_slot_question(container: Container, tenant: str, question: str,
                                                     answer: str) -> None:
    for i, text in enumerate(["I've been living in Lisbon for three years now.",
                              "I mostly listen to jazz, especially Miles Davis.", "Yesterday I fixed the leaking tap.",
                              "My sister works as a nurse in Porto."]):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s1", speaker="user", text=text,
                                                       at=START + timedelta(minutes=i)))
    result = container.recall.recall(tenant, RecallRequest(user_id="ann", query=question))
    assert not result.gated, result.reason
    assert result.memories[0].memory.text == answer
    assert "states the user's" in result.memories[0].why


@pytest.mark.parametrize(("request_", "answer"), [
    ("Could you suggest something for me to cook tonight?", "Doctor says I've got type 2 diabetes now."),
    ("Is there a decent dentist close to where I live?", "We live in Leeds now, near the university."),
    ("晚上叫个外卖吧，你帮我选", "Doctor says I've got type 2 diabetes now."),
])
def test_recall_brings_the_fact_a_request_needs(container: Container, tenant: str, request_: str,
                                               answer: str) -> None:
    # each request was gated ("nothing relates", best cosine 0.2-0.3) with the fact stored
    for i, text in enumerate(["We live in Leeds now, near the university.", "Doctor says I've got type 2 diabetes now.",
                              "Yesterday I fixed the leaking tap.", "My sister works as a nurse in Porto."]):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s1", speaker="user", text=text,
                                                       at=START + timedelta(minutes=i)))
    result = container.recall.recall(tenant, RecallRequest(user_id="ann", query=request_))
    assert not result.gated, result.reason
    assert result.memories[0].memory.text == answer
