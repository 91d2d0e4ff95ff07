"""A request for food advice in words no pattern was written for (session 52's long-horizon audit, H2): with a severe
peanut allergy stored, 周末想去吃泰国菜，有什么推荐？, "Make me a grocery list for the week", "Should I try the satay at
the party?" or "Thinking of getting pad thai tonight" got no memory (gated: an allergy lies at cosine ~0.2 from any
food request). A request, a question asking what to choose or whether to eat, or a plan to eat that names something
eaten asks what food advice asks (ingest/slots.py asks_for_food, names_food); a statement, a question about the
world, a how-to and a medicine do not. First the rules alone, then through ingest and recall against the real
Neo4j."""

from __future__ import annotations

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.slots import DIET, FOOD_DISLIKE, FOOD_LIKING, asked_slots, asks_for_food, is_food_advice
from ingest.turns import TurnInput

FOOD_ADVICE = ("allergic_to", "has_condition", "not eats", DIET, FOOD_DISLIKE, FOOD_LIKING)
ONE_THING = ("allergic_to", "has_condition", "not eats", DIET, "takes_dose")  # as "Can I eat sushi?"

ASKED_FOR_FOOD = [
    "周末想去吃泰国菜，有什么推荐？", "周末想去吃泰国菜", "我想做个甜点，有什么推荐？", "帮我规划一下明天的三餐",
    "Make me a grocery list for the week", "Thinking of getting pad thai tonight",
    "Maybe something with tofu? What dessert could go with it?", "What wine goes with steak?", "How about sushi?",
    "I'm doing a shop before my free period, what snack should I grab?", "泰国菜有什么推荐", "帮我点杯咖啡 老样子",
    "晚上叫个外卖吧，你帮我选",  # (read by meaning before: tests/test_slot_meaning.py)
    "肚子饿了，给我出出主意", "I'm starving, any ideas?",  # hunger names no food, and asks for one
]


@pytest.mark.parametrize("question", ASKED_FOR_FOOD)
def test_a_request_naming_a_food_asks_what_food_advice_asks(question: str) -> None:
    asked = asked_slots(question)
    assert asked == FOOD_ADVICE, asked
    assert is_food_advice(asked)


@pytest.mark.parametrize("question", ["Should I try the satay at the party?", "Is satay safe for me?"])
def test_whether_one_thing_may_be_eaten_asks_as_can_i_eat_it(question: str) -> None:
    assert asked_slots(question) == ONE_THING == asked_slots("Can I eat satay?")


@pytest.mark.parametrize(("question", "asked"), [
    ("What's the capital of Thailand?", ()),  # no food: Thailand is no "thai"
    ("Which city has the best food?", ()),  # how the world is
    ("What is tofu made of?", ()),
    ("Why is pad thai sweet?", ()),
    ("I ate pad thai yesterday", ()),  # a statement, no request
    ("How long should I boil an egg?", ()),  # a how-to, the same for anyone
    ("How do I get red wine out of a carpet?", ()),
    ("Translate 'good luck' into French", ()),  # a cuisine is a language too
    ("Write a haiku about coffee", ()),
    ("Make me a pie chart of my spending", ()),  # food words naming no food
    ("How do I clear cookies in Chrome?", ()),
    ("What does Waffles like to play with?", ()),  # a pet's name
    ("帮我写个函数把字符串反转", ()),  # 串 of 字符串, 鱼 of 鱼缸, 酒 of 酒店
    ("想用 ESP32 做个鱼缸 controller", ()),
    ("推荐个酒店", ()),
    ("Can I take ibuprofen with food?", ()),  # a medicine
    ("recommend a good book for breakfast reading", ()),  # something else recommended
    ("What movie should we watch over dinner?", ()),
    ("What food can't I stand?", ()),  # the user's fact asked, no advice
    ("What did I eat yesterday?", ()),
    ("What snacks do I enjoy?", ()),  # an open preference: left to meaning and words
    # a medicine asked for with 吃 (1b6df0a): its own slots, no food
    ("腰又疼了 吃点啥药好", ("allergic_to", "has_condition", "takes_dose")),
])
def test_other_input_naming_a_food_asks_no_food_advice(question: str, asked: tuple[str, ...]) -> None:
    assert not asks_for_food(question)
    assert asked_slots(question) == asked


ALLERGY = "我对花生过敏，很严重，吃了会休克。"


def test_a_severe_allergy_comes_back_for_everyday_food_requests(container: Container, tenant: str) -> None:
    """The audit's user allergy1: the allergy, a home and a job, a cat; each everyday food request recalls the
    allergy first, and a question about the world stays gated."""
    for i, text in enumerate((ALLERGY, "I live in Shanghai and work at Alibaba.", "I have a cat named Mochi.")):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="mei", session_id=f"s{i}", speaker="user", text=text))
    for question in ("周末想去吃泰国菜，有什么推荐？", "我想做个甜点，有什么推荐？", "帮我规划一下明天的三餐",
                     "Make me a grocery list for the week", "Should I try the satay at the party?",
                     "Is satay safe for me?", "Thinking of getting pad thai tonight",
                     "Maybe something with tofu? What dessert could go with it?"):
        result = container.recall.recall(tenant, RecallRequest(user_id="mei", query=question, k=5))
        texts = [m.memory.text for m in result.memories]
        assert texts[:1] == [ALLERGY], (question, result.reason, texts)
        assert "I have a cat named Mochi." not in texts, (question, texts)
    for question in ("What's the capital of Thailand?", "How long should I boil an egg?"):
        result = container.recall.recall(tenant, RecallRequest(user_id="mei", query=question, k=5))
        assert result.gated, (question, result.reason, [m.memory.text for m in result.memories])
