"""Unit tests of the rule triple extractor (ingest/extract.py): zh, en and mixed turns, negation, vocabulary."""

from __future__ import annotations

import pytest

from ingest.extract import (
    PREDICATES,
    SINGLE_VALUED_PREDICATES,
    USER,
    ExtractedTriple,
    RuleTripleExtractor,
    TripleExtractor,
    normalize_term,
)

EXTRACTOR = RuleTripleExtractor()


def spo(text: str) -> set[tuple[str, str, str, int]]:
    return {(t.subject, t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # preferences and diet, with negation as polarity -1 on the same predicate
        ("我喜欢吃辣", {(USER, "likes", "辣", 1)}),
        ("我不吃辣", {(USER, "eats", "辣", -1)}),
        ("我不喜欢香菜", {(USER, "likes", "香菜", -1)}),
        ("我讨厌下雨天", {(USER, "likes", "下雨天", -1)}),
        ("我爱猫，不太喜欢狗", {(USER, "likes", "猫", 1), (USER, "likes", "狗", -1)}),
        ("我最喜欢的颜色是蓝色", {(USER, "likes", "蓝色", 1)}),
        ("I love spicy food", {(USER, "likes", "spicy food", 1)}),
        ("I don't eat pork", {(USER, "eats", "pork", -1)}),
        ("I can't stand cilantro", {(USER, "likes", "cilantro", -1)}),
        ("I'm not a big fan of seafood", {(USER, "likes", "seafood", -1)}),
        ("I enjoy hiking on weekends", {(USER, "likes", "hiking", 1)}),
        # identity and attributes
        ("我叫小明", {(USER, "name", "小明", 1)}),
        ("我的生日是7月20日", {(USER, "birthday", "7月20日", 1)}),
        ("我住在成都", {(USER, "lives_in", "成都", 1)}),
        ("我今年二十八岁了", {(USER, "age", "28", 1)}),
        ("我是四川人", {(USER, "hometown", "四川", 1)}),
        ("我是一名小学老师", {(USER, "is_a", "小学老师", 1)}),
        ("我已经不在阿里工作了", {(USER, "works_at", "阿里", -1)}),
        ("我以前住在北京，现在住在上海", {(USER, "lives_in", "北京", -1), (USER, "lives_in", "上海", 1)}),
        ("My name is Alice Chen.", {(USER, "name", "Alice Chen", 1)}),
        (
            "I work at Google as a data scientist",
            {(USER, "works_at", "Google", 1), (USER, "is_a", "data scientist", 1)},
        ),
        ("I'm 34 years old", {(USER, "age", "34", 1)}),
        ("I used to live in London", {(USER, "lives_in", "London", -1)}),
        # relations to people, and what is said about them
        ("我的妻子是王丽", {(USER, "spouse", "王丽", 1)}),
        ("我妈妈是医生", set()),  # an unnamed relative's job: no triple
        ("我哥哥叫王磊，他在上海工作", {(USER, "brother", "王磊", 1), ("王磊", "works_at", "上海", 1)}),
        ("我有一个妹妹，叫小雨", {(USER, "sister", "小雨", 1)}),
        ("My sister Anna lives in Toronto", {(USER, "sister", "Anna", 1), ("Anna", "lives_in", "Toronto", 1)}),
        ("my sister is called Jane", {(USER, "sister", "Jane", 1)}),
        ("I have two kids, Emma and Leo", {(USER, "child", "Emma", 1), (USER, "child", "Leo", 1)}),
        ("I have a cat called Mochi", {(USER, "pet", "Mochi", 1)}),
        # health (safety-critical)
        ("我对花生过敏", {(USER, "allergic_to", "花生", 1)}),
        (
            "I'm allergic to shellfish and nuts",
            {(USER, "allergic_to", "shellfish", 1), (USER, "allergic_to", "nuts", 1)},
        ),
        ("I have type 2 diabetes", {(USER, "has_condition", "type 2 diabetes", 1)}),
        ("我对花生不过敏", {(USER, "allergic_to", "花生", -1)}),
        ("I'm not allergic to latex", {(USER, "allergic_to", "latex", -1)}),
        # experiences: the place of a past event, never of a plan
        ("上次在成都吃的火锅很棒", {(USER, "visited", "成都", 1)}),
        ("去年夏天我去了日本旅游", {(USER, "visited", "日本", 1)}),
        ("Last summer I went to Japan with my family", {(USER, "visited", "Japan", 1)}),
        ("下周三我要飞去上海出差", set()),
        ("I'm flying to New York tomorrow for a conference", set()),
        # general knowledge stated by the user
        ("火锅起源于重庆", {("火锅", "originates_from", "重庆", 1)}),
        ("Paris is the capital of France", {("Paris", "capital_of", "France", 1)}),
    ],
)
def test_examples(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我在 Google 工作", {(USER, "works_at", "Google", 1)}),
        ("我超喜欢 Taylor Swift", {(USER, "likes", "Taylor Swift", 1)}),
        ("我对 penicillin 过敏", {(USER, "allergic_to", "penicillin", 1)}),
        ("My name is 李娜", {(USER, "name", "李娜", 1)}),
        ("I really love 小笼包", {(USER, "likes", "小笼包", 1)}),
        ("I live in 杭州 now", {(USER, "lives_in", "杭州", 1)}),
        ("Last year 我去了 Bali", {(USER, "visited", "Bali", 1)}),
    ],
)
def test_mixed_zh_en(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "你好",
        "好的",
        "ok thanks",
        "你能推荐一个餐厅吗？",
        "What's the capital of France?",
        "你还记得我喜欢什么颜色吗？",
        "帮我算一下 3+5",
        "Do you remember my name?",
        "我每天早上先跑步再吃早饭",
        "我今天特别难过",
        "我喜欢你",
        "",
    ],
)
def test_nothing_to_extract(text: str) -> None:
    assert EXTRACTOR.extract(text) == []


def test_a_statement_inside_a_question_turn_is_kept() -> None:
    assert spo("我对花生过敏，这个蛋糕能吃吗？") == {(USER, "allergic_to", "花生", 1)}
    assert spo("I love spicy food, any restaurant suggestions?") == {(USER, "likes", "spicy food", 1)}


def test_kinds_follow_the_vocabulary() -> None:
    (t,) = EXTRACTOR.extract("我住在成都")
    assert (t.subject_kind, t.object_kind) == ("user", "place")
    (t,) = EXTRACTOR.extract("火锅起源于重庆")
    assert (t.subject_kind, t.object_kind) == ("thing", "place")
    kinds = {t.predicate: (t.subject_kind, t.object_kind) for t in EXTRACTOR.extract("My sister Anna lives in Toronto")}
    assert kinds == {"sister": ("user", "person"), "lives_in": ("person", "place")}


def test_every_extracted_predicate_is_in_the_closed_vocabulary() -> None:
    texts = [
        "我叫小明",
        "我不吃辣",
        "I'm a nurse",
        "我的狗叫旺财",
        "我会说日语和法语",
        "My emergency contact is my brother David",
    ]
    for text in texts:
        for t in EXTRACTOR.extract(text):
            assert t.predicate in PREDICATES
            assert t.polarity in (1, -1)


def test_single_valued_predicates() -> None:
    assert {"name", "birthday", "lives_in", "works_at", "spouse", "age", "hometown"} <= SINGLE_VALUED_PREDICATES
    assert set(PREDICATES) >= SINGLE_VALUED_PREDICATES
    # many values at once are normal for these
    assert not {"likes", "eats", "visited", "friend", "child", "allergic_to", "sister"} & SINGLE_VALUED_PREDICATES


def test_normalize_term_and_key() -> None:
    assert normalize_term("  The Louvre ") == "louvre"
    assert normalize_term("Spicy  Food.") == "spicy food"
    assert normalize_term("成都") == "成都"
    a = ExtractedTriple("user", "user", "likes", "Spicy food", "thing", 1)
    b = ExtractedTriple("user", "user", "likes", "spicy food", "thing", 1)
    assert a.key() == b.key()


def test_duplicates_are_merged_and_the_protocol_holds() -> None:
    extractor: TripleExtractor = RuleTripleExtractor()
    assert spo("我喜欢吃辣，我喜欢吃辣") == {(USER, "likes", "辣", 1)}
    assert extractor.extract("我叫小明") == [ExtractedTriple("user", "user", "name", "小明", "name", 1)]
