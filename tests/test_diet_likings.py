"""A diet change ends a liked dish the diet leaves out (H4 of the session-52 audit): 我最喜欢吃红烧肉。 then
从这周开始我吃素了，我现在是素食者。, "I love steak." then "I'm a vegetarian now." were no conflict, and food advice
ranked the meat dish first for months. A dish is read as meat, fish, dairy or egg by the words of its name
(ingest/lexicon.py animal_foods); the diet rule (ingest/conflict_rules.py diet_conflict) ends a liking the diet said
after it leaves out, and a no to the whole kind ("I don't eat meat anymore") does too; a liking said after the diet
ends no diet. Pure: the word reading, the rule, detect() and the remains."""

from __future__ import annotations

import pytest

from bmam.usecases.conflicts import _new_facts
from graph.conflicts import ConflictKind
from graph.model import Entity, Triple
from ingest.lexicon import animal_foods
from ingest.remains import Fact as WinnerFact
from ingest.remains import remains
from tests.test_routine_conflicts import EXTRACTOR, found


@pytest.mark.parametrize(("food", "kinds"), [
    ("红烧肉", {"meat"}), ("回锅肉", {"meat"}), ("宫保鸡丁", {"meat"}), ("北京烤鸭", {"meat"}), ("炸鸡", {"meat"}),
    ("牛排", {"meat"}), ("猪脚饭", {"meat"}), ("水煮鱼", {"fish"}), ("小龙虾", {"fish"}),
    ("芝士蛋糕", {"dairy", "egg"}),
    ("steak", {"meat"}), ("beef noodles", {"meat"}), ("bacon", {"meat"}), ("cheeseburger", {"meat", "dairy"}),
    ("fish and chips", {"fish"}), ("ice cream", {"dairy"}), ("eggs", {"egg"}),
    # meatless by its words, or no food at all
    ("鱼香茄子", set()), ("牛油果", set()), ("鸡尾酒", set()), ("肉桂卷", set()), ("素鸡", set()), ("小猪佩奇", set()),
    ("金鱼", set()), ("豆奶", set()), ("奶奶做的菜", set()), ("veggie burger", set()), ("peanut butter", set()),
    ("oat milk", set()), ("eggplant", set()), ("chickens", set()), ("Turkey", set()), ("Hamburg", set()),
])
def test_a_dish_is_read_by_the_words_of_its_name(food: str, kinds: set[str]) -> None:
    assert animal_foods(food) == kinds


@pytest.mark.parametrize(("old", "new", "reason"), [
    ("我最喜欢吃红烧肉。", "从这周开始我吃素了，我现在是素食者。", "user is_a '素食者' ends likes '红烧肉'"),
    ("I love steak.", "I'm a vegetarian now.", "user is_a 'vegetarian' ends likes 'steak'"),
    ("我很喜欢吃水煮鱼", "我现在是素食者", "user is_a '素食者' ends likes '水煮鱼'"),
    ("I love cheese.", "I'm vegan now.", "user is_a 'vegan' ends likes 'cheese'"),
    ("I love steak.", "I don't eat meat anymore.", "user -eats 'meat' ends likes 'steak'"),
    ("I eat beef noodles every week.", "I'm a vegetarian now.", "user is_a 'vegetarian' ends eats 'beef noodles'"),
])
def test_a_diet_ends_a_liked_dish_it_leaves_out(old: str, new: str, reason: str) -> None:
    assert found(old, new) == [(ConflictKind.POLARITY, reason)]


@pytest.mark.parametrize(("old", "new"), [
    ("I'm a vegetarian now.", "I love steak."),  # a liking said after the diet: a taste, no change of diet
    ("我现在是素食者", "我最喜欢吃红烧肉。"),
    ("I love cheese.", "I'm a vegetarian now."),  # a vegetarian eats cheese
    ("我很喜欢吃水煮鱼", "我现在是pescatarian"),  # a pescatarian eats fish
    ("I love veggie burgers.", "I'm a vegetarian now."),
    ("My sister loves steak.", "I'm a vegetarian now."),  # hers
    ("I love Turkey, we went there twice.", "I'm a vegetarian now."),
])
def test_no_liking_ended(old: str, new: str) -> None:
    assert found(old, new) == []


def test_the_other_likings_of_the_memory_remain() -> None:
    winner = [WinnerFact.of("user", "is_a", "vegetarian")]
    kept = remains(EXTRACTOR.by_clause("I love steak. I also love mango sticky rice."), winner,
                   "I'm a vegetarian now.")
    assert kept is not None and "steak" not in kept.text and "mango sticky rice" in kept.text


def test_a_diet_is_screened_against_the_likings() -> None:
    user, diet = Entity("u", "user", "user"), Entity("v", "vegetarian", "thing")
    _, predicates = _new_facts("m", [Triple("t", user, "is_a", diet, "m")])
    assert "likes" in predicates
