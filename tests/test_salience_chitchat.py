"""Filter 1 drops turns that only manage the conversation (acknowledge, react, agree, steer), in zh and en,
and still keeps a short turn as soon as it carries something that could be a fact about the user.

Pure: ingest.salience.assess only, no Neo4j. The sentences are written for this file (none is in tests/data).
"""

from __future__ import annotations

import pytest

from graph.model import PresetKind
from ingest import salience
from ingest.lexicon import is_question, normalize_text
from ingest.salience import _DISCOURSE_MAX_CHARS, assess, is_discourse_only


@pytest.mark.parametrize(
    "text",
    [
        # acknowledgements and reactions
        "Sure, go ahead",
        "That is interesting",
        "Interesting, tell me more",
        "That sounds great",
        "Oh really",
        "Fair enough",
        "No worries",
        "Good point",
        "That's a good idea",
        "Not bad",
        "That’s so cool",  # typographic apostrophe
        "Exactly",
        "Totally agree",
        "You're right",
        "Oh my god, that's amazing",
        "OK, that works for me",
        "Thank you for the explanation",
        "ok 👍",
        # steering the conversation
        "Let's talk about something else",
        "So anyway, moving on",
        "Go on",
        "Let me think about it",
        "I'll think about it",
        "I see what you mean",
        "Never mind that",
        "Don't worry about it",
        # Chinese
        "好的，继续",
        "有意思",
        "挺有意思的",
        "我们聊点别的吧",
        "咱们换个话题吧",
        "再多说一点",
        "哈哈",
        "嗯嗯",
        "明白了",
        "没问题",
        "好吧",
        "谢谢你的建议",
        "哇，太棒了",
        "原来是这样",
        "说得很对",
        "我懂你的意思",
        "那就这样吧",
        # mixed
        "ok 好的，got it",
        "嗯嗯 makes sense",
    ],
)
def test_conversational_turns_are_not_remembered(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert not verdict.remember, (text, verdict)
    assert verdict.reason == "chitchat", (text, verdict.reason)


@pytest.mark.parametrize(
    "text",
    [
        "I'm fine with spicy food",
        "好的，我下周去北京出差",
        "Sure, my sister is a nurse",
        "Interesting, I used to live in Paris",
        "OK, I'm vegetarian",
        "Yeah, I have two cats",
        "Cool, I play the guitar",
        "No, I live in Toronto",
        "Thanks, I'm allergic to peanuts",
        "That's interesting, my dad is a chemist",
        "I agree, I can't stand cilantro",
        "I know Python",
        "I speak French",
        "I get up at six every day",
        "嗯，我是程序员",
        "哈哈，我也喜欢猫",
        "对，我在上海工作",
        "好吧，我明天要考试",
        "我知道一家很好吃的火锅店",
        "我懂日语",
        "谢谢，我女儿今天过生日",
        "有意思，我小时候在成都住过",
        "Whales are mammals",
        "火锅起源于重庆",
    ],
)
def test_a_short_turn_with_a_fact_is_still_kept(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert verdict.remember, (text, verdict)


@pytest.mark.parametrize(
    "text",
    [
        # the speaker's own verb of moving or changing, with no conversation complement: a plan
        "We will move again",
        "I'll change",
        "I will switch",
        "We are going to move",
        "We'll move back",
        "I think we'll move again",
        "I'd like to switch",
        "I'll make a change",
        # Chinese: 我们换 / 咱们换 without a topic or a hortative 吧
        "我们换了",
        "咱们换了",
        "嗯，我们换了",
    ],
)
def test_a_plan_to_move_or_change_is_kept(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert verdict.remember, (text, verdict)
    assert verdict.reason == "personal", (text, verdict.reason)


@pytest.mark.parametrize(
    "text",
    [
        "Let's move on",
        "We'll move on",
        "I'll change the subject",
        "I'd like to change the topic",
        "I think we should move on",
        "Let's switch topics",
        "Let's switch gears",
        "we'll switch to something else",
        "I agree, that's a good move",
        "我们换个话题吧",
        "咱们换吧",
        "我们换个别的吧",
        "好的，我们换个话题",
    ],
)
def test_steering_with_a_verb_of_change_is_still_dropped(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert not verdict.remember, (text, verdict)
    assert verdict.reason == "chitchat", (text, verdict.reason)


def test_the_fact_is_kept_without_the_acknowledgement_around_it() -> None:
    """The discourse clause is dropped from the statement, the fact clause decides kind and reason."""
    assert assess("Sure, my sister is a nurse", speaker="user").reason == "personal"
    assert assess("好的，我对花生过敏", speaker="user").reason == "safety"
    assert assess("Great, I love hiking", speaker="user").reason == "preference"


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("That is interesting", True),
        ("I see", True),
        ("we'll see", True),
        ("tell me more", True),
        ("我们聊点别的吧", True),
        ("👍", True),
        # the speaker as a subject needs a verb of understanding / agreeing / talking
        ("I'm fine", False),
        ("I go", False),
        ("I worry", False),
        ("my point", False),
        ("我很好", False),  # a lone 我 is left over
        # anything outside the vocabulary may be a fact
        ("That is Paris", False),
        ("I have 2", False),
        ("Work is fine", False),
        ("好冷", False),
        ("好的我下周去北京", False),
        # a verb of changing or moving is the speaker's discourse only with a conversation complement
        ("I'll change the subject", True),
        ("we'll move on", True),
        ("I agree that's a good move", True),  # a noun, not the speaker's verb
        ("I'll change", False),
        ("we are going to move", False),
        ("gears are cool", False),  # a steering complement only after a verb of change
        ("我们换吧", True),
        ("我们换了", False),
        ("我们换了吧", False),
    ],
)
def test_is_discourse_only(clause: str, expected: bool) -> None:
    assert is_discourse_only(clause) is expected


def test_chitchat_repeated_stays_chitchat() -> None:
    assert not assess("That sounds great", speaker="user", repeated=True).remember
    assert not assess("有意思", speaker="user", repeated=True).remember


def test_requests_and_questions_keep_their_reason() -> None:
    assert assess("continue", speaker="user").reason == "request"
    assert assess("继续", speaker="user").reason == "request"
    assert assess("Really?", speaker="user").reason == "question"
    assert assess("wait, what did you mean?", speaker="user").reason == "question"


@pytest.mark.parametrize(("text", "asks"), [
    # "Will" and "May" are names (and a month): followed by a verb they say something
    ("Will got an A in math today.", False),
    ("Will started school today.", False),
    ("May is my sister and she lives in Ohio.", False),
    ("May is my favourite month.", False),
    # an auxiliary still asks
    ("Will you remind me tomorrow", True),
    ("Will it rain tomorrow", True),
    ("May we talk later", True),
])
def test_a_name_that_is_an_auxiliary_does_not_make_a_question(text: str, asks: bool) -> None:
    assert is_question(text) is asks
    assert (assess(text, speaker="user").reason == "question") is asks


def test_long_discourse_looking_text_stays_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """No backtracking: a long run of discourse words is read as content past the cap before any pattern sees it,
    so no pattern ever runs over more than _DISCOURSE_MAX_CHARS (checked by counting, not by the clock)."""
    seen: list[str] = []

    def normalized(text: str) -> str:  # the first step of the pattern work: what reaches it is what they read
        seen.append(text)
        return normalize_text(text)

    monkeypatch.setattr(salience, "normalize_text", normalized)
    assert not is_discourse_only("that is really interesting " * 1200)
    assert not is_discourse_only("好的好的嗯嗯哈哈有意思" * 3000)
    assert seen == []
    # all discourse words either side of the cap: only the length tells them apart
    assert is_discourse_only("that is really interesting " * 7)  # 189 characters
    assert not is_discourse_only("that is really interesting " * 8)  # 216
    assert max(map(len, seen)) <= _DISCOURSE_MAX_CHARS


@pytest.mark.parametrize(("text", "asks"), [
    # 几天 after a verb is "a few days" when said of someone but the listener (the mother's visit was dropped as a
    # question); asked of the listener, or with 吗 / ?, it asks
    ("下周我妈要来杭州住几天", False), ("我们在北京玩几天", False),
    ("你要住几天", True), ("住几天？", True), ("我在北京待几天吗", True),
])
def test_a_few_days_is_no_question(text: str, asks: bool) -> None:
    assert is_question(text) is asks


@pytest.mark.parametrize("text", [
    # signing off and thanking the assistant: each was kept as a memory and recalled for the next "thanks!"
    "thanks, gotta run", "ok that's it for today", "Perfect, that's exactly the format.",
    "Right, thanks for reminding me.", "thanks for the reminder", "Good call", "see you later!",
])
def test_signing_off_and_thanks_are_small_talk(text: str) -> None:
    assert not assess(text, speaker="user").remember


@pytest.mark.parametrize("text", [
    "I gotta run to the vet with Biscuit", "That's it for today, I have a meeting with Anna tomorrow",
    "I have to go to Berlin next week",
])
def test_a_sign_off_with_news_is_kept(text: str) -> None:
    assert assess(text, speaker="user").remember


@pytest.mark.parametrize("text", [
    # a reminder for another day is the user's plan (it was dropped as a request, and Thursday came without it)
    "Remind me to prepare a portfolio case study by Thursday.", "remind me to call mom tomorrow",
    "Could you remind me about the dentist on Friday?", "remind me to pay rent on the 1st", "提醒我明天给妈妈打电话",
    "提醒我周五交报告",
])
def test_a_reminder_for_another_day_is_a_temporary_memory(text: str) -> None:
    verdict = assess(text, speaker="user")
    assert (verdict.remember, verdict.reason, verdict.preset_kind) == (True, "reminder", PresetKind.TEMPORARY)


@pytest.mark.parametrize("text", [
    "remind me to call the dentist at 3",  # today: the session's working memory (tests/data d244)
    "提醒我喝水", "remind me what her name is", "提醒我一下她叫什么",  # a task; asking for a fact
    "remind me what I said about the trip next week", "Remind me next week what we discussed about my budget",
])
def test_a_reminder_for_today_or_a_question_is_no_memory(text: str) -> None:
    assert not assess(text, speaker="user").remember


@pytest.mark.parametrize("text", [
    "I take levothyroxine 50 mcg every morning for my thyroid.", "My doctor increased my levothyroxine to 75 mcg.",
    "我每天早上吃5毫克的氨氯地平",
])
def test_a_medicine_taken_in_doses_is_safety(text: str) -> None:
    # it was a DEFAULT memory (PROCEDURAL), left to fade: what a doctor or a drug interaction must know
    assert assess(text, speaker="user").preset_kind is PresetKind.SAFETY
    for amount in ("The tablet has 200mg of caffeine", "I had 200 mg of caffeine today",
                   "I try to keep my sodium under 2300 mg a day"):  # an amount eaten or drunk is no dose
        assert assess(amount, speaker="user").preset_kind is not PresetKind.SAFETY


@pytest.mark.parametrize("text", ["Make me a moving checklist for a family of four with a dog.",
                                  "Make a packing list for Denver"])
def test_make_me_a_list_is_a_request(text: str) -> None:
    # stored as a FACTUAL memory, it came back for "Do I have any pets?"
    assert assess(text, speaker="user").reason == "request"
    assert assess("I make my own bread every weekend", speaker="user").remember
