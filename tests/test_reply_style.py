"""How the user wants to be answered (ingest/reply_style.py): read from what they said to the assistant, stored as
(user, reply_style, ...), and brought along by every later request for help or advice, however far its words are
(the blind conversations: "i'm so overwhelmed today. any advice?" after "pls dont tell me to do 'self care'"), yet
never by itself a reason to answer: a request nothing else relates to stays gated."""

from __future__ import annotations

import uuid

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.extract import USER, RuleTripleExtractor, single_valued_slot
from ingest.reply_style import reply_style, reply_style_axis
from ingest.salience import assess
from ingest.slots import REPLY_STYLE, asks_own_fact
from ingest.turns import TurnInput
from tests.test_slot_meaning import asked_by


@pytest.mark.parametrize(("clause", "style"), [
    ("also pls dont tell me to do 'self care' lol my therapist says it every week", "don't tell me to do 'self care'"),
    ("and please don't tell me to invest in crypto, my cousin keeps pushing that", "don't tell me to invest in crypto"),
    ("please keep your answers short", "keep your answers short"),
    ("please be blunt with me", "please be blunt with me"),
    ("can you make it shorter", None),  # the draft at hand, no standing wish
    ("i just want practical stuff", "i just want practical stuff"), ("can you answer in English?", "answer in English"),
    ("你能不能回答的时候字打少一点 我眼睛不好", "回答的时候字打少一点"), ("你说话直接点", "说话直接点"),
    ("别老夸我", "别老夸我"), ("用英文回答", "用英文回答"),
    # the conventions of the user's code: how the code written for them must be
    ("nice。我们 codebase 禁止 unwrap()，所有错误都要 ? 往上抛", "我们 codebase 禁止 unwrap()"),
    ("our codebase bans raw SQL queries", "our codebase bans raw SQL queries"), ("我们公司禁止加班", None),
    # someone else's words, or no instruction at all
    ("my boss said keep it short", None), ("他说别老夸我", None), ("I want to be honest", None),
    ("just tell me what to do", None), ("我想吃点甜的", None),
    # the other way: longer, gentler
    ("actually, give me more detailed answers from now on", "give me more detailed answers"),
    ("you can go into more detail", "you can go into more detail"),
    ("you can be gentler with me", "be gentler with me"),
    ("回答详细一点", "回答详细一点"), ("说话温柔点", "说话温柔点"),
    # how what is written for them should sound, or hold (blind 5: a clinic's Google review reply, an R user's plot)
    ("我 prefer 简洁 professional 的 tone, 不要 too salesy", "我 prefer 简洁 professional 的 tone"),
    ("I prefer a warm, professional tone", "I prefer a warm, professional tone"), ("not too salesy", "not too salesy"),
    ("I use R for everything. Please don't give me Python examples.", "don't give me Python examples"),
    ("please, no jargon", "please, no jargon"), ("语气简洁专业一点", "语气简洁"),
    ("帮我写个文案 不要太营销", "不要太营销"),
    ("I like the tone of that article", None), ("I like her tone", None), ("我不要太辣的", None),
    ("we have no bullet points in the spec", None),
])
def test_reply_style(clause: str, style: str | None) -> None:
    assert reply_style(clause) == style


@pytest.mark.parametrize(("style", "axis"), [
    ("keep your answers short", "length"), ("give me more detailed answers", "length"),
    ("回答的时候字打少一点", "length"),
    ("回答详细一点", "length"), ("please be blunt with me", "tone"), ("be gentler with me", "tone"),
    ("说话直接点", "tone"), ("answer in English", "language"), ("用中文回答", "language"),
    # these add up: no way one at a time
    ("别老夸我", None), ("don't tell me to do 'self care'", None), ("我们 codebase 禁止 unwrap()", None),
    ("i just want practical stuff", None),
])
def test_a_reply_style_points_one_way_at_a_time(style: str, axis: str | None) -> None:
    assert reply_style_axis(style) == axis
    slot = single_valued_slot(REPLY_STYLE, style)
    assert slot == (f"{REPLY_STYLE}:{axis}" if axis else None)


def test_a_reply_style_said_as_a_request_is_remembered() -> None:
    kept = assess("Actually, give me more detailed answers from now on.", speaker="user")
    assert kept.remember and kept.reason == "personal"
    assert not assess("Can you make this email shorter?", speaker="user").remember  # the draft at hand


def test_a_reply_style_is_a_triple_of_the_users_though_said_as_a_request() -> None:
    said = RuleTripleExtractor().extract("你说话直接点 别老夸我 我需要的是挑毛病")
    found = {(t.subject, t.predicate, t.object) for t in said}
    assert found == {(USER, REPLY_STYLE, "说话直接点"), (USER, REPLY_STYLE, "别老夸我")}


def test_how_to_answer_is_no_fact_asked() -> None:
    assert not asks_own_fact((REPLY_STYLE,), "any advice?")


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def test_a_request_brings_the_reply_style_along_but_never_opens_the_gate(container: Container, tenant: str,
                                                                           user: str) -> None:
    for i, text in enumerate(("how do i explain to an 8 year old that his dad and i are getting divorced",
                              "also pls dont tell me to do 'self care' lol my therapist says it every week. "
                              "i just want practical stuff",
                              "i'm a paralegal so i know the legal side, its the emotional side thats killing me")):
        container.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id="s1", speaker="user", text=text,
                                                       turn=i))
    asked = asked_by(container, "i'm so overwhelmed today. any advice?")
    assert asked[-1:] == (REPLY_STYLE,)
    result = container.recall.recall(tenant, RecallRequest(user_id=user, query="i'm so overwhelmed today. any advice?"))
    assert not result.gated, result.reason
    style = [m for m in result.memories if "self care" in m.memory.text]
    assert style and "reply_style" in style[0].why, [(m.memory.text, m.why) for m in result.memories]
    # a request nothing the user said relates to: gated, the reply style notwithstanding
    general = container.recall.recall(tenant, RecallRequest(user_id=user, query="Explain how a bill becomes a law"))
    assert general.gated and general.memories == [], general.reason
