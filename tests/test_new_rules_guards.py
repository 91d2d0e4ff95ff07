"""What a review of the new rules (periods, pastes, routines, diet, pets, stopped habits, the cessation line) found
them doing wrong, each input as it was found, pure: now right, or left as it was before the rule."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.model import MemoryType, PresetKind
from ingest.classify import RuleClassifier
from ingest.conflict_rules import (
    Fact,
    Similar,
    cancellation_conflict,
    negation_conflict,
    pet_gone_conflict,
    reschedule_conflict,
    stopped_conflict,
)
from ingest.extract import RuleTripleExtractor
from ingest.extract_routines import routine_facts
from ingest.lexicon import SEQUENCE_STEP_RE
from ingest.periods import asked_period
from ingest.salience import assess
from ingest.scoring import is_personal
from ingest.slots import asked_slots

EXTRACTOR = RuleTripleExtractor()
CLASSIFIER = RuleClassifier()


@pytest.mark.parametrize("text", [
    "warning: I'm pregnant, don't suggest alcohol",  # a log-shaped line that speaks of the user
    "error: I'm allergic to shellfish",
    "let me search for a gluten-free one since I'm celiac",  # "let me ..." with more after it
    "Let me check with my wife Anna",
    "let me run it by my husband Tom first",
])
def test_the_users_words_are_no_paste_or_session_talk(text: str) -> None:
    assert assess(text, speaker="user").remember


@pytest.mark.parametrize("text", [
    "My grandpa Max passed away last night",  # someone of the same name
    "My neighbour's dog Max died yesterday",
    "Max passed his obedience test today!",  # "passed" alone
    "I had to put down Max's favourite toy because it was broken",  # a thing of the pet's
    "Max ran away from the vet and we found him two hours later",  # found again
    "Max走了好久才到家",  # walked
    "Max昨天跑丢了，还好找回来了",
])
def test_the_pet_is_not_gone(text: str) -> None:
    assert pet_gone_conflict(text, Fact("old", "user", "pet", "Max", 1)) is None


@pytest.mark.parametrize(("new", "old"), [
    ("I quit my job at Google last month", "My brother works at Google as a data scientist"),  # his
    ("我戒烟了", "我爸爸抽烟很厉害，我很担心他"),
    ("I stopped drinking coffee after 2pm", "I drink two cups of coffee every morning"),  # for some times
    ("I quit Instagram for Lent", "I post my latte art on Instagram"),  # for a while
    ("I stopped running because of my knee", "My knee surgery is scheduled for March 3rd"),  # the reason
    ("I quit my job to focus on my startup", "I'm building a startup on weekends"),  # the purpose
    # thought of, not done (session 33: "Should I quit keto?" ended "I'm doing keto")
    ("Should I quit keto?", "I'm doing keto, no bread or pasta for me."),
    ("Maybe I should give up on Spanish", "I'm learning Spanish on Duolingo."),
    ("Wow. Should I quit keto? I wonder.", "I'm doing keto, no bread or pasta for me."),
])
def test_no_habit_of_the_old_memory_was_stopped(new: str, old: str) -> None:
    assert stopped_conflict(new, Similar("old", old, 0.5), 0.35) is None


@pytest.mark.parametrize("new", ["I quit keto, should I restart?", "I gave up on keto. Should I try paleo?",
                                 "I stopped keto in February, I eat carbs again."])
def test_a_stop_said_beside_a_question_still_stops(new: str) -> None:
    assert stopped_conflict(new, Similar("old", "I'm doing keto, no bread or pasta for me.", 0.5), 0.35)


@pytest.mark.parametrize(("new", "old", "cosine"), [
    ("I don't work at Google anymore, I moved to Meta", "My husband works at Google", 0.70),  # his
    ("My mom no longer drives", "I drive my mom to her appointments every Tuesday", 0.72),  # hers
    ("I don't have time for piano anymore this month", "I practice piano every evening", 0.72),  # for a while
])
def test_the_lower_cessation_line_is_for_the_users_own_change(new: str, old: str, cosine: float) -> None:
    assert negation_conflict(new, Similar("old", old, cosine), 0.75) is None


@pytest.mark.parametrize("text", [
    "I have a Pixel Buds", "I got a Galaxy Watch for my birthday", "I bought an iPhone case", "我买了小米手环",
    "I have a Mini fridge in my dorm", "I got a Honda generator for camping", "I have a Golf lesson on Saturday",
    "我给我爸买了一部华为Mate 60", "我买了一辆小鹏给老婆",  # things of a maker; someone else's
    "I'll take the train to work tomorrow because my car is in the shop", "I take the bus to work when it rains",
    "I walk to work on Fridays", "下雨天我坐公交去上班",  # some days only
    "I take around 200 mg of caffeine a day", "I take 100 mg of vitamin B6", "The vet increased my Rex to 10 mg",
    "我的猫吃的药调到了5毫克",  # no medicine of the user's
])
def test_no_routine_or_thing_is_read(text: str) -> None:
    assert routine_facts(text) == []


def test_a_dose_said_with_about_names_the_medicine() -> None:
    assert routine_facts("I'm on about 10 mg of Lexapro") == [("takes_dose", "Lexapro 10 mg")]


@pytest.mark.parametrize("question", [
    "What was I going to do this weekend?",  # a plan, told before the period
    "What did I say I was going to do on Saturday?",
])
def test_a_plan_asked_about_is_no_past_period(question: str) -> None:
    assert asked_period(question, datetime(2026, 12, 9, 10, tzinfo=UTC)) is None


@pytest.mark.parametrize("question", ["我上周一直在忙什么？", "我上周一共跑了几次步？", "上周一起吃饭的那个人叫什么？"])
def test_last_week_is_not_last_monday(question: str) -> None:
    p = asked_period(question, datetime(2026, 12, 9, 10, tzinfo=UTC))
    assert p is not None and p.words == "上周" and (p.end - p.start).days == 7


@pytest.mark.parametrize("text", ["I'm Tim, a student at Stanford", "I'm Joe, a member at Equinox"])
def test_a_name_and_a_role_that_is_no_job_name_no_employer(text: str) -> None:
    assert not {t.predicate for t in EXTRACTOR.extract(text)} & {"works_at", "is_a"}


@pytest.mark.parametrize(("new", "old"), [
    ("他不去北京了", "我下周去北京出差"),
    ("我妈不去医院了，好多了", "我明天要去医院复查"),
    ("我老公这周末不去钓鱼了", "我这周末打算去钓鱼"),
    ("我们今天不去超市了", "周六我们打算去超市买菜"),
])
def test_someone_elses_or_todays_change_cancels_no_plan(new: str, old: str) -> None:
    assert cancellation_conflict(new, Similar("old", old, 0.6), 0.35) is None


def test_someone_else_moving_his_party_moves_no_plan_of_the_user() -> None:
    old = Similar("old", "My birthday party is on Saturday at 7", 0.6)
    assert reschedule_conflict("Tom moved his birthday party to Saturday", old, 0.35) is None


@pytest.mark.parametrize(("text", "preset"), [
    ("Decision: I'm skipping the gym tonight", PresetKind.TEMPORARY),
    ("I'm switching to decaf for this week", PresetKind.TEMPORARY),
])
def test_a_decision_for_tonight_stays_temporary(text: str, preset: PresetKind) -> None:
    assert assess(text, speaker="user").preset_kind is preset


@pytest.mark.parametrize("question", [
    "how much water should i take on a hike", "how much time should i take off for my wedding",
    "我每天吃几个鸡蛋比较好？", "How should I get to the office from the airport?",
])
def test_no_dose_or_commute_is_asked(question: str) -> None:
    assert not set(asked_slots(question)) & {"takes_dose", "commutes_by"}


@pytest.mark.parametrize("question", ["How many bones are in our body?", "How does our heart pump blood?",
                                      "Who wrote our national anthem?"])
def test_our_of_everyone_is_no_question_about_the_user(question: str) -> None:
    assert not is_personal(question)


@pytest.mark.parametrize("text", ["I had a procedure on my knee last week", "Here's how we met: at a bar in Lisbon",
                                  "我先生昨天加班到很晚，然后早早睡了", "Next test is on Friday"])
def test_no_procedure(text: str) -> None:
    found = CLASSIFIER.classify(text)
    assert found is None or found[0] is not MemoryType.PROCEDURAL


@pytest.mark.parametrize("text", ["Next test is on Friday", "First call with the new client went great",
                                  "Next release is in March", "Finally move into our new flat on Saturday"])
def test_a_step_word_before_a_noun_is_no_step(text: str) -> None:
    assert SEQUENCE_STEP_RE.fullmatch(text) is None
