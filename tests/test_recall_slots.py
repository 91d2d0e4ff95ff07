"""Slot questions end to end (ingest/slots.py, cypher/recall/slot_answers): a question asking for one of the
user's own facts is answered by the memory whose triple states it, whatever the memory's wording, through
GraphQL and the use-case, never across users, and only for live memories. A question about the user's family
is also answered by the memories naming a family member (cypher/recall/slot_match)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from bmam.client import BmamClient
from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.turns import TurnInput
from tests.ops_support import store_rows


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


def test_a_job_question_is_answered_by_the_job_not_by_any_is_a(client: BmamClient, user: str) -> None:
    """"I'm a vegetarian" states (user, is_a, vegetarian): no answer to "What's my job?" (it came first, at the
    slot stage's 0.7, and after a few recalls had raised its weight it ranked above the job itself)."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I'm a vegetarian, so no meat for me."},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "我在上海工作，是一名软件工程师。"},
    ])
    for question in ("What's my job?", "我是做什么工作的", "do you remember my job?"):
        r = client.recall(user, question)
        texts = [m["memory"]["text"] for m in r["memories"]]
        assert texts[:1] == ["我在上海工作，是一名软件工程师。"], (question, texts)
        assert "I'm a vegetarian, so no meat for me." not in texts, (question, r["memories"])
    about_me = client.recall(user, "What do you know about me?")  # any is_a describes the user
    assert "I'm a vegetarian, so no meat for me." in [m["memory"]["text"] for m in about_me["memories"]]


def test_what_do_you_know_about_me_answers_with_what_describes_the_user(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_conversation(user))
    for question in ("What do you know about me?", "介绍一下我自己"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        # the live memories stating the user's facts (Boston lost to the move, the employer kept in the superseded
        # memory's remains: bmam/usecases/remains.py); not Lily's lessons
        assert sorted(m["memory"]["text"] for m in r["memories"]) == ["Big news: we moved to Seattle last month.",
                                                                      "I work at Moderna"]


def test_what_do_you_know_about_me_reads_each_fact_not_the_ten_newest_likings(container: Container,
                                                                             tenant: str) -> None:
    """Name and home said first, then a dozen likings: the ten newest memories stating any fact asked for were all
    likings, so the name and the home were never read (in a long conversation, "Hi! I'm Mia Chen" was not among the
    first 20). Each fact asked for has its newest memory read first."""
    texts = ["Hi! I'm Mia Chen.", "I live in Cambridge now."] + [
        f"I love {thing}." for thing in ("sushi", "jazz", "hiking", "tea", "chess", "yoga", "ramen", "tennis", "opera",
                                         "kayaking", "pottery", "sci-fi novels")]
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="mia", session_id="s1", speaker="user", text=t) for t in texts])
    found = container.recall.recall(tenant, RecallRequest(user_id="mia", query="What do you know about me?", k=10))
    shown = [m.memory.text for m in found.memories]
    assert "Hi! I'm Mia Chen." in shown and "I live in Cambridge now." in shown, shown


def test_food_advice_brings_the_users_allergy_along(client: BmamClient, user: str) -> None:
    """"Any dessert ideas for tonight?" shares hardly a word or a meaning with "I'm allergic to peanuts" (cosine
    ~0.2: gated before), yet the answer must respect it: food advice asks for the user's allergies and conditions."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": text}
        for text in ("I'm allergic to peanuts.", "I love dark chocolate.", "I work at Moderna.")])
    for question in ("Any dessert ideas for tonight?", "Can you recommend a restaurant for dinner?", "晚饭吃什么好？"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        texts = [m["memory"]["text"] for m in r["memories"]]
        assert "I'm allergic to peanuts." in texts and "I work at Moderna." not in texts, (question, texts)


def test_food_advice_brings_the_food_the_user_refuses_along(client: BmamClient, user: str) -> None:
    """A meal suggested must respect a food refused as it does an allergy: "中午点个外卖 帮我挑挑" (takeout for lunch)
    shares no word with "今天食堂又是葱爆羊肉 我一点葱都不吃" (no scallions, ever), whose denied triple answers it."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": text}
        for text in ("今天食堂又是葱爆羊肉 我一点葱都不吃 饿死了", "我是武大计算机的", "I work at Moderna.")])
    for question in ("中午点个外卖 帮我挑挑", "Any dinner ideas for tonight?"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        texts = [m["memory"]["text"] for m in r["memories"]]
        refused = r["memories"][texts.index("今天食堂又是葱爆羊肉 我一点葱都不吃 饿死了")] if \
            "今天食堂又是葱爆羊肉 我一点葱都不吃 饿死了" in texts else None
        assert refused is not None and "states the user's not eats" in refused["why"], (question, r["memories"])
        assert "I work at Moderna." not in texts, (question, texts)


def test_one_thing_to_eat_or_drink_brings_the_medicines_along(client: BmamClient, user: str) -> None:
    """Whether the user may have grapefruit juice depends on the amlodipine they take (an interaction): "我能喝西柚汁吗"
    shares no word with the dose, which the question reads as it reads an allergy."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": text}
        for text in ("我没有糖尿病 就是高血压 每天早上吃一片氨氯地平", "我每天晚上在小区门口跳广场舞",
                     "I work at Moderna.")])
    r = client.recall(user, "我能喝西柚汁吗")
    assert r["gated"] is False, r["reason"]
    dose = [m for m in r["memories"] if m["memory"]["text"].endswith("氨氯地平")]
    assert dose and "takes_dose" in dose[0]["why"], r["memories"]
    assert all(m["memory"]["text"] != "I work at Moderna." for m in r["memories"])


def test_the_food_the_user_refuses_is_answered_by_the_denied_triple(client: BmamClient, user: str) -> None:
    """"Which food do I avoid?" asks for the user's no to a food: (user, eats, cilantro, -1), a denied triple, where
    every other slot reads affirmed ones; "I eat sushi every week" (eats, affirmed) is no answer."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": text}
        for text in ("I don't eat cilantro, never could stand the taste.", "I eat sushi every week.",
                     "I work at Moderna.")])
    for question in ("Which food do I avoid?", "What don't I eat?", "我忌口什么？"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        texts = [m["memory"]["text"] for m in r["memories"]]
        assert texts[0] == "I don't eat cilantro, never could stand the taste.", (question, texts)
        assert "states the user's not eats" in r["memories"][0]["why"]
        assert "I work at Moderna." not in texts
        assert all("not eats" not in m["why"] for m in r["memories"][1:]), (question, r["memories"])


def test_a_trip_asked_after_is_answered_by_what_the_user_visited(client: BmamClient, user: str) -> None:
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": text}
        for text in ("Last May I went to Lisbon with Anna and we ate custard tarts.",
                     "I work at Moderna.")])
    for question in ("Where did I travel last year?", "Where was my last big trip?"):
        r = client.recall(user, question)
        texts = [m["memory"]["text"] for m in r["memories"]]
        assert texts[:1] == ["Last May I went to Lisbon with Anna and we ate custard tarts."], (question, r)
        assert "states the user's visited" in r["memories"][0]["why"]


def test_where_the_user_is_headed_is_answered_by_the_plan_and_a_plan_dropped_is_not(client: BmamClient,
                                                                                       user: str) -> None:
    """going_to: "for where we'll be this summer" and "pack for my trip" share no word with the plan (the Flagstaff
    memory); a plan dropped later ("not going to Cancun anymore") supersedes the plan it drops."""
    summer = "We've decided to spend summers in Flagstaff from now on, the heat is too much for Walt."
    client.ingest_conversation(_turns(user, [
        "I'm going to Cancun in May with my sister.", "I prefer paper guides in the field.", "I work at Moderna.",
        summer, "I'm not going to Cancun anymore, flights are too expensive."]))
    for question in ("Which bird book should I buy for where we'll be this summer?", "help me pack for my trip"):
        r = client.recall(user, question)
        assert r["gated"] is False, (question, r["reason"])
        texts = _texts(r)
        assert summer in texts[:2], (question, texts)
        assert "I'm going to Cancun in May with my sister." not in texts, (question, texts)
        assert any("states the user's going_to" in m["why"] for m in r["memories"]), r
    r = client.recall(user, "帮我查查去那边的火车要坐多久")
    assert summer in _texts(r)
    live = [e["node"]["text"] for e in client.memories(user)["edges"]]
    assert summer in live and "I'm going to Cancun in May with my sister." not in live


def test_a_diet_question_is_answered_by_the_diet_not_by_the_job(client: BmamClient, user: str) -> None:
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": text}
        for text in ("I work as a nurse at Mercy Hospital.", "I eat fish now, so I guess I'm a pescatarian.")])
    for question in ("What's my diet?", "Am I vegetarian?"):
        r = client.recall(user, question)
        texts = [m["memory"]["text"] for m in r["memories"]]
        assert texts[:1] == ["I eat fish now, so I guess I'm a pescatarian."], (question, r)
        assert "I work as a nurse at Mercy Hospital." not in texts


def test_a_fact_that_ended_is_answered_by_the_memory_that_ended_it(client: BmamClient, user: str) -> None:
    """"Do I have a dog?" after the dog died was gated: the death shares no word with the question and states no pet;
    the memory it superseded does. The ender answers ("pet (ended)"), the superseded memory stays out."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I have a golden retriever named Biscuit."},
        {"userId": user, "sessionId": "s2", "speaker": "user",
         "text": "Biscuit passed away last week, the house feels so empty without him."},
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": "I work at Moderna."}])
    r = client.recall(user, "Do I have a dog?")
    texts = [m["memory"]["text"] for m in r["memories"]]
    assert texts[:1] == ["Biscuit passed away last week, the house feels so empty without him."], r
    assert "states the user's pet (ended)" in r["memories"][0]["why"]
    assert "I have a golden retriever named Biscuit." not in texts
    past = client.recall(user, "Do I have a dog?", includeHistory=True)  # the past asked for: as it was said
    assert "I have a golden retriever named Biscuit." in [m["memory"]["text"] for m in past["memories"]]


def test_a_winner_answers_no_fact_its_loser_still_holds_in_its_remains(client: BmamClient, user: str) -> None:
    """The cancelled trip superseded the memory that also said who the sister is; that clause lives on in the
    remains, so the cancellation ended no sister and is no answer to her name ("states the user's sister (ended)"
    was). The same for the name said beside an old job the new one ended (an app developer's audit, session 50)."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user",
         "text": "My sister Lin and I are planning a trip to Japan in May."},
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": "We cancelled the Japan trip."},
        {"userId": user, "sessionId": "s3", "speaker": "user", "text": "我叫王伟，在阿里巴巴做产品经理。"},
        {"userId": user, "sessionId": "s4", "speaker": "user", "text": "我上个月跳槽去了腾讯。"}])
    for question, ender in (("What's my sister's name?", "We cancelled the Japan trip."),
                            ("What's my name?", "我上个月跳槽去了腾讯。")):
        r = client.recall(user, question)
        assert not any("(ended)" in m["why"] for m in r["memories"]), (question, r)
        assert ender not in _texts(r), (question, r)


def test_a_winner_answers_no_fact_it_left_to_the_remains_a_later_winner_ended(client: BmamClient, user: str) -> None:
    """The new job superseded "I live in Hangzhou and I work at NetEase ..." and left the home to its remains; the move
    then ended the remains. The move answers "Where do I live?" for the old home too, the new job not at all ("states
    the user's lives_in (ended)" was, at rank 2: a long-horizon audit, session 52)."""
    client.ingest_conversation([
        {"userId": user, "sessionId": f"s{i}", "speaker": "user", "text": text} for i, text in enumerate((
            "I live in Hangzhou and I work at NetEase as a UX designer.",
            "Big news: I left NetEase and started a new job at Alibaba this week, as a senior product designer.",
            "I moved to Shanghai last weekend, I live in Shanghai now, close to my sister."))])
    for question in ("Where do I live now?", "我现在住在哪个城市？"):
        r = client.recall(user, question)
        assert _texts(r)[:1] == ["I moved to Shanghai last weekend, I live in Shanghai now, close to my sister."], r
        assert not any(text.startswith("Big news") for text in _texts(r)), (question, r)


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


def _where_do_i_live(container: Container, tenant: str, user: str,
                     **recall: object) -> tuple[list[list[str]], list[str]]:
    """A user who mentioned hiking, then a move, asks "Where do I live?" of a container with these recall
    settings (its cache read the user at a first recall): the answers and the statements the question ran."""
    made = Container(container.settings.model_copy(update={
        "recall": container.settings.recall.model_copy(update=recall)}))
    made.__dict__["store"] = container.store
    made.__dict__["embedder"] = container.embedder
    made.ingest.ingest_conversation(tenant, [
        TurnInput(user_id=user, session_id="s1", speaker="user", text="I enjoy hiking on weekends."),
        TurnInput(user_id=user, session_id="s1", speaker="user", text="Big news: we moved to Seattle last month.")])
    made.recall.recall(tenant, RecallRequest(user_id=user, query="hiking"))  # the cache's first read of the user
    answers: list[list[str]] = []
    question = RecallRequest(user_id=user, query="Where do I live?")
    ran = _statements(made, lambda: answers.append(
        [m.memory.text for m in made.recall.recall(tenant, question).memories]))
    return answers, ran


@pytest.mark.parametrize("cache_mb", [512, 0])
def test_the_answers_come_with_the_candidates_or_on_their_own(container: Container, tenant: str,
                                                              cache_mb: int) -> None:
    """With the vector cache the slot answers are read in the statement reading the candidates (no round
    trip of their own); without it, in a statement of their own. The same answer either way."""
    answers, ran = _where_do_i_live(container, tenant, "zoe", vector_cache_mb=cache_mb)
    assert answers == [["Big news: we moved to Seattle last month."]]
    if cache_mb:
        assert "recall/rows_checked" in ran and "recall/slot_answers" not in ran, ran
    else:
        assert "recall/slot_answers" in ran, ran


def test_the_answers_are_expanded_in_the_candidates_statement(container: Container, tenant: str) -> None:
    """A slot question's answers score high, so they seed the graph expansion: with the cache, their neighbours
    are read in the statement reading the candidates, not by an expansion statement of its own (here the
    answer is the only seed and nothing else is read ahead)."""
    answers, ran = _where_do_i_live(container, tenant, "yan", vector_cache_mb=512, expand_seeds=1,
                                    expand_prefetch_dense=0, expand_prefetch_text=0)
    assert answers == [["Big news: we moved to Seattle last month."]]
    assert "recall/rows_checked" in ran and "recall/expand" not in ran, ran


# ----- family questions: the memories naming a family member -------------------------------------------

KIN = "My daughter Lily is allergic to peanuts."
LESSONS = "Lily started piano lessons on Saturdays."  # no triple: it names Lily, the daughter, in its text


def _turns(user: str, texts: list[str]) -> list[dict[str, str]]:
    return [{"userId": user, "sessionId": "s1", "speaker": "user", "text": t} for t in texts]


def _texts(r: dict[str, Any]) -> list[str]:
    return [m["memory"]["text"] for m in r["memories"]]


def test_a_family_question_answers_with_what_the_user_said_about_the_family(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_turns(user, [
        KIN, LESSONS, "Lily’s teacher says she reads well above her grade.", "My friend Tom plays tennis with me.",
        "Tom bought a new car last week.", "I live in Boston and I work at Moderna."]))
    for question in ("Tell me about my family", "my family", "我的家人", "What about my daughter?", "我女儿"):
        r = client.recall(user, question, k=10)
        assert r["gated"] is False, (question, r["reason"])
        texts = _texts(r)
        assert KIN in texts and LESSONS in texts, (question, texts)
        assert "Lily’s teacher says she reads well above her grade." in texts, (question, texts)  # a possessive
        # Tom is a friend: what the user said about him is not about the family
        assert "Tom bought a new car last week." not in texts, (question, texts)
        lessons = next(m for m in r["memories"] if m["memory"]["text"] == LESSONS)
        assert "states the user's child" in lessons["why"], (question, lessons["why"])  # a slot answer
    # "What do you know about me?" asks for the user's own facts: the daughter's lessons are not one. (They may come
    # as a neighbour of the daughter's memory, a slot answer: the two share Lily, and the questions above recalled
    # them together, so their edge passed the expansion's floor, as it would have after a few more of them without
    # the shared entity.)
    about_me = client.recall(user, "What do you know about me?", k=10)
    assert all("states the user's child" not in m["why"] for m in about_me["memories"]
               if m["memory"]["text"] == LESSONS), about_me["memories"]


def test_a_relation_question_answers_with_that_relations_memories_only(client: BmamClient, user: str) -> None:
    client.ingest_conversation(_turns(user, [
        KIN, LESSONS, "我女儿小美喜欢画画。", "小美上周参加了绘画比赛。",
        "My wife Anna works at Google.", "Anna ran the Boston marathon in April."]))
    for question in ("What about my daughter?", "我女儿"):
        texts = _texts(client.recall(user, question, k=10))
        assert {LESSONS, "小美上周参加了绘画比赛。"} <= set(texts), (question, texts)
        assert "Anna ran the Boston marathon in April." not in texts, (question, texts)  # the wife: not asked
    texts = _texts(client.recall(user, "Tell me about my wife", k=10))
    assert "Anna ran the Boston marathon in April." in texts and LESSONS not in texts, texts


def test_a_coworker_question_answers_with_what_the_user_said_about_the_coworker(client: BmamClient,
                                                                             user: str) -> None:
    """A colleague named once ("my colleague Fiona came too") is one of the user's people: "what does my coworker
    think ...?" reads the memories naming her, as a question about a daughter does; a friend named is not asked."""
    fiona = "anyway next year I want to submit something on chemo dose banding, Fiona reckons the committee loves " \
            "audit data"
    client.ingest_conversation(_turns(user, [
        "ate pastéis de nata every single morning. my colleague Fiona came too and she got us lost in Alfama twice",
        fiona, "My friend Tom thinks the abstract should be shorter."]))
    texts = _texts(client.recall(user, "what does my coworker think would get our abstract accepted?", k=5))
    assert fiona in texts, texts


def test_an_unnamed_relative_is_found_by_the_word_the_user_calls_them(client: BmamClient, user: str) -> None:
    """A mother never named has no triple whose value could be looked for: "what kind of activities would work for
    my mom?" reads the memories speaking of the user's mom by the word ("my mom has early dementia"), not someone
    else's ("Jordan's mom", 朋友的妈妈), and answers with mother."""
    dementia = "my mom has early dementia, lives alone in Richmond, I visit her every sunday and do her groceries"
    client.ingest_conversation(_turns(user, [
        dementia, "Jordan's mom makes the best dumplings in town", "朋友的妈妈是画家",
        "I'm training for a half marathon in May"]))
    found = client.recall(user, "what kind of activities would work for my mom?", k=5)
    texts = _texts(found)
    assert dementia in texts, texts
    assert "Jordan's mom makes the best dumplings in town" not in texts and "朋友的妈妈是画家" not in texts, texts
    [mom] = [m for m in found["memories"] if m["memory"]["text"] == dementia]
    assert "states the user's mother" in mom["why"], mom["why"]


def test_a_member_named_by_a_common_word_is_found_by_the_name_as_written(client: BmamClient, user: str) -> None:
    """"will" is a word of every other sentence (and a stop word of the full-text index): the memories naming
    the son Will are those holding "Will" as written, a word of its own."""
    client.ingest_conversation(_turns(user, [
        "My son is called Will.", "Yesterday Will broke his arm at soccer practice.",
        "I will call the plumber tomorrow.", "William from work lent me a book."]))
    texts = _texts(client.recall(user, "What about my son?", k=10))
    assert "Yesterday Will broke his arm at soccer practice." in texts, texts
    assert "I will call the plumber tomorrow." not in texts and "William from work lent me a book." not in texts, texts


def test_a_member_named_in_lower_case_chat_is_found_in_lower_case_chat(client: BmamClient, user: str) -> None:
    """A turn written all in lower case names its people so ("my brother greg lives in seattle"): a common given
    name is read as a name there, and the member's memories written so ("greg agreed to pay 40%") answer a question
    about him; a name that is a word too is found only as written (the son Will is no "i will" of lower-case chat)."""
    client.ingest_conversation(_turns(user, [
        "my brother greg lives in seattle and does basically nothing except send opinions",
        "greg agreed to pay 40%. not 50 but i'll take it", "gregory peck films are my favourite",
        "My son is called Will.", "i will call the plumber tomorrow"]))
    texts = _texts(client.recall(user, "how much is my brother covering for dad's care now?", k=10))
    assert "greg agreed to pay 40%. not 50 but i'll take it" in texts, texts
    assert "gregory peck films are my favourite" not in texts, texts
    assert "i will call the plumber tomorrow" not in _texts(client.recall(user, "What about my son?", k=10))


def test_a_memory_whose_triple_names_the_family_member_answers_too(client: BmamClient, user: str) -> None:
    """Reached through (:Memory)-[:MENTIONS]->(Lily) when the text does not name her, and whatever recall's
    filters leave out of the memory saying who Lily is (here: the types; the graph expansion from that memory
    cannot reach her recital then); a member only through an affirmed kin triple: a denied one (polarity -1)
    makes nobody family."""
    client.ingest_conversation(_turns(user, [KIN]))
    recital = client.remember(user, "Her first recital is on Friday evening.", "EPISODIC")["id"]
    client.add_triple(user, recital, "Lily", "has_event", "recital", subjectKind="person")
    denied = client.remember(user, "Jake is not my brother, just a neighbour.", "FACTUAL")["id"]
    client.add_triple(user, denied, "user", "brother", "Jake", subjectKind="user", objectKind="person", polarity=-1)
    fence = client.remember(user, "Jake fixed the fence yesterday.", "EPISODIC")["id"]
    client.add_triple(user, fence, "Jake", "fixed", "fence", subjectKind="person")
    r = client.recall(user, "Tell me about my family", k=10, types=["EPISODIC"])
    assert r["gated"] is False, r["reason"]
    assert _texts(r) == ["Her first recital is on Friday evening."]


def test_family_answers_never_cross_users(client: BmamClient, user: str) -> None:
    other = f"{user}-other"
    client.ingest_conversation(_turns(user, [KIN, LESSONS]))
    # the other user has a daughter named Lily too: another entity, other memories
    client.ingest_conversation(_turns(other, ["My daughter Lily is in third grade.",
                                              "Lily scored a goal at soccer practice."]))
    for question in ("Tell me about my family", "我女儿"):
        texts = _texts(client.recall(other, question, k=10))
        assert "Lily scored a goal at soccer practice." in texts, (question, texts)
        assert LESSONS not in texts and KIN not in texts, (question, texts)


@pytest.mark.parametrize("cache_mb", [512, 0])
def test_family_answers_come_with_the_candidates_or_on_their_own(container: Container, tenant: str,
                                                                 cache_mb: int) -> None:
    made = Container(container.settings.model_copy(update={
        "recall": container.settings.recall.model_copy(update={"vector_cache_mb": cache_mb})}))
    made.__dict__["store"] = container.store
    made.__dict__["embedder"] = container.embedder
    made.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=t)
        for t in ("I enjoy hiking on weekends.", KIN, LESSONS)])
    made.recall.recall(tenant, RecallRequest(user_id="zoe", query="hiking"))  # the cache's first read of zoe
    question = RecallRequest(user_id="zoe", query="Tell me about my family", k=10)
    texts: list[list[str]] = []
    ran = _statements(made, lambda: texts.append(
        [m.memory.text for m in made.recall.recall(tenant, question).memories]))
    assert sorted(texts[0]) == sorted([KIN, LESSONS]), texts
    if cache_mb:
        assert "recall/rows_checked" in ran and "recall/slot_answers" not in ran, ran
    else:
        assert "recall/slot_answers" in ran, ran


def test_a_slot_question_over_vectors_of_an_earlier_model_is_answered_not_refused(container: Container,
                                                                                  tenant: str) -> None:
    """Memories keep the vectors of the model they were written under (graph/migrations.py): a vector of another
    size has no cosine, as in every other recall statement; without the cache, recall/slot_answers compared
    it anyway and Neo4j refused the whole recall."""
    uncached = Container(container.settings.model_copy(update={
        "recall": container.settings.recall.model_copy(update={"vector_cache_mb": 0})}))
    uncached.__dict__["store"] = container.store
    uncached.__dict__["embedder"] = container.embedder
    moved = "Big news: we moved to Seattle last month."
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text=moved)])
    store_rows(container, "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = 'zoe' "
                          "CALL db.create.setNodeVectorProperty(m, 'embedding', [0.6, 0.8, 0.0])", t=tenant)
    answer = uncached.recall.recall(tenant, RecallRequest(user_id="zoe", query="Where do I live?"))
    assert [m.memory.text for m in answer.memories] == [moved]
    assert answer.memories[0].scores.vector == -1.0  # no cosine with a vector of another size: the floor


@pytest.mark.parametrize(("own", "other", "question", "answer"), [
    ("I take metformin 500 mg twice a day.", "My dad's doctor increased his metformin to 1000 mg.",
     "How much metformin do I take?", "500"),
    ("I'm allergic to penicillin.", "My son is allergic to peanuts, the doctor confirmed it today.",
     "What am I allergic to?", "penicillin"),
    ("我每天吃二甲双胍500毫克。", "我爸的医生把他的二甲双胍加到了1000毫克。", "我现在吃多少毫克二甲双胍？", "500"),
])
def test_the_users_own_fact_ranks_above_someone_elses_told_today(client: BmamClient, user: str, own: str,
                                                                  other: str, question: str, answer: str) -> None:
    """A question for the user's own fact (a dose, an allergy): the memory stating it comes first, though a
    family member's told today is fresher and as close in meaning (both past the similarity ceiling, freshness
    decided: the dad's new dose above the user's own)."""
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": own,
         "at": (now - timedelta(days=40)).isoformat()},
        {"userId": user, "sessionId": "s2", "speaker": "user", "text": other, "at": now.isoformat()},
    ])
    r = client.recall(user, question)
    texts = [m["memory"]["text"] for m in r["memories"]]
    assert texts[:1] == [own], texts
    assert answer in texts[0]
    if other in texts:  # still there, after the answer, and saying why
        why = r["memories"][texts.index(other)]["why"]
        assert "someone else" in why, why


def test_where_do_i_work_is_answered_by_the_new_employer_not_the_old_jobs_title(client: BmamClient, user: str) -> None:
    """Q's EN-03: the old job's title kept as remains ("I'm a project manager") answered "Where do I work?" above
    the offer accepted from Brightline. Where one works is the employer: an occupation is asked for by "What's my
    job?", not by "where"."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I work at Acme Corp as a project manager."},
        {"userId": user, "sessionId": "s1", "speaker": "user",
         "text": "I'm leaving Acme at the end of the month, I accepted an offer from Brightline."},
    ])
    r = client.recall(user, "Where do I work?")
    texts = [m["memory"]["text"] for m in r["memories"]]
    assert texts[:1] == ["I'm leaving Acme at the end of the month, I accepted an offer from Brightline."], texts
    assert "states the user's works_at" in r["memories"][0]["why"]


def test_a_former_job_and_an_animal_allergy_are_answered_by_their_facts(client: BmamClient, user: str) -> None:
    """帮我写写我以前的工作 read affirmed triples only, and 退休前是北京第二机床厂的工程师 stated none;
    我猫毛过敏 read 猫 as the user's cat (no allergy), so 朋友家新养了只布偶 had nothing to ask. Now the job held no
    longer answers the one, the allergy the other; a peanut allergy answers neither."""
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user",
         "text": "我今年68了，退休前是北京第二机床厂的工程师。现在每天早上在天坛公园练太极。"},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "不过日本猫咖很多 我猫毛过敏 只能远观了"},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "我对花生过敏，吃了会起疹子。"},
    ])
    job = client.recall(user, "社区要我写个简历，帮我写写我以前的工作。")
    texts = [m["memory"]["text"] for m in job["memories"]]
    assert any("第二机床厂" in t for t in texts[:2]), texts
    assert not any("花生" in t for t in texts), texts
    cat = client.recall(user, "朋友家新养了只布偶 叫我去玩 能去不")
    assert cat["gated"] is False, cat["reason"]
    first = cat["memories"][0]
    assert "猫毛过敏" in first["memory"]["text"] and "allergic_to" in first["why"], cat["memories"]
    # the peanut allergy answers nothing about a cat, nor relates by meaning (relevance 0.03: recall.min_relevance)
    assert not any("花生" in m["memory"]["text"] for m in cat["memories"]), cat["memories"]
