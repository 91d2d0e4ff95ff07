"""A request for food advice asks what the user likes to eat, after what constrains it (an app developer's audit,
session 51): "Can you suggest a restaurant for Friday?" brought the peanut allergy only, not "I love Thai food" nor
我特别喜欢吃川菜. The liking is asked by its kind (ingest/slots.py FOOD_LIKING: a likes naming a food,
ingest/extract_core.py is_food), ranks after the constraints and sets no bar; "What don't I eat?" asks none, a sport
or a kind of music liked answers none, nor a liking that ended. First the rules alone, then through ingest and
recall against the real Neo4j."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.extract_core import is_food, is_music, is_sport
from ingest.scoring import Candidate, ScoringParams, score_candidates, terms
from ingest.slots import (
    DIET,
    FOOD_DISLIKE,
    FOOD_LIKING,
    SPORT,
    answered,
    asked_slots,
    constrains_answer,
    is_food_advice,
    shapes_answer,
    stored_predicates,
)
from ingest.turns import TurnInput

FOOD_ADVICE = ("allergic_to", "has_condition", "not eats", DIET, FOOD_DISLIKE, FOOD_LIKING)


@pytest.mark.parametrize("question", [
    "Can you suggest a restaurant for Friday?", "What should I eat tonight?", "Any dessert ideas for tonight?",
    "Recommend a restaurant for tonight",
    "going to a thai place with friends tonight, anything i should watch out for?",
    "we're heading to a dumpling place later", "晚饭吃什么好？", "推荐个餐厅", "帮我点个外卖", "夜宵整点啥",
])
def test_a_request_for_food_advice_asks_the_liking_after_the_constraints(question: str) -> None:
    asked = asked_slots(question)
    assert asked[:len(FOOD_ADVICE)] == FOOD_ADVICE, asked
    assert is_food_advice(asked) and constrains_answer(asked)
    assert stored_predicates((FOOD_LIKING,)) == ("likes",) and stored_predicates((FOOD_DISLIKE,)) == ("not likes",)


@pytest.mark.parametrize(("question", "asked"), [
    # what is refused, and what is disliked, is the answer, no liking ("我不吃什么" reads 吃什么, a request, as well)
    ("What don't I eat?", ("not eats", FOOD_DISLIKE, "allergic_to", "has_condition")),
    ("我不吃什么？", ("not eats", FOOD_DISLIKE, "allergic_to", "has_condition", DIET)),
    ("我忌口什么", ("not eats", FOOD_DISLIKE, "allergic_to", "has_condition")),
    # one thing to eat: its safety, no taste to suggest by
    ("Can I eat sushi?", ("allergic_to", "has_condition", "not eats", DIET, "takes_dose")),
    ("Which sport do I play?", (SPORT,)),
    ("What's my favourite food?", ()),  # an open preference: left to meaning and words
    ("I found the sweet spot for my desk chair", ()),  # no food named ("sweets" only)
])
def test_no_liking_asked_beside_a_refused_food_or_one_thing_to_eat(question: str, asked: tuple[str, ...]) -> None:
    assert asked_slots(question) == asked


@pytest.mark.parametrize("term", [
    "Thai food", "green curry", "tiramisu", "Italian cuisine", "spicy food", "dim sum", "fish tacos", "Korean BBQ",
    "pastries", "oat milk lattes", "red wine", "Italian", "川菜", "水煮鱼", "火锅", "奶茶", "辣", "日料", "红烧肉",
    "榴莲千层", "蛋黄酥",
])
def test_what_names_a_food(term: str) -> None:
    assert is_food(term)
    assert not is_sport(term) and not is_music(term)


@pytest.mark.parametrize("term", [
    "playing tennis", "jazz", "hiking", "cooking", "baking bread", "French films", "going to the movies", "Shopify",
    "sweet spot", "video games", "钓鱼", "做饭", "健身练肌肉", "游泳", "爵士乐", "画饼", "粉色", "奶奶",
])
def test_what_names_no_food(term: str) -> None:
    assert not is_food(term)


def test_a_liking_answers_food_advice_only_when_it_names_a_food_and_still_holds() -> None:
    assert answered(FOOD_ADVICE, ("likes",), ["Thai food", "green curry"]) == ("likes",)
    assert answered(FOOD_ADVICE, ("likes",), ["川菜", "水煮鱼"]) == ("likes",)
    assert answered(FOOD_ADVICE, ("likes",), ["playing tennis"]) == ()  # a sport liked is no meal
    assert answered(FOOD_ADVICE, ("likes",), ["jazz"]) == ()
    # the memory that ended a liked food ("I don't like sushi anymore") is no taste to suggest by
    assert answered(FOOD_ADVICE, ("likes (ended)",), ["sushi"]) == ()
    assert answered((SPORT,), ("likes (ended)",), ["tennis", "swimming"]) == ("likes (ended)",)  # as before
    assert answered(FOOD_ADVICE, ("allergic_to", "likes"), ["peanuts", "Thai food"]) == ("allergic_to", "likes")


def test_a_liking_shapes_the_answer_a_constraint_said_with_it_constrains() -> None:
    assert shapes_answer(FOOD_ADVICE, ("likes",))
    assert not shapes_answer(FOOD_ADVICE, ("allergic_to", "likes"))  # "allergic to peanuts, love Thai food"
    assert not shapes_answer(FOOD_ADVICE, ("allergic_to",))
    assert not shapes_answer((SPORT,), ("likes",))
    assert not shapes_answer(("name", "likes"), ("likes",))  # "What do you know about me?": the answer itself


def test_the_likings_rank_after_the_allergy_and_set_no_bar() -> None:
    """Five liked dishes as close to "Recommend a restaurant" as the allergy (none by meaning): the allergy first;
    a memory that relates by meaning is cut by none of them."""
    p = ScoringParams(sim_floor=0.2, sim_ceiling=0.6, task_relative_relevance=0.35)
    question = "Recommend a restaurant for tonight"

    def said(id_: str, text: str, cosine: float, **kw: object) -> Candidate:
        return Candidate(id=id_, text=text, cosine=cosine, hours=24.0, weight=0.5, dense_rank=1, **kw)  # type: ignore[arg-type]

    allergy = said("allergy", "I'm allergic to peanuts.", 0.05, answers=("allergic_to",), constrains=True)
    likings = [said(f"like{i}", f"I love dish {i}.", 0.15, answers=("likes",), constrains=True, shapes=True)
               for i in range(5)]
    place = said("place", "That little bistro on Elm Street was lovely last time.", 0.3)
    ranked = [s.candidate.id for s in score_candidates([*likings, place, allergy], question, terms(question), p,
                                                       advice_or_task=True)]
    assert ranked[0] == "allergy" and "place" in ranked and set(ranked) >= {c.id for c in likings}, ranked
    # at the constraints' full share, the liked dishes (a liking's bonus on top) ranked first
    full = [replace(c, shapes=False) for c in likings]
    first = next(s.candidate.id for s in score_candidates([*full, allergy], question, terms(question), p,
                                                          advice_or_task=True))
    assert first != "allergy"


THAI, SICHUAN = "I love Thai food, especially green curry.", "我特别喜欢吃川菜，尤其是水煮鱼。"
SAID = (THAI, "I'm allergic to peanuts.", "My favourite dessert is tiramisu.", "I work at Shopify as a data engineer.",
        SICHUAN, "I love playing tennis on weekends.")


def test_a_restaurant_request_recalls_what_the_user_likes_and_cannot_eat(container: Container, tenant: str) -> None:
    for i, text in enumerate(SAID):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id=f"s{i}", speaker="user", text=text))

    def recalled(question: str) -> list[tuple[str, str]]:
        result = container.recall.recall(tenant, RecallRequest(user_id="ann", query=question, k=5))
        assert not result.gated, (question, result.reason)
        return [(m.memory.text, m.why) for m in result.memories]

    for question in ("Can you suggest a restaurant for Friday?", "晚饭吃什么好？"):
        texts = [text for text, _ in recalled(question)]
        assert texts[:1] == ["I'm allergic to peanuts."], (question, texts)  # what can't be eaten first
        assert {THAI, SICHUAN} <= set(texts), (question, texts)
        assert "I love playing tennis on weekends." not in texts and "I work at Shopify as a data engineer." \
            not in texts, (question, texts)
    # (a liking may still come by its meaning, as before; none as an answer)
    assert not [text for text, why in recalled("What don't I eat?") if "states the user's likes" in why]


def test_a_food_the_user_dislikes_constrains_food_advice(container: Container, tenant: str) -> None:
    """"I can't stand cilantro" is a denied likes naming a food: a request for food advice reads it with the foods
    refused (FOOD_DISLIKE), as a constraint, so the dinner suggested leaves it out; "What don't I eat?" reads it as
    its answer; a disliked sport answers nothing."""
    said = ("I can't stand cilantro.", "I love Thai food, especially green curry.", "I hate jogging.",
            "我讨厌吃苦瓜。")
    for i, text in enumerate(said):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="dan", session_id=f"s{i}", speaker="user", text=text))
    for question in ("What should I cook for dinner tonight?", "晚饭吃什么好？"):
        result = container.recall.recall(tenant, RecallRequest(user_id="dan", query=question, k=5))
        texts = [m.memory.text for m in result.memories]
        assert {"I can't stand cilantro.", "我讨厌吃苦瓜。"} <= set(texts), (question, texts)
        assert "I hate jogging." not in texts, (question, texts)
    for question in ("What don't I eat?", "我不吃什么？"):
        result = container.recall.recall(tenant, RecallRequest(user_id="dan", query=question, k=5))
        why = {m.memory.text: m.why for m in result.memories}
        assert "states the user's not likes" in why.get("I can't stand cilantro.", ""), (question, why)
        assert "states the user's not likes" in why.get("我讨厌吃苦瓜。", ""), (question, why)
        assert "I hate jogging." not in why, (question, why)
