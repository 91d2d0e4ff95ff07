"""A liking asked for by its kind: "Which sport am I into these days?", "What do I listen to?", 我平时听什么歌
(ingest/slots.py SPORT, MUSIC), answered by the memories whose likes name a sport or a kind of music
(ingest/extract_core.py is_sport, is_music); and a switch between sports said in passing ("I've stopped tennis and
switched to swimming", 我现在不怎么打乒乓球了，改成羽毛球了), read as the one no longer and the other now. Each
question was gated or answered by an unrelated memory, and each switch read nothing. First the rules alone, with the
near misses that must not fire, then through ingest and recall against the real Neo4j."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.extract_core import is_music, is_sport
from ingest.lexicon import is_question
from ingest.slots import MUSIC, SPORT, answered, asked_slots, stored_predicates
from ingest.turns import TurnInput
from tests.test_routine_conflicts import START, told_then_changed, triples


@pytest.mark.parametrize(("question", "asked"), [
    ("Which sport am I into these days?", (SPORT,)),
    ("What sport do I do now?", (SPORT,)),
    ("What's my favourite sport?", (SPORT,)),
    ("What do I do for exercise?", (SPORT,)),
    ("我现在喜欢什么运动？", (SPORT,)),
    ("我最近在练什么运动？", (SPORT,)),
    ("What kind of music do I like?", (MUSIC,)),
    ("What do I listen to?", (MUSIC,)),
    ("我喜欢听什么音乐？", (MUSIC,)),
    ("我平时听什么歌？", (MUSIC,)),
    ("What sport does my son play?", ("child",)),  # the son's, not the user's
    ("我儿子喜欢什么运动？", ("child",)),
    ("Should I buy my sports car?", ("drives",)),  # the car, no sport
    ("How is my sports injury healing?", ()),
    ("Do you like music?", ()),
    ("What should I listen to?", ()),  # a recommendation, no fact of the user's
    ("What did I listen to yesterday?", ()),
])
def test_the_questions_that_ask_for_a_liking_by_its_kind(question: str, asked: tuple[str, ...]) -> None:
    assert asked_slots(question) == asked


def test_a_liking_answers_only_when_it_names_the_kind_asked() -> None:
    assert stored_predicates((SPORT,)) == stored_predicates((MUSIC,)) == ("likes",)
    assert answered((SPORT,), ("likes",), ["tennis", "swimming"]) == ("likes",)
    assert answered((SPORT,), ("likes",), ["coffee"]) == ()  # "I love coffee" is no sport
    assert answered((MUSIC,), ("likes",), ["听爵士乐", "邓丽君"]) == ("likes",)
    assert answered((MUSIC,), ("likes",), ["tennis"]) == ()
    # the memory that ended a liking (the switch to swimming) answers by what it names, as the liking would
    assert answered((MUSIC,), ("likes (ended)",), ["tennis", "swimming"]) == ()
    assert answered((SPORT,), ("likes (ended)",), ["tennis", "swimming"]) == ("likes (ended)",)
    assert answered(("likes", SPORT), ("likes",), ["coffee"]) == ("likes",)  # asked as such too (about me)


@pytest.mark.parametrize(("term", "sport", "music"), [
    ("tennis", True, False), ("playing tennis", True, False), ("rock climbing", True, False),
    ("打羽毛球", True, False), ("跑步", True, False), ("瑜伽课", True, False),
    ("jazz", False, True), ("smooth jazz", False, True), ("听爵士乐", False, True), ("古典音乐", False, True),
    ("Miles Davis", False, False), ("coffee", False, False), ("basketball shoes", False, False),
    ("乡村生活", False, False), ("流行病", False, False),
])
def test_what_names_a_sport_or_a_kind_of_music(term: str, sport: bool, music: bool) -> None:
    assert (is_sport(term), is_music(term)) == (sport, music)


@pytest.mark.parametrize(("text", "expected"), [
    ("I've stopped tennis and switched to swimming, it suits me better.",
     {("user", "likes", "tennis", -1), ("user", "likes", "swimming", 1)}),  # it read nothing
    ("I stopped playing basketball and switched to cycling.",
     {("user", "likes", "basketball", -1), ("user", "likes", "cycling", 1)}),
    ("我现在不怎么乒乓球了，改成羽毛球了，感觉更适合我。",
     {("user", "likes", "乒乓球", -1), ("user", "likes", "羽毛球", 1)}),  # it read nothing (不怎么 was a question)
    ("我最近不怎么跑步了，换成游泳了。", {("user", "likes", "跑步", -1), ("user", "likes", "游泳", 1)}),
    ("I mostly listen to jazz, especially Miles Davis.",
     {("user", "likes", "jazz", 1), ("user", "likes", "Miles Davis", 1)}),  # it read nothing
    ("I listen to podcasts on my commute.", set()),  # no kind of music
    ("I stopped working at Google and switched to Meta.", set()),  # no sport
    ("I quit smoking and switched to vaping.", set()),
    ("我现在不怎么加班了，改成远程了。", set()),
    ("会议不开了，改成明天了。", set()),
])
def test_a_switch_between_sports_and_the_music_listened_to(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert {t for t in triples(text) if t[1] == "likes"} == expected


def test_not_much_is_no_question() -> None:
    assert not is_question("我现在不怎么打乒乓球了")
    assert not is_question("他最近没怎么吃东西")
    assert is_question("你怎么不去了")
    assert is_question("怎么做饭")


@pytest.mark.parametrize(("old", "new", "question"), [
    ("My favourite sport is tennis, I practise every week.", "I've stopped tennis and switched to swimming, it suits "
     "me better.", "Which sport am I into these days?"),
    ("我最喜欢的运动是乒乓球，每周都练。", "我现在不怎么乒乓球了，改成羽毛球了，感觉更适合我。",
     "我现在喜欢什么运动？"),
])
def test_the_switch_supersedes_and_recall_answers_with_it(container: Container, tenant: str, old: str, new: str,
                                                         question: str) -> None:
    told_then_changed(container, tenant, old, new, after=timedelta(days=30))
    answer = container.recall.recall(tenant, RecallRequest(user_id="ann", query=question))
    assert not answer.gated and answer.memories[0].memory.text == new
    assert old not in [m.memory.text for m in answer.memories]


def test_the_music_the_user_listens_to_answers_what_they_listen_to(container: Container, tenant: str) -> None:
    for i, text in enumerate(["I mostly listen to jazz, especially Miles Davis.", "I love coffee in the morning.",
                              "My sister plays the violin in an orchestra."]):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id="s1", speaker="user", text=text,
                                                       at=START + timedelta(minutes=i)))
    answer = container.recall.recall(tenant, RecallRequest(user_id="ann", query="What do I listen to?"))
    assert not answer.gated
    assert answer.memories[0].memory.text == "I mostly listen to jazz, especially Miles Davis."
    assert "states the user's likes" in answer.memories[0].why
