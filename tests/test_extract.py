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
    favourite_statements,
    normalize_term,
)
from ingest.lexicon import simplified

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
        # an unnamed relative's job, with the relative as the subject; what else a relative "is" gives none
        ("我妈妈是医生", {("妈妈", "is_a", "医生", 1)}),
        ("我妹在墨尔本当护士", {("妹妹", "is_a", "护士", 1)}),
        ("我老公在华为当工程师", {("老公", "works_at", "华为", 1), ("老公", "is_a", "工程师", 1)}),
        ("我爸以前是警察", {("爸爸", "is_a", "警察", -1)}),
        ("我妈是急性子", set()),
        ("我姐是个吃货", set()),
        ("我妈在医院做手术", set()),
        ("我妈是王芳", {(USER, "mother", "王芳", 1)}),
        ("My sister is a nurse in Melbourne", {("my sister", "is_a", "nurse", 1)}),
        ("My brother works as a chef at a hotel", {("my brother", "is_a", "chef", 1)}),
        ("My dad is a night owl", set()),
        ("My daughter is a huge fan of Taylor Swift", set()),
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
        # a plan: where the user is headed (going_to), no visit yet
        ("下周三我要飞去上海出差", {(USER, "going_to", "上海", 1)}),
        ("I'm flying to New York tomorrow for a conference", {(USER, "going_to", "New York", 1)}),
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
        triples = EXTRACTOR.extract(text)
        assert triples, text  # each text states something: an empty result would check nothing
        for t in triples:
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


# ---------------------------------------------------------------------------------------------
# rule families added after the first blind-set measurement (2026-12-01): each is a general phrasing,
# tested here with sentences that are in none of the labelled sets, in both languages and with negation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # work: 在X做/当/干 + a job, 跳槽, 入职; a city or a generic place is not an employer
        ("我在阿里做产品经理", {(USER, "works_at", "阿里", 1), (USER, "is_a", "产品经理", 1)}),
        ("我以前在百度做运营", {(USER, "works_at", "百度", -1)}),
        ("我已经不在美团做开发了", {(USER, "works_at", "美团", -1)}),
        ("我在上海当律师", {(USER, "is_a", "律师", 1)}),
        # a job title in English as written; an activity in English is no job
        ("我在上海一家 FMCG 外企做 brand marketing manager",
         {(USER, "works_at", "上海一家FMCG外企", 1), (USER, "is_a", "brand marketing manager", 1)}),
        ("我在上海一家外企做会计", {(USER, "works_at", "上海一家外企", 1), (USER, "is_a", "会计", 1)}),
        ("我在家做 yoga and stretching", set()),
        ("在成都做 game dev", {(USER, "is_a", "game dev", 1)}),
        ("我在家做饭", set()),
        ("我去年从百度跳槽到了字节", {(USER, "works_at", "百度", -1), (USER, "works_at", "字节", 1)}),
        # a medicine taken, its dose unsaid (by the ending of its kind: not "I'm on Facebook"); taken, not eaten
        ("I take warfarin, so my doctor watches what I eat", {(USER, "takes_dose", "warfarin", 1)}),
        ("I'm on Facebook a lot", set()), ("I might take metformin", set()), ("she's on losartan now", set()),
        ("我现在吃着氨氯地平", {(USER, "takes_dose", "氨氯地平", 1)}),
        ("我每天吃一片阿托伐他汀", {(USER, "takes_dose", "阿托伐他汀 1片", 1)}),
        # the job at the new place, when one is said; "switch 到" only with a job (not "switch 到 morning run")
        ("我跳槽到字节做产品经理了", {(USER, "works_at", "字节", 1), (USER, "is_a", "产品经理", 1)}),
        ("我 switch 到一个 startup 做 Head of People 了", {(USER, "is_a", "Head of People", 1)}),
        ("我 switch 到 morning run 了", set()),
        ("I work as a nurse at Mercy Hospital", {(USER, "is_a", "nurse", 1), (USER, "works_at", "Mercy Hospital", 1)}),
        # when or how much the user works, between "work" and the job: the job still said
        ("I also work part-time as a bookkeeper from home", {(USER, "is_a", "bookkeeper", 1)}),
        ("I work nights as a nurse at Mercy Hospital",
         {(USER, "is_a", "nurse", 1), (USER, "works_at", "Mercy Hospital", 1)}),
        ("just got a job at Spotify", {(USER, "works_at", "Spotify", 1)}),
        # the subject dropped, as chat does
        ("最近迷上了攀岩", {(USER, "likes", "攀岩", 1)}),
        ("在小米做测试", {(USER, "works_at", "小米", 1), (USER, "is_a", "测试", 1)}),
        ("喜欢就好", set()),
        ("moved to Denver last year", {(USER, "lives_in", "Denver", 1)}),
        ("love dumplings", {(USER, "likes", "dumplings", 1)}),
        ("honestly not a big fan of opera", {(USER, "likes", "opera", -1)}),
        ("like I said, it's fine", set()),
        # pets and people: inline names, 家 prefix, possessive names, we/our, names that stop at an adverb
        ("我养了一条狗叫旺财", {(USER, "pet", "旺财", 1)}),
        ("我家的猫叫豆包", {(USER, "pet", "豆包", 1)}),
        ("我们主管叫刘洋", {(USER, "boss", "刘洋", 1)}),
        ("我室友小林也在杭州工作", {(USER, "friend", "小林", 1), ("小林", "works_at", "杭州", 1)}),
        ("我女儿叫朵朵，今年五岁", {(USER, "child", "朵朵", 1), ("朵朵", "age", "5", 1)}),
        ("我老婆是东北人", set()),
        ("We adopted a puppy named Max", {(USER, "pet", "Max", 1)}),
        ("I've got a cat, her name is Luna", {(USER, "pet", "Luna", 1)}),
        ("my brothers name is Leo", {(USER, "brother", "Leo", 1)}),
        ("My son Jake just turned 8", {(USER, "child", "Jake", 1), ("Jake", "age", "8", 1)}),
        # identity: nicknames, 是X的, 来自, base, type codes are not names, 是…的 statements are nothing
        ("我小名叫豆豆", {(USER, "nickname", "豆豆", 1)}),
        ("我是山东的", {(USER, "hometown", "山东", 1)}),
        ("俺是河南人", {(USER, "hometown", "河南", 1)}),
        ("我不是北京的", {(USER, "hometown", "北京", -1)}),
        ("我来自广东", {(USER, "hometown", "广东", 1)}),
        ("我base在深圳", {(USER, "lives_in", "深圳", 1)}),
        ("我是ENFJ", {(USER, "is_a", "ENFJ", 1)}),
        ("我是认真的", set()),
        ("我是学法律的", {(USER, "major", "法律", 1)}),
        ("Hey, I'm Sarah!", {(USER, "name", "Sarah", 1)}),
        ("I moved from Boston to Denver", {(USER, "lives_in", "Denver", 1), (USER, "lives_in", "Boston", -1)}),
        ("I'm living in Austin now", {(USER, "lives_in", "Austin", 1)}),
        ("I live in the moment", set()),
        # preferences: more verbs, topicalised objects, taste statements, "especially X", with negation
        ("榴莲我真的受不了", {(USER, "likes", "榴莲", -1)}),
        ("奶茶我是真的戒不掉", {(USER, "likes", "奶茶", 1)}),
        ("我对摄影情有独钟", {(USER, "likes", "摄影", 1)}),
        ("今天热得受不了", set()),
        (
            "我喜欢水果，尤其是芒果和荔枝",
            {(USER, "likes", "水果", 1), (USER, "likes", "芒果", 1), (USER, "likes", "荔枝", 1)},
        ),
        ("I'm addicted to bubble tea", {(USER, "likes", "bubble tea", 1)}),
        ("I'm not really into horror movies", {(USER, "likes", "horror movies", -1)}),
        ("cilantro is gross", {(USER, "likes", "cilantro", -1)}),
        ("jazz isn't really my thing", {(USER, "likes", "jazz", -1)}),
        ("Traffic is nasty today", set()),
        ("I've never liked mushrooms", {(USER, "likes", "mushrooms", -1)}),
        ("I love pasta, especially carbonara", {(USER, "likes", "pasta", 1), (USER, "likes", "carbonara", 1)}),
        ("I like reading books online", {(USER, "likes", "reading books", 1)}),
        ("I love it here", set()),
        # diet: cannot eat/drink, gave up, 一点X都不吃
        ("我吃不了辣", {(USER, "eats", "辣", -1)}),
        ("我不能吃海鲜", {(USER, "eats", "海鲜", -1)}),
        ("我已经戒了咖啡", {(USER, "drinks", "咖啡", -1)}),
        ("我戒烟了", set()),
        ("我一口酒都不喝", {(USER, "drinks", "酒", -1)}),
        ("I gave up coffee last year", {(USER, "drinks", "coffee", -1)}),
        ("I cut out sugar", {(USER, "eats", "sugar", -1)}),
        # languages: list items lose their degree word; negation
        (
            "我会说英语、法语和一点德语",
            {(USER, "speaks", "英语", 1), (USER, "speaks", "法语", 1), (USER, "speaks", "德语", 1)},
        ),
        ("我不会说日语", {(USER, "speaks", "日语", -1)}),
        ("I don't speak French", {(USER, "speaks", "French", -1)}),
        # health
        ("我有麸质不耐受", {(USER, "has_condition", "麸质不耐受", 1)}),
        ("我没有高血压", {(USER, "has_condition", "高血压", -1)}),
        ("I have celiac", {(USER, "has_condition", "celiac", 1)}),
        ("I'm diabetic", {(USER, "has_condition", "diabetes", 1)}),
        ("I don't have asthma", {(USER, "has_condition", "asthma", -1)}),
        # experiences: 去X吃的, 在<known place>…了, 从X回来, "at <Name>" with a past time; never work or plans
        ("上周去杭州玩的", {(USER, "visited", "杭州", 1)}),
        ("昨天在鼓浪屿拍了好多照片", {(USER, "visited", "鼓浪屿", 1)}),
        ("刚从日本回来", {(USER, "visited", "日本", 1)}),
        ("下周从日本回来", set()),
        ("Went to the Grand Canyon in 2020", {(USER, "visited", "Grand Canyon", 1)}),
        ("We had dinner at Nobu last night", {(USER, "visited", "Nobu", 1)}),
        ("I had lunch at work yesterday", set()),
        # knowledge: more verbs, and a correction "X, not Z"
        ("茅台产自贵州", {("茅台", "originates_from", "贵州", 1)}),
        ("成都是四川的省会", {("成都", "capital_of", "四川", 1)}),
        ("辣椒是从美洲传过来的", {("辣椒", "originates_from", "美洲", 1)}),
        (
            "Paris is the capital of France, not Lyon",
            {("Paris", "capital_of", "France", 1), ("Lyon", "capital_of", "France", -1)},
        ),
        ("Sushi originated in Japan", {("Sushi", "originates_from", "Japan", 1)}),
        # more of the same families: we/our, "been living", fav, coordinated topics, routines are not visits
        ("we just moved to Seattle", {(USER, "lives_in", "Seattle", 1)}),
        ("Been living in Tokyo for 3 years", {(USER, "lives_in", "Tokyo", 1)}),
        ("My fav food is ramen", {(USER, "likes", "ramen", 1)}),
        ("猫和狗我都喜欢", {(USER, "likes", "猫", 1), (USER, "likes", "狗", 1)}),
        ("I'm lactose intolerant", {(USER, "has_condition", "lactose intolerance", 1)}),
        ("I usually go to Costco on Sundays", set()),
        ("I hate when people are late", set()),
        ("I grew up in a small town", set()),
    ],
)
def test_rule_families(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


# ---------------------------------------------------------------------------------------------
# rule families added when the second blind set became a development set (2026-12-01); again
# general phrasings, tested with new sentences that are in none of the labelled sets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a second subjectless verb phrase in one zh clause (也/还 + verb); nothing to split after a bare pronoun
        ("我不喝可乐也不喝雪碧", {(USER, "drinks", "可乐", -1), (USER, "drinks", "雪碧", -1)}),
        ("我喜欢爬山也喜欢游泳", {(USER, "likes", "爬山", 1), (USER, "likes", "游泳", 1)}),
        ("他也不吃辣", set()),
        # familiar name forms (小X / 阿X / 老+surname) after a relation, with a time word or 一起 after the name
        ("我女儿小贝今年三岁", {(USER, "child", "小贝", 1), ("小贝", "age", "3", 1)}),
        ("我朋友阿强明天过来", {(USER, "friend", "阿强", 1)}),
        ("我闺蜜阿敏下周要去日本", {(USER, "friend", "阿敏", 1)}),
        ("我和室友老陈一起做饭", {(USER, "friend", "老陈", 1)}),
        # several names for a pending relation; breeds and animals are pets
        ("我有两只狗，一只叫可可另一只叫布丁", {(USER, "pet", "可可", 1), (USER, "pet", "布丁", 1)}),
        ("我家有一只金毛，叫大黄", {(USER, "pet", "大黄", 1)}),
        ("我养了一只仓鼠叫团子", {(USER, "pet", "团子", 1)}),
        # self-introduction and emergency contacts with 写/填 and a relation
        ("本人王子涵", {(USER, "name", "王子涵", 1)}),
        ("本人比较内向", set()),
        ("紧急联系人填我哥哥张强", {(USER, "brother", "张强", 1), (USER, "emergency_contact", "张强", 1)}),
        # study and work: 学的X without 是, 是在X读的, 在X干, 现在在Y, 是X的<job>, unnamed employers
        ("我学的金融", {(USER, "major", "金融", 1)}),
        ("学的很累", set()),
        ("我是在南大读的研究生", {(USER, "studies_at", "南大", 1)}),
        ("我以前在京东干过", {(USER, "works_at", "京东", -1)}),
        ("我以前在华为上班，现在在小米", {(USER, "works_at", "华为", -1), (USER, "works_at", "小米", 1)}),
        ("我是网易的游戏策划", {(USER, "works_at", "网易", 1), (USER, "is_a", "游戏策划", 1)}),
        ("我是北京的老师", {(USER, "is_a", "老师", 1)}),
        ("我是班上的学生", {(USER, "is_a", "学生", 1)}),
        ("我在厨房干活", set()),
        ("我在一家银行当柜员", {(USER, "is_a", "柜员", 1)}),
        # home: 在X住过 (with 以前: no longer), 在X租房; generic places are no home town
        ("我以前在西安住过三年", {(USER, "lives_in", "西安", -1)}),
        ("我在南京租房", {(USER, "lives_in", "南京", 1)}),
        ("我不是外地人", set()),
        ("我在这里住了两年", set()),
        # age at the end of a clause, bare conditions, MBTI, fans
        ("我今年四十", {(USER, "age", "40", 1)}),
        ("我高血压，平时要吃药", {(USER, "has_condition", "高血压", 1)}),
        ("我生病了", set()),
        ("我的MBTI是ENTP", {(USER, "is_a", "ENTP", 1)}),
        ("我是五月天的歌迷", {(USER, "likes", "五月天", 1)}),
        # topicalised objects: 无感, lists closed by 这些, what one does still eat
        ("恐怖片我完全无感", {(USER, "likes", "恐怖片", -1)}),
        ("可乐、雪碧这些我都不喝", {(USER, "drinks", "可乐", -1), (USER, "drinks", "雪碧", -1)}),
        ("鱼和虾还是吃的", {(USER, "eats", "鱼", 1), (USER, "eats", "虾", 1)}),
        # preferences: 我这人, 就是, dropped subject with 爱, 爱去<activity>
        ("我这人就是爱喝茶", {(USER, "likes", "茶", 1)}),
        ("周末最爱去钓鱼", {(USER, "likes", "钓鱼", 1)}),
        # experiences: 去X<activity> with a past time word, never without one; 外地 is no place
        ("去年去青岛度假", {(USER, "visited", "青岛", 1)}),
        ("去年去成都玩了一圈", {(USER, "visited", "成都", 1)}),
        ("我经常去上海出差", set()),
        ("今年在外地过的中秋", set()),
        # knowledge: X的首都是Y and a correction 不是Z
        (
            "加拿大的首都是渥太华，不是多伦多",
            {("渥太华", "capital_of", "加拿大", 1), ("多伦多", "capital_of", "加拿大", -1)},
        ),
        # English: the person just named, by pronoun
        ("My brother Sam lives in Leeds, he's a plumber", {
            (USER, "brother", "Sam", 1), ("Sam", "lives_in", "Leeds", 1), ("Sam", "is_a", "plumber", 1)}),
        ("my dog's name is Pepper and she's 4", {(USER, "pet", "Pepper", 1), ("Pepper", "age", "4", 1)}),
        ("my manager is a woman named Priya", {(USER, "boss", "Priya", 1)}),
        # English experiences: got back from, through + a list, an event's venue, not the event
        ("just got back from Portugal", {(USER, "visited", "Portugal", 1)}),
        ("I got back from the gym", set()),
        ("Last spring I cycled through Belgium and the Netherlands", {
            (USER, "visited", "Belgium", 1), (USER, "visited", "Netherlands", 1)}),
        ("Last month I went to the Adele concert in Vegas", {(USER, "visited", "Vegas", 1)}),
        # English diet, identity and taste statements
        ("no gluten for me", {(USER, "eats", "gluten", -1)}),
        ("no worries for me", set()),
        ("I'm pescatarian", {(USER, "is_a", "pescatarian", 1)}),
        ("I'm not vegetarian", {(USER, "is_a", "vegetarian", -1)}),
        ("hot sauce is my weakness", {(USER, "likes", "hot sauce", 1)}),
        ("Mondays are the worst", {(USER, "likes", "Mondays", -1)}),
        ("The weather is the worst", set()),
        ("I'd choose trains over planes", {(USER, "likes", "trains", 1)}),
        ("I like jogging in the mornings", {(USER, "likes", "jogging", 1)}),
        ("rainy days ☔ are my thing", {(USER, "likes", "rainy days", 1)}),
        # English age, study and home
        ("I'm worried I'm too old to learn piano at 52", {(USER, "age", "52", 1)}),
        ("He is too young at 5", set()),
        ("I'm a third year at Yale studying history", {(USER, "studies_at", "Yale", 1), (USER, "major", "history", 1)}),
        ("I'm studying law at Harvard", {(USER, "major", "law", 1), (USER, "studies_at", "Harvard", 1)}),
        ("I've lived in Lisbon for six years", {(USER, "lives_in", "Lisbon", 1)}),
        ("I've lived in three countries", set()),
        ("moved here from Houston two years ago", {(USER, "lives_in", "Houston", -1)}),
        # corrections and list tails on the previous statement
        ("I'm 27, not 25", {(USER, "age", "27", 1), (USER, "age", "25", -1)}),
        ("I work at IBM, not Intel", {(USER, "works_at", "IBM", 1), (USER, "works_at", "Intel", -1)}),
        ("Coffee originally comes from Ethiopia, not Brazil", {
            ("Coffee", "originates_from", "Ethiopia", 1), ("Coffee", "originates_from", "Brazil", -1)}),
        ("I speak Hindi and Urdu, and a little Arabic", {
            (USER, "speaks", "Hindi", 1), (USER, "speaks", "Urdu", 1), (USER, "speaks", "Arabic", 1)}),
        ("I love tea, and my brother loves coffee", {(USER, "likes", "tea", 1)}),
    ],
)
def test_rule_families_second_round(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


# Rule families added when blind set 3 became a development set (2026-12-01). Sentences in none of the labelled sets.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a zh list closed by 都 (对X和Y都过敏 / 都感兴趣)
        ("我对猫和狗都过敏", {(USER, "allergic_to", "猫", 1), (USER, "allergic_to", "狗", 1)}),
        ("我对围棋和象棋都很感兴趣", {(USER, "likes", "围棋", 1), (USER, "likes", "象棋", 1)}),
        ("我们都很忙", set()),
        # more named conditions, 民 as a role suffix, 本人 as the formal 我
        ("我有甲减", {(USER, "has_condition", "甲减", 1)}),
        ("我是牧民", {(USER, "is_a", "牧民", 1)}),
        ("本人是一名护士", {(USER, "is_a", "护士", 1)}),
        ("本人非常喜欢游泳", {(USER, "likes", "游泳", 1)}),
        ("本人是认真的", set()),
        # zh idioms of taste and abstinence, topicalised things avoided (都不敢碰 / 这种东西…受不了)
        ("我是无肉不欢", {(USER, "likes", "肉", 1)}),
        ("奶茶是我的命根子", {(USER, "likes", "奶茶", 1)}),
        ("我基本滴酒不沾", {(USER, "drinks", "酒", -1)}),
        ("他滴酒不沾", set()),
        ("羊肉和白酒都不敢碰", {(USER, "eats", "羊肉", -1), (USER, "drinks", "白酒", -1)}),
        ("榴莲这种东西我真的受不了", {(USER, "likes", "榴莲", -1)}),
        ("这种东西我真的受不了", set()),
        # 是真的 as an adverb, 享受 as a like verb (一个人 is no quantity)
        ("我是真的不喜欢下雨天", {(USER, "likes", "下雨天", -1)}),
        ("我是真的累了", set()),
        ("我很享受一个人旅行", {(USER, "likes", "一个人旅行", 1)}),
        # a celebration held at a named place, a named mountain climbed; a pet's breed is no identity
        ("去年在西湖结的婚", {(USER, "visited", "西湖", 1)}),
        ("上周在全聚德过的生日", {(USER, "visited", "全聚德", 1)}),
        ("我们上个月在外婆家过的年", set()),
        ("前年登了黄山", {(USER, "visited", "黄山", 1)}),
        ("我爬了一下午楼梯", set()),
        ("我家猫叫咪咪，是只英短", {(USER, "pet", "咪咪", 1)}),
        # base + city without 在
        ("我在Shopee做运营，base新加坡",
         {(USER, "works_at", "Shopee", 1), (USER, "is_a", "运营", 1), (USER, "lives_in", "新加坡", 1)}),
        # English: what the sentence says of a person just named (from, allergic to, an age in words)
        ("My colleague Priya is from Chennai.", {(USER, "colleague", "Priya", 1), ("Priya", "hometown", "Chennai", 1)}),
        ("My husband Tom is allergic to shellfish and peanuts.", {
            (USER, "spouse", "Tom", 1), ("Tom", "allergic_to", "shellfish", 1), ("Tom", "allergic_to", "peanuts", 1)}),
        ("My son Leo just turned nine.", {(USER, "child", "Leo", 1), ("Leo", "age", "9", 1)}),
        ("My neighbour Tom is from work.", set()),
        # a relation at a clause end, named in the next clause
        ("I live in Bristol with my wife, Anna.", {(USER, "lives_in", "Bristol", 1), (USER, "spouse", "Anna", 1)}),
        ("I went to the park with my sister.", set()),
        # work: a schedule before "at", "I'm at X now" after a job, medication for a condition
        ("I work weekends at Costco.", {(USER, "works_at", "Costco", 1)}),
        ("I work nights.", set()),
        ("I left Google, I'm at Stripe now.", {(USER, "works_at", "Google", -1), (USER, "works_at", "Stripe", 1)}),
        ("I'm at home now.", set()),
        # the medicine too, its dose unsaid
        ("I'm on metformin for diabetes.",
         {(USER, "has_condition", "diabetes", 1), (USER, "takes_dose", "metformin", 1)}),
        ("I'm on sertraline for depression.",
         {(USER, "has_condition", "depression", 1), (USER, "takes_dose", "sertraline", 1)}),
        ("I'm on my way for lunch.", set()),
        # diet: "just / only X" after what one does not eat or drink
        ("I don't eat meat, only fish.", {(USER, "eats", "meat", -1), (USER, "eats", "fish", 1)}),
        ("I don't like coffee, just tea.", {(USER, "likes", "coffee", -1)}),
        # home: a month cut from the place, a stay of years
        ("I moved to Denver in March.", {(USER, "lives_in", "Denver", 1)}),
        ("I've been in Toronto for six years.", {(USER, "lives_in", "Toronto", 1)}),
        ("I've been in Toronto for a week.", set()),
        # languages: "X is my first language", "grew up speaking X"
        ("Dutch is my first language.", {(USER, "speaks", "Dutch", 1)}),
        ("I grew up speaking Hindi and Gujarati.", {(USER, "speaks", "Hindi", 1), (USER, "speaks", "Gujarati", 1)}),
        # taste: "X are the best", lists of activities (but not dishes named with "and")
        ("Dogs are the best.", {(USER, "likes", "Dogs", 1)}),
        ("You are the best.", set()),
        ("I love hiking and swimming.", {(USER, "likes", "hiking", 1), (USER, "likes", "swimming", 1)}),
        ("I love fish and chips.", {(USER, "likes", "fish and chips", 1)}),
        # experiences: "took us to X", a month as the time, a meal or celebration at a named venue
        ("My parents took us to Disneyland.", {(USER, "visited", "Disneyland", 1)}),
        ("I ran a 10k in Oslo last June.", {(USER, "visited", "Oslo", 1)}),
        ("I had my birthday lunch at Dishoom.", {(USER, "visited", "Dishoom", 1)}),
        ("We will have our dinner at Nobu.", set()),
        # zh study: 在X读<subject>, then 学X after the school; a year or level is no subject
        ("我在港大读法律", {(USER, "studies_at", "港大", 1), (USER, "major", "法律", 1)}),
        ("我在复旦读大二", {(USER, "studies_at", "复旦", 1)}),
        ("我在复旦读书，学的是新闻", {(USER, "studies_at", "复旦", 1), (USER, "major", "新闻", 1)}),
        ("我在清华读书，学得很累", {(USER, "studies_at", "清华", 1)}),
        # zh people: 老二/老三 as children, a relation described then named, a modifier before the noun
        ("我家老三叫朵朵", {(USER, "child", "朵朵", 1)}),
        ("我领导是个法国人，叫Pierre", {(USER, "boss", "Pierre", 1)}),
        ("我老板是个好人", set()),
        ("家里养了一只黑猫，叫煤球", {(USER, "pet", "煤球", 1)}),
        ("我有一个好朋友叫小林", {(USER, "friend", "小林", 1)}),
        # an unnamed relative's attributes are not the user's; 一直 continues the person just named
        ("我女儿今年十岁了", set()),
        ("我妈身体不好", set()),
        ("我姐林娜是护士，一直住在广州", {
            (USER, "sister", "林娜", 1), ("林娜", "is_a", "护士", 1), ("林娜", "lives_in", "广州", 1)}),
        # 回老家X, 会一点X话 without 说
        ("我以前住上海，前年回老家南昌了", {(USER, "lives_in", "上海", -1), (USER, "hometown", "南昌", 1)}),
        ("我会说普通话，还会一点闽南话", {(USER, "speaks", "普通话", 1), (USER, "speaks", "闽南话", 1)}),
        ("我会一点做饭", set()),
        # zh knowledge: invented in a place (not by a person), a denied capital and the real one
        ("造纸术是中国发明的", {("造纸术", "originates_from", "中国", 1)}),
        ("火药据说是炼丹师发明的", set()),
        ("土耳其的首都不是伊斯坦布尔，是安卡拉", {
            ("伊斯坦布尔", "capital_of", "土耳其", -1), ("安卡拉", "capital_of", "土耳其", 1)}),
        # gig work at a named company; a topicalised action is no food or drink; a taste loses 太
        ("我在饿了么送外卖", {(USER, "works_at", "饿了么", 1)}),
        ("我在家送外卖", set()),
        ("洗碗水倒掉不喝", set()),
        ("我不爱吃太咸的", {(USER, "likes", "咸", -1)}),
        ("这个菜太咸了", set()),
        # a student's year at a named school with "I'm" dropped
        ("I'm 22, a senior at Duke.", {(USER, "age", "22", 1), (USER, "studies_at", "Duke", 1)}),
        ("a party at Google", set()),
    ],
)
def test_rule_families_third_round(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the speaker starts again after "and": two statements (before: only the first was read)
        ("I live in Boston and I work as a data engineer at Moderna.", {
            (USER, "lives_in", "Boston", 1), (USER, "is_a", "data engineer", 1), (USER, "works_at", "Moderna", 1)}),
        ("I'm a nurse and I live in Paris.", {(USER, "is_a", "nurse", 1), (USER, "lives_in", "Paris", 1)}),
        ("I love sushi and my wife loves pizza.", {(USER, "likes", "sushi", 1)}),  # was 'sushi and my wife ...'
        # one statement with two subjects stays whole
        ("My sister and I live in Paris.", {(USER, "lives_in", "Paris", 1)}),
    ],
)
def test_a_speaker_starting_again_after_and_makes_two_clauses(text: str,
                                                              expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a person by name, with a verb only people take: no relation phrase needed
        ("Lily works at Mercy Hospital.", {("Lily", "works_at", "Mercy Hospital", 1)}),
        ("Tom moved to Berlin last month.", {("Tom", "lives_in", "Berlin", 1)}),
        ("Tom lives in Paris.", {("Tom", "lives_in", "Paris", 1)}),
        ("Emma is allergic to peanuts.", {("Emma", "allergic_to", "peanuts", 1)}),
        ("Tom Hanks lives in LA", {("Tom Hanks", "lives_in", "LA", 1)}),
        # ... and the person named earlier in the turn, with any of their attributes
        ("My sister Anna lives in Rome. Anna works at Gucci.", {
            (USER, "sister", "Anna", 1), ("Anna", "lives_in", "Rome", 1), ("Anna", "works_at", "Gucci", 1)}),
        ("My friend Sam is from Leeds. Sam is a nurse.", {
            (USER, "friend", "Sam", 1), ("Sam", "hometown", "Leeds", 1), ("Sam", "is_a", "nurse", 1)}),
        ("我姐姐叫小美，小美在腾讯工作。", {(USER, "sister", "小美", 1), ("小美", "works_at", "腾讯", 1)}),
        ("我姐姐叫小美。小美住在杭州", {(USER, "sister", "小美", 1), ("小美", "lives_in", "杭州", 1)}),
        ("李雷在腾讯工作", {("李雷", "works_at", "腾讯", 1)}),
        ("老王现在住在北京", {("老王", "lives_in", "北京", 1)}),
        ("小美跳槽去了阿里", {("小美", "works_at", "阿里", 1)}),
        ("老王搬到深圳了", {("老王", "lives_in", "深圳", 1)}),
        ("张伟刚搬到成都", {("张伟", "lives_in", "成都", 1)}),  # 刚 is no part of the name
        # the pronoun after a person opening a clause, with an adverb; two attributes in one clause
        ("Sarah got a new job, she now works at King's College Hospital.",
         {("Sarah", "works_at", "King's College Hospital", 1)}),
        ("Correction: Tom's not in Berlin, he moved to Munich.", {("Tom", "lives_in", "Munich", 1)}),
        # when they work, between the verb and the place; a clause opening with a joining word
        ("I moved my pickleball to evenings, because Linda works mornings at the library.",
         {("Linda", "works_at", "the library", 1)}),
        ("and Tom works nights at St. Mary's", {("Tom", "works_at", "St. Mary's", 1)}),
        ("because Monday works for me", set()),
        ("My sister Amy lives in Oslo and works at Equinor.", {
            (USER, "sister", "Amy", 1), ("Amy", "lives_in", "Oslo", 1), ("Amy", "works_at", "Equinor", 1)}),
        # a person named late in the clause leaves the words before it to the rules
        ("I live in London with my wife and our dog Max.", {(USER, "pet", "Max", 1), (USER, "lives_in", "London", 1)}),
        # not a person, or not a fact about one
        ("Tom is from Canada.", set()),
        ("Paris is lovely, she said", set()),  # unknown Tom: "Pizza is from Italy" reads the same
        ("Paris is a beautiful city.", set()),
        ("Lily works at a hospital.", set()),  # an unnamed organisation
        ("Tom moved to a new flat", set()),
        ("Yesterday Tom moved to Berlin", set()),
        ("Mom works at a bank", set()),
        ("Sushi comes from Japan", {("Sushi", "originates_from", "Japan", 1)}),
        ("Tom住在北京", set()),  # was (Tom住, located_in, 北京)
        ("小孩在学校上班", set()),
        ("故宫在北京", {("故宫", "located_in", "北京", 1)}),
    ],
)
def test_facts_about_a_person_by_name(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # colloquial Chinese: a space for a comma, 没 before a trip, 过 and a duration, 现在's 在, a named person's
    # allergy after an opener, "什么都不过敏", a job being thought about, a condition and its consequence
    ("我没去过厦门 老陈去过好几次了", set()),
    ("我从来没吃过榴莲", {(USER, "eats", "榴莲", -1)}),
    ("我们住在滨江好几年了", {(USER, "lives_in", "滨江", 1)}),
    ("我现在可以吃辣了", set()),
    ("对了朵朵对花生过敏！！很严重的那种", {("朵朵", "allergic_to", "花生", 1)}),
    ("我自己倒是什么都不过敏", set()),
    ("其实我最近在考虑换工作", set()),
    ("不喝咖啡我上班会死的", set()),
])
def test_colloquial_chinese(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # changes of mind said in other words (none was found: the old fact stayed current)
    ("I relocated to Hamburg last month.", {(USER, "lives_in", "Hamburg", 1)}),
    ("I used to love coffee, but now I prefer tea.", {(USER, "likes", "coffee", -1), (USER, "likes", "tea", 1)}),
    ("Lately I've switched from coffee to tea.", {(USER, "likes", "coffee", -1), (USER, "likes", "tea", 1),
                                                   (USER, "drinks", "tea", 1)}),
    # a drink switched to is drunk now; not someone else's, not a suggestion, not a switch of something else
    ("also switched to matcha, down to one a day", {(USER, "drinks", "matcha", 1)}),
    ("I've switched over to decaf", {(USER, "drinks", "decaf", 1)}),
    ("I swapped coffee for green tea", {(USER, "drinks", "green tea", 1)}),
    ("My husband switched to decaf", set()), ("I switched to Android", set()),
    ("最近改喝抹茶了", {(USER, "drinks", "抹茶", 1)}), ("咖啡戒了，换成绿茶", {(USER, "drinks", "绿茶", 1)}),
    ("我老公改喝茶了", set()), ("换成绿茶吧", set()),
    ("我每天喝三杯咖啡", {(USER, "drinks", "咖啡", 1)}),  # how much is not what
    ("I just quit Google. Starting at Microsoft next Monday!", {(USER, "works_at", "Google", -1)}),
    ("我是四川人，超级能吃辣", {(USER, "hometown", "四川", 1), (USER, "eats", "辣", 1)}),
    ("我不能再吃辣了", {(USER, "eats", "辣", -1)}),
    ("Anna and I broke up last month.", {(USER, "partner", "Anna", -1)}),
    ("Tom and I got divorced.", {(USER, "spouse", "Tom", -1)}), ("I'm married to Tom.", {(USER, "spouse", "Tom", 1)}),
    ("我和小美分手了", {(USER, "partner", "小美", -1)}), ("我跟王强离婚了", {(USER, "spouse", "王强", -1)}),
    ("我和朋友分开走了", set()),
    # a home named by where it is, an employer joined: the subject dropped, as chat does
    ("my flat in Kreuzberg is tiny", {(USER, "lives_in", "Kreuzberg", 1)}),
    ("just got the keys to our new place in Oakland!", {(USER, "lives_in", "Oakland", 1)}),
    ("we settled in Lisbon in the end", {(USER, "lives_in", "Lisbon", 1)}),
    ("I'm renting a room in Camden", {(USER, "lives_in", "Camden", 1)}),
    ("my sister's flat in Leeds", set()), ("I'm renting a car in Denver", set()),
    # where the household is, said as being there; not a stay, a school year, a chapter
    ("we're in Brunswick, Melbourne, kitchen's about 24 degrees", {(USER, "lives_in", "Brunswick", 1)}),
    ("I'm in Flagstaff now, it's cold", {(USER, "lives_in", "Flagstaff", 1)}),
    ("I'm in Paris for the weekend", set()), ("we're in Lisbon this week", set()),
    ("I'm in Berlin visiting my sister", set()), ("I'm in Tokyo right now", set()), ("I'm in Year 10", set()),
    ("I'm in Chapter 3 of my thesis", set()), ("we're in March already", set()),
    ("我现在租在望京", {(USER, "lives_in", "望京", 1)}), ("入职腾讯了", {(USER, "works_at", "腾讯", 1)}),
    ("上个月跳槽去了阿里", {(USER, "works_at", "阿里", 1)}),
    # the home town one goes back to for the New Year; a job said with how well or how long it is done; a promotion
    ("过年回潮州 我妈天天安排相亲", {(USER, "hometown", "潮州", 1)}),
    ("回老家潮州过年", {(USER, "hometown", "潮州", 1)}),
    ("我老家洛阳的", {(USER, "hometown", "洛阳", 1)}), ("过年回家", set()), ("过年回公司加班", set()),
    ("我在上海做HR做得好好的", {(USER, "is_a", "HR", 1)}), ("我在南宁做会计做了三年", {(USER, "is_a", "会计", 1)}),
    ("好消息 我升 branch manager 了！", {(USER, "is_a", "branch manager", 1)}),
    ("终于升了店长", {(USER, "is_a", "店长", 1)}),
    ("手机升级到iOS 18了", set()), ("我升初三了", set()),
    # a line of work said as what one does, a teacher by what is taught
    ("I work in product", {(USER, "is_a", "product", 1)}), ("I'm in sales", {(USER, "is_a", "sales", 1)}),
    ("I'm in Denver", {(USER, "lives_in", "Denver", 1)}), ("I'm in it for the money", set()),
    ("I teach 4th years", {(USER, "is_a", "teacher", 1)}), ("I teach my son piano", set()),
    ("我教小学数学", {(USER, "is_a", "老师", 1)}), ("教我做饭", set()),
    # a sport played now or given up (is_sport decides: not the piano, not a phone game)
    ("I play tennis every Sunday", {(USER, "likes", "tennis", 1)}),
    ("I do yoga twice a week", {(USER, "likes", "yoga", 1)}),
    ("I quit tennis in March", {(USER, "likes", "tennis", -1)}), ("I play the piano", set()), ("I quit my job", set()),
    ("badminton 不打了 膝盖顶不住 现在改玩 pickleball 比较 gentle",
     {(USER, "likes", "badminton", -1), (USER, "likes", "pickleball", 1)}),
    ("现在改打网球了", {(USER, "likes", "网球", 1)}), ("王者不玩了", set()),
    ("换成跑步了", {(USER, "likes", "跑步", 1)}), ("换成iPhone了", set()),
    ("I play padel on Fridays", {(USER, "likes", "padel", 1)}),
    # a relative's name ends where what they do begins (教, 开, 打 ...): not 小明开车, not a child named 教小
    ("我儿子小明开车很稳", {(USER, "child", "小明", 1)}), ("我妹妹小雨打羽毛球", {(USER, "sister", "小雨", 1)}),
    ("我儿子教小学", set()),
])
def test_a_change_of_mind_in_other_words(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # the speaker correcting themself: the right value in the statement ("name 天津" was read of 是天津)
    ("我住在北京，不对，是天津。", {(USER, "lives_in", "天津", 1)}),
    ("我在腾讯工作，哦不对，是阿里", {(USER, "works_at", "阿里", 1)}),
    ("I live in Berlin — sorry, Hamburg.", {(USER, "lives_in", "Hamburg", 1)}),
    ("My birthday is May 5th, no wait, May 15th.", {(USER, "birthday", "May 15th", 1)}),
    ("I work at Siemens, I mean BMW.", {(USER, "works_at", "BMW", 1)}),
    # a mark before a statement of its own is no correction of a value
    ("Sorry, I live in Paris", {(USER, "lives_in", "Paris", 1)}),
    ("I live in Berlin. Sorry, I'm tired today", {(USER, "lives_in", "Berlin", 1)}),
    # nor a phrase after "I mean" / "wait" (each put its words in the fact before it)
    ("I live in Berlin. Wait, Tom just called", {(USER, "lives_in", "Berlin", 1)}),
    ("I live in Boston, I mean the city, not the state", {(USER, "lives_in", "Boston", 1)}),
    ("I'm allergic to peanuts, I mean seriously", {(USER, "allergic_to", "peanuts", 1)}),
    ("I love sushi, I mean really love it", {(USER, "likes", "sushi", 1)}),
    ("我对花生过敏，我的意思是非常严重", {(USER, "allergic_to", "花生", 1)}),
    ("I love sushi, sorry I mean ramen", {(USER, "likes", "ramen", 1)}),
])
def test_a_self_correction_puts_its_value_in_the_statement(text: str,
                                                           expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # where a trip stayed is no home (it superseded 我住在成都), nor a move still to come (where one is headed: a maybe
    # is not even that)
    ("我们全家去年去杭州玩了一周，住在西湖边。", {(USER, "visited", "杭州", 1)}),
    ("我明年可能会搬到上海。", set()), ("我打算搬到深圳", {(USER, "going_to", "深圳", 1)}),
    ("我下个月要搬到北京了", {(USER, "going_to", "北京", 1)}),
    # said beside a trip as where one lives now, or a move done, it is
    ("去年去杭州玩了，我现在住在上海", {(USER, "visited", "杭州", 1), (USER, "lives_in", "上海", 1)}),
    ("我刚搬到上海", {(USER, "lives_in", "上海", 1)}), ("我们搬到了杭州", {(USER, "lives_in", "杭州", 1)}),
])
def test_a_stay_or_a_move_to_come_is_no_home(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # where the user is headed, said as a plan: a trip, a season away, a move
    ("I'm going to Japan next month", {(USER, "going_to", "Japan", 1)}),
    ("We're flying to Lisbon on Friday", {(USER, "going_to", "Lisbon", 1)}),
    ("I'm moving to Denver in March", {(USER, "going_to", "Denver", 1)}),
    ("I'll be in Tokyo next week", {(USER, "going_to", "Tokyo", 1)}),
    ("We've decided to spend summers in Flagstaff from now on", {(USER, "going_to", "Flagstaff", 1)}),
    ("We're planning to visit Portugal in May", {(USER, "going_to", "Portugal", 1)}),
    ("I'm planning a trip to Japan in late December with Xue.", {(USER, "going_to", "Japan", 1)}),
    ("I'm organizing a vacation to Thailand with my friends.", {(USER, "going_to", "Thailand", 1)}),  # no visit yet
    ("trying to learn spanish before my trip to Mexico City in november", {(USER, "going_to", "Mexico City", 1)}),
    ("I'm not going to Cancun anymore", {(USER, "going_to", "Cancun", -1)}),
    ("今年不去那了，太贵，改去广西北海", {(USER, "going_to", "广西北海", 1)}),
    ("下个月我要去日本出差", {(USER, "going_to", "日本", 1)}),
    ("我们打算国庆去云南玩", {(USER, "going_to", "云南", 1)}),
    ("簽證下來了！三月出發 先去墨爾本", {(USER, "going_to", "墨尔本", 1)}),
    ("不去三亚了", {(USER, "going_to", "三亚", -1)}),
    # no plan of the user's: a trip said as past, a person's place, a verb, a wish, someone's words, a maybe
    ("My trip to Japan last year was amazing", {(USER, "visited", "Japan", 1)}),
    ("I'm going to Sarah's party", set()), ("I'm going to Make it work", set()),
    ("想去京都", set()), ("女朋友小鹿说五一想去京都", set()), ("想毕业后去日本打工度假", set()),
    ("我明年可能会去上海", set()),
    ("上个月去东京出差了", {(USER, "visited", "东京", 1)}), ("我去北京玩过", {(USER, "visited", "北京", 1)}),
    ("国庆我们全家去三亚玩了", {(USER, "visited", "三亚", 1)}), ("春节去泰国清迈打了五天球", set()),
    ("计划明年去大阪交换一年", {(USER, "going_to", "大阪", 1)}),
    ("booked the Mexico City flights! Nov 8 to 17", {(USER, "going_to", "Mexico City", 1)}),
    ("just booked flights to Lisbon for May", {(USER, "going_to", "Lisbon", 1)}),
    ("I booked the Taylor Swift tickets", set()),
    # someone else's plan, or no place where one would start
    ("小鹿要去上海学新娘造型，三个月", set()), ("Kevin 要去深圳常驻了", set()), ("组里聚餐又要去吃海鲜自助", set()),
])
def test_where_the_user_is_headed(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # a diet rule for some times is no plain no (it contradicted "I eat breakfast with my kids on weekends")
    ("I never eat breakfast on weekdays.", set()),
    ("I don't drink coffee after 3pm", set()),
    ("我晚上不喝咖啡", set()),
    ("我周一不吃肉", set()),
    # a no for a bounded while: 这周我不喝咖啡 superseded 我每天都喝咖啡
    ("这周我不喝咖啡", set()), ("今天我不吃肉", set()), ("这几天我不吃辣", set()),
    ("I'm not drinking coffee this week", set()),
    ("最近我不喝酒", {(USER, "drinks", "酒", -1)}),  # lately: a change, not a while
    ("Starting today I don't drink coffee anymore", {(USER, "drinks", "coffee", -1)}),  # said to last
    # a plain no, and a yes said with a time, stay
    ("I don't eat meat", {(USER, "eats", "meat", -1)}),
    ("我不喝咖啡", {(USER, "drinks", "咖啡", -1)}),
    ("I eat breakfast with my kids on weekends.", {(USER, "eats", "breakfast", 1)}),
])
def test_a_no_for_some_times_is_no_diet_triple(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


def test_an_allergy_said_with_shi_is_an_allergy_not_an_identity() -> None:
    """是对X过敏 read as is_a "对X过敏" before: the correction of an allergy contradicted nothing."""
    assert spo("其实我不是对海鲜过敏，是对芒果过敏") == {
        (USER, "allergic_to", "海鲜", -1), (USER, "allergic_to", "芒果", 1)}
    assert spo("我是对花粉过敏") == {(USER, "allergic_to", "花粉", 1)}


@pytest.mark.parametrize(("text", "expected"), [
    # common ways of saying a change of job or partner (they gave no fact: the old one stayed current)
    ("I'm now a pediatric nurse at Boston Children's Hospital.",
     {(USER, "is_a", "pediatric nurse", 1), (USER, "works_at", "Boston Children's Hospital", 1)}),
    ("I got a new job at Google.", {(USER, "works_at", "Google", 1)}),
    ("I just started a new job at Stripe", {(USER, "works_at", "Stripe", 1)}),
    ("I'm dating someone new, her name is Sofia.", {(USER, "partner", "Sofia", 1)}),
    ("I'm dating Sofia", {(USER, "partner", "Sofia", 1)}),
    ("I'm seeing a therapist, her name is Dr. Lee", set()),
])
def test_a_new_job_or_partner_said_plainly(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # an adverb between "I" and the verb changes no fact (each gave nothing: the allergy never reached a prompt)
    ("I'm also allergic to shellfish.", {(USER, "allergic_to", "shellfish", 1)}),
    ("I actually don't drink coffee anymore.", {(USER, "drinks", "coffee", -1)}),
    ("We just moved to Seattle.", {(USER, "lives_in", "Seattle", 1)}),
    ("I really love sushi", {(USER, "likes", "sushi", 1)}),
    ("I used to live in Paris", {(USER, "lives_in", "Paris", -1)}),  # "used to" is no filler
    # a diet taken up, a first day at work
    ("I've decided to go vegetarian.", {(USER, "is_a", "vegetarian", 1)}),
    ("I'm going vegetarian for a week", set()),
    ("I went vegan in January, mostly for environmental reasons. Still getting used to it.",
     {(USER, "is_a", "vegan", 1)}),
    ("I went vegetarian for a month", set()), ("my sister went vegan", set()),
    ("First day at Northwind today!", set()),  # nothing says it is a job (a first day at Disneyland is none)
    ("It's my first day at work at Acme Logistics.", {(USER, "works_at", "Acme Logistics", 1)}),
    ("First day at school for Maya", set()),
    # a list of names with their ages (only Maya was a child)
    ("We have two kids: Maya, who is 7, and Leo, who is 4.", {(USER, "child", "Maya", 1), ("Maya", "age", "7", 1),
                                                              (USER, "child", "Leo", 1), ("Leo", "age", "4", 1)}),
    ("I have two sisters, Anna and Beth", {(USER, "sister", "Anna", 1), (USER, "sister", "Beth", 1)}),
    # no further than the count said (Max and Tom were children)
    ("I have two kids, Maya and Leo, and Max", {(USER, "child", "Maya", 1), (USER, "child", "Leo", 1)}),
    ("We have two kids: Maya and Leo. And Tom, who is my husband.", {(USER, "child", "Maya", 1),
                                                                     (USER, "child", "Leo", 1)}),
    # hedges and hyperbole are no adverbs to drop; nor is a first day anywhere a job, or a diet that may have ended
    ("I'm basically a chef at home", set()), ("I'm literally allergic to mondays", set()),
    ("I'm already a member at Equinox", set()), ("first day at Disneyland!!", set()),
    ("First day at Mayo Clinic for my chemo", set()), ("I went vegan last year but stopped", set()),
    ("First day at my new job at Northwind!", {(USER, "works_at", "Northwind", 1)}),
    # a new address names the city lived in (the move to Seattle was never read)
    ("Our new address is 2417 NW 64th Street, Seattle.", {(USER, "lives_in", "Seattle", 1)}),
    ("My address is 12 Baker Street", set()),
    ("我的新地址是上海市浦东新区世纪大道100号", {(USER, "lives_in", "上海", 1)}),
    ("公司地址是北京市海淀区", set()), ("我家地址是华联超市楼上", set()), ("我的地址是湖滨市场对面", set()),
    ("My address is 1 King St W, Toronto ON", {(USER, "lives_in", "Toronto", 1)}),
    # the clause after an address without a city is read as itself
    ("My address is 9 Elm St. We have two kids, Emma and Leo", {(USER, "child", "Emma", 1), (USER, "child", "Leo", 1)}),
    ("My address is 12 Oak St. I work at Google.", {(USER, "works_at", "Google", 1)}),
    ("I accepted an offer from Carvana for my old car", set()), ("I accepted a job offer from Stripe",
                                                                 {(USER, "works_at", "Stripe", 1)}),
    ("I'm just allergic to stupid people lol", set()), ("I've gone vegan before and it didn't stick", set()),
    # a trip planned is no visit yet: where the user is headed
    ("We're planning a family trip to Denver over Christmas to see my sister Emma.",
     {(USER, "sister", "Emma", 1), (USER, "going_to", "Denver", 1)}),
])
def test_said_conversationally(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # "'ve got" follows the I unspaced (the rule read "I 've got" only: a diabetes said so was never a condition)
    ("Doctor says I've got type 2 diabetes now.", {(USER, "has_condition", "type 2 diabetes", 1)}),
    ("I've got asthma", {(USER, "has_condition", "asthma", 1)}),
    ("I've got a peanut allergy", {(USER, "allergic_to", "peanut", 1)}),
    ("I've been diagnosed with celiac disease", {(USER, "has_condition", "celiac disease", 1)}),
    ("I've got two kids", set()), ("I've got to go", set()), ("Tom and I got divorced.", {(USER, "spouse", "Tom", -1)}),
    # the household's home is the user's
    ("we live in Leeds", {(USER, "lives_in", "Leeds", 1)}), ("we live in a small flat", set()),
    # the home moved into is in the town named
    ("I moved in with my parents in Leeds", {(USER, "lives_in", "Leeds", 1)}),
    ("Tom and I moved in with his mum in Bath", {(USER, "lives_in", "Bath", 1)}),
    ("I moved in with my boyfriend", set()), ("I moved in with a friend in the city", set()),
    # an allergy said with the subject dropped, as chat does
    ("作为一个大连人 海鲜过敏 开车还不行", {(USER, "allergic_to", "海鲜", 1)}),
    ("最近过敏", set()), ("什么都不过敏", set()),
    ("me and Owen moved in with my sister Claire in Franklin for now",
     {(USER, "sister", "Claire", 1), (USER, "lives_in", "Franklin", 1)}),
    ("me and the kids moved to Austin", {(USER, "lives_in", "Austin", 1)}),
    # a home owned is where one lives; one rented out or for holidays is not
    ("we have a house in East Nashville", {(USER, "lives_in", "East Nashville", 1)}),
    ("I own a condo in Plano", {(USER, "lives_in", "Plano", 1)}), ("we just bought a condo in Plano", set()),
    ("I have a house in Spain that I rent out", set()), ("we own a flat in Lisbon we use for holidays", set()),
    ("our house in Spain is rented out to tourists", set()), ("we have a beach house in Malibu", set()),
    # 我自己 is 我; a dropped subject after 最后 / 终于 is the speaker's
    ("我自己就是初中数学老师", {(USER, "is_a", "初中数学老师", 1)}),
    ("其实我自己最爱榴莲千层 可惜老公闻都闻不了", {(USER, "likes", "榴莲千层", 1)}),
    ("最后还是搬到新竹了", {(USER, "lives_in", "新竹", 1)}), ("终于搬到杭州了", {(USER, "lives_in", "杭州", 1)}),
    # 做 a job as 当 it (在南宁做会计), and 我做X的 as 我是做X的; not a task or a field (做项目, 做研究, 做饭)
    ("我在南宁做会计", {(USER, "is_a", "会计", 1)}), ("我做会计的", {(USER, "is_a", "会计", 1)}),
    ("我在上海做HR", {(USER, "is_a", "HR", 1)}),
    ("我在字节做PM", {(USER, "works_at", "字节", 1), (USER, "is_a", "PM", 1)}),  # as 在阿里做产品经理
    ("我在公司做项目", set()), ("我在学校做研究", set()), ("我做饭的", set()),
    # "the rest" is no thing disliked
    ("下午就在家泡壶碧螺春 听听评弹 别的我也不爱", set()), ("榴莲我不爱", {(USER, "likes", "榴莲", -1)}),
    # a birthday is a day: not 快到, a meal that day, or the 蛋糕 of 做生日蛋糕
    ("我在家接点烘焙的单 做生日蛋糕 赚点零花", set()), ("我生日快到了", set()), ("我生日那天去吃了火锅", set()),
    ("my birthday is coming up", set()), ("my birthday is a big deal for my mum", set()),
    ("我生日是3月5号", {(USER, "birthday", "3月5号", 1)}),
    ("my birthday is in March", {(USER, "birthday", "in March", 1)}),
    # how long the user kept it up is no part of the food (was "晚饭坚持")
    ("不吃晚饭坚持了一周就饿疯了", {(USER, "eats", "晚饭", -1)}),
    ("我喝不了咖啡坚持了三天", {(USER, "drinks", "咖啡", -1)}),
    # a health reading out of range is a condition of the user's; a relative's or one asked about is none of theirs
    ("doctor say my cholesterol very high leh", {(USER, "has_condition", "high cholesterol", 1)}),
    ("my blood pressure has been a bit elevated lately", {(USER, "has_condition", "high blood pressure", 1)}),
    ("my sugar levels are way up", {(USER, "has_condition", "high blood sugar", 1)}),
    ("my iron was low last time", {(USER, "has_condition", "low iron", 1)}),
    ("is my cholesterol high?", set()), ("my dad's cholesterol is high", set()), ("my hopes are high", set()),
    ("我血压有点高", {(USER, "has_condition", "血压高", 1)}),
    ("体检说我胆固醇偏高", {(USER, "has_condition", "胆固醇高", 1)}),
    ("医生说我尿酸超标了", {(USER, "has_condition", "尿酸高", 1)}),
    ("血糖有点低 头晕", {(USER, "has_condition", "血糖低", 1)}),
    ("我血压高吗", set()), ("我爸胆固醇有点高", set()), ("医生说我要多运动", set()),
    # a condition after 就是 is no name; a pill counted with the 我 dropped at the clause's start is a dose
    ("我没有糖尿病 就是高血压 每天早上吃一片氨氯地平", {(USER, "has_condition", "糖尿病", -1),
                                                 (USER, "has_condition", "高血压", 1),
                                                 (USER, "takes_dose", "氨氯地平 1片", 1)}),
    ("我妈每天吃一片氨氯地平", set()),
    # the boss named with the 我 dropped; a Latin name ends where Han characters begin; 叫我 + a verb is no nickname
    ("领导叫Amy 说话很冲 但是业务很强", {(USER, "boss", "Amy", 1)}),
    ("我领导叫Amy说话很冲", {(USER, "boss", "Amy", 1)}),
    ("领导叫我去开会", set()), ("妈妈叫我早点睡", set()), ("大家都叫我阿杰", {(USER, "nickname", "阿杰", 1)}),
    # a home with 我 and 在 dropped, a Latin place only: not a hospital stay, a night in a hotel or a choice asked
    ("刚 landing Vancouver 三个月，住 Richmond，想找 accounting 的工作", {(USER, "lives_in", "Richmond", 1)}),
    ("住 Bethnal Green", {(USER, "lives_in", "Bethnal Green", 1)}),
    ("住 Hilton Hotel，明天退房", set()), ("住院了", set()), ("住 Richmond 还是 Burnaby 好", set()),
    # where the user studies, or was admitted to: not a bare "got into" a name (a hobby, a series), nor a sister's
    ("I study at NYU", {(USER, "studies_at", "NYU", 1)}),
    ("I go to school at Rutgers", {(USER, "studies_at", "Rutgers", 1)}),
    ("i got accepted into Pratt", {(USER, "studies_at", "Pratt", 1)}),
    ("I got into Pratt Institute!!", {(USER, "studies_at", "Pratt Institute", 1)}),
    ("I got into Harry Potter", set()), ("I got into cooking last year", set()), ("My sister got into Yale", set()),
    # a pet of a breed, with two words before it, named in the next clause
    ("we adopted a retired racing greyhound!!! his name is Comet, he's 4 and HUGE", {(USER, "pet", "Comet", 1)}),
    ("we got a guinea pig called Pip", {(USER, "pet", "Pip", 1)}), ("I have a lab report due", set()),
    # a turn written all in lower case: its given names are read as if capitalized (not a word that may be one)
    ("my brother greg lives in seattle and does basically nothing", {(USER, "brother", "Greg", 1),
                                                                      ("Greg", "lives_in", "seattle", 1)}),
    ("my girlfriend dani swears by it", {(USER, "partner", "Dani", 1)}),
    ("i have a son named theo", {(USER, "child", "Theo", 1)}),
    ("my sister will come over", set()),
    # started at an employer: not one still to come, nor a place that is no employer
    ("我去腾讯上班了", {(USER, "works_at", "腾讯", 1)}), ("下个月去腾讯上班", set()), ("我想去腾讯上班了", set()),
    ("我去公司上班了", set()),
    # the rent paid where one lives: not a car or a cabin rented, nor a city's rents in general
    ("rent is $1,650 in Phoenix which is killing me", {(USER, "lives_in", "Phoenix", 1)}),
    ("my rent in Austin went up to $2,000", {(USER, "lives_in", "Austin", 1)}),
    ("I rent a flat in Leeds", {(USER, "lives_in", "Leeds", 1)}),
    ("we rented a cabin in Tahoe for the weekend", set()), ("I rented a car in Denver", set()),
    ("the rent is $900 in Berlin for students", set()),
])
def test_said_in_chat(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # traditional characters read as the simplified ones the rules are written in
    ("最後還是搬到新竹了 租在關埔 走路就到公司", {(USER, "lives_in", "新竹", 1), (USER, "lives_in", "关埔", 1)}),
    ("我對花生過敏", {(USER, "allergic_to", "花生", 1)}),
    ("我養了一隻貓叫咪咪", {(USER, "pet", "咪咪", 1)}),
    ("我不吃香菜 這邊小吃什麼都加", {(USER, "eats", "香菜", -1)}),
    # the 我 chat leaves out of 我男朋友 as of 我女儿, read before a clause that opens with a topic
    ("男朋友 Kevin 在新加坡做 trader", {(USER, "partner", "Kevin", 1), ("Kevin", "is_a", "trader", 1)}),
    ("女友在東京讀碩士 還有一年", set()), ("女友在东京读硕士", set()),
])
def test_traditional_chinese(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


def test_simplified_changes_only_the_traditional_characters() -> None:
    assert simplified("這個週末還要加班嗎 ok") == "这个周末还要加班吗 ok"
    assert simplified("我喜欢吃火锅") == "我喜欢吃火锅"
    assert simplified("乾隆 著名") == "乾隆 著名"  # characters with two simplified readings are left as written


@pytest.mark.parametrize(("text", "expected"), [
    # grandparents and grandchildren are kin: named, a triple of the user's; unnamed, what is said of them is theirs
    ("My granddaughter Mia takes all the photos on it anyway. She's 7",
     {(USER, "grandchild", "Mia", 1), ("Mia", "age", "7", 1)}),
    ("my grandma Rosa lives in Daegu", {(USER, "grandparent", "Rosa", 1), ("Rosa", "lives_in", "Daegu", 1)}),
    ("我孙女叫朵朵 今年七岁", {(USER, "grandchild", "朵朵", 1), ("朵朵", "age", "7", 1)}),  # was the user's age
    ("我奶奶住在成都", {("奶奶", "lives_in", "成都", 1)}),
    ("我姥姥今年九十一了，身体还挺硬朗", set()),  # was (user, age, 91)
    ("I always call my grandma on saturday mornings", set()),
    # a child named by a doubled pet name, or before an age or a school year
    ("我女儿朵朵三岁了", {(USER, "child", "朵朵", 1), ("朵朵", "age", "3", 1)}),
    ("女儿甜甜初二，最近叛逆，回家就关门", {(USER, "child", "甜甜", 1)}),
    ("我女儿朵朵", {(USER, "child", "朵朵", 1)}),
    ("我妈做饭", set()), ("我儿子上初二", set()), ("我妹妹妹妹", set()),
])
def test_kin_and_named_children(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # an allergy named as a thing: the user's in a turn about no one else
    ("my peanut allergy is acting up", {(USER, "allergic_to", "peanut", 1)}),
    ("i cant eat the garlic knots there, peanut allergy and they fry stuff in peanut oil",
     {(USER, "allergic_to", "peanut", 1)}),
    ("severe shellfish allergy, carry an epipen", {(USER, "allergic_to", "shellfish", 1)}),
    ("my son cant have it, peanut allergy", set()),  # the son's
    ("Ruby's got a dairy allergy, confirmed by the allergist today", set()),
    ("my social media allergy is real", set()),  # no allergen
])
def test_an_allergy_named_as_a_thing(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected



@pytest.mark.parametrize(("text", "expected"), [
    # the phone the user has: a gift too, and "on this Samsung phone"; someone's home said with "up", "out"
    ("Well Eli got me an iPhone for my birthday so I'm learning all over again!", {(USER, "uses_phone", "iPhone", 1)}),
    ("Well I've gone and got an iPhone now, the old phone went in the bin", {(USER, "uses_phone", "iPhone", 1)}),
    ("my new phone is a Galaxy S24", {(USER, "uses_phone", "Galaxy S24", 1)}),
    ("I bought an iPhone 15 for my son", set()),  # his
    ("Hello dear, I'm trying to figure out how to send photos to my grandson Eli on this Samsung phone. He lives up "
     "in Denver",
     {(USER, "grandchild", "Eli", 1), (USER, "uses_phone", "Samsung", 1), ("Eli", "lives_in", "Denver", 1)}),
    ("I got a Samsung fridge", set()),
    ("I got a Nothing Phone 2", {(USER, "uses_phone", "Nothing Phone 2", 1)}),
    # the job one goes out on one's own as; a thesis supervisor named
    ("I handed in my resignation, I'm going out on my own as an HR consultant from July",
     {(USER, "is_a", "HR consultant", 1)}),
    ("my supervisor Dr Okafor wants a draft by end of month", {(USER, "boss", "Dr Okafor", 1)}),
    # the van too, and chat's dropped I
    ("got a little electric Berlingo for deliveries, so quiet!", {(USER, "drives", "Berlingo", 1)}),
    ("I have a red Fiat 500", {(USER, "drives", "Fiat 500", 1)}),
    ("got a Peugeot bike", set()), ("have a nice day", set()),
    # chat's dropped "my" before a relative named
    ("wife Sarah is a mining engineer, fly in fly out to the Pilbara",
     {(USER, "spouse", "Sarah", 1), ("Sarah", "is_a", "mining engineer", 1)}),
    ("sister act was great", set()),
])
def test_the_phone_a_home_said_with_up_and_a_new_job(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # an allergy to a pet's fur is no pet (我猫毛过敏 read 猫 as the user's cat), and how strong it is no allergen
    ("我猫毛过敏", {(USER, "allergic_to", "猫毛", 1)}),
    ("我有鼻炎，狗毛过敏", {(USER, "has_condition", "鼻炎", 1), (USER, "allergic_to", "狗毛", 1)}),
    ("我有点花粉过敏", {(USER, "allergic_to", "花粉", 1)}), ("我有猫毛过敏", {(USER, "allergic_to", "猫毛", 1)}),
    ("我有点过敏", set()), ("我猫叫年糕", {(USER, "pet", "年糕", 1)}),
    # how long, closing the clause, is no part of the place
    ("我跳槽到字节三个月了", {(USER, "works_at", "字节", 1)}),
    ("我入职腾讯半年了", {(USER, "works_at", "腾讯", 1)}), ("我搬到上海快一年了", {(USER, "lives_in", "上海", 1)}),
    # a job before retiring is held no longer
    ("我今年68了，退休前是北京第二机床厂的工程师",
     {(USER, "age", "68", 1), (USER, "works_at", "北京第二机床厂", -1), (USER, "is_a", "工程师", -1)}),
    ("I used to be a teacher", {(USER, "is_a", "teacher", -1)}),
    ("Before I retired I was an engineer at Boeing",
     {(USER, "is_a", "engineer", -1), (USER, "works_at", "Boeing", -1)}),
    ("I worked at Boeing for 30 years before I retired", {(USER, "works_at", "Boeing", -1)}),
    ("I retired from Boeing last year", {(USER, "works_at", "Boeing", -1)}),
    ("I worked as an engineer at Boeing for 30 years",
     {(USER, "is_a", "engineer", 1), (USER, "works_at", "Boeing", 1)}),
    ("When I was a kid my dad took me to Yellowstone.", {(USER, "visited", "Yellowstone", 1)}),
    # how much and how often is no part of what is eaten or drunk (a change of mind must find "coffee")
    ("i drink like 4 coffees a day which probably doesn't help haha", {(USER, "drinks", "coffee", 1)}),
    ("I drink about three cups of coffee a day", {(USER, "drinks", "coffee", 1)}),
    ("I eat like 3 eggs every morning", {(USER, "eats", "eggs", 1)}),
    ("I was a nurse for 30 years", set()),  # a story may say it: only "used to" or a retired person's turn
    ("I used to be a big fan of jazz", set()),
])
def test_fur_allergies_how_long_how_much_and_a_job_before_retiring(text: str,
                                                                   expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # an English object ends where the speaker starts again ("&" as "and"), at a quote closing it and at markup
    ('Remember this: my favorite color is "teal" & my lucky number is 7 <ok>.', {(USER, "likes", "teal", 1)}),
    ('I love "Dune" & I am reading it again', {(USER, "likes", "Dune", 1)}),
    ("I live in Denver & I work at Google", {(USER, "lives_in", "Denver", 1), (USER, "works_at", "Google", 1)}),
    ("my favorite food is ramen & my favorite drink is tea", {(USER, "likes", "ramen", 1), (USER, "likes", "tea", 1)}),
    ('my favorite color is "teal" really', {(USER, "likes", "teal", 1)}),
    ('I love "The Office"', {(USER, "likes", "The Office", 1)}),
    ("I love “Friends” and my wife likes it too", {(USER, "likes", "Friends", 1)}),
    ('I love the show "Severance" so much', {(USER, "likes", "the show Severance", 1)}),
    ("I love hiking <3", {(USER, "likes", "hiking", 1)}),
    # an "&" inside a name is the name's
    ("I work at Johnson & Johnson", {(USER, "works_at", "Johnson & Johnson", 1)}),
    ("I love Ben & Jerry's", {(USER, "likes", "Ben & Jerry's", 1)}),
    ("I like R&B", {(USER, "likes", "R&B", 1)}),
    # a Chinese topic ends before the adverb said after it (火锅还是我的最爱 = 火锅 + 还是我的最爱)
    ("火锅还是我的最爱，周末又去吃了火锅", {(USER, "likes", "火锅", 1)}),
    ("火锅也是我的最爱", {(USER, "likes", "火锅", 1)}), ("奶茶才是我的最爱", {(USER, "likes", "奶茶", 1)}),
    ("火锅就是我的最爱", {(USER, "likes", "火锅", 1)}), ("猫也是我的心头好", {(USER, "likes", "猫", 1)}),
    ("周杰伦还是我最喜欢的歌手", {(USER, "likes", "周杰伦", 1)}),
    # the user's own people are loved, not liked as things are: no likes triple, for one of them or a list (the
    # memory is kept all the same, and found for "my wife" by the words for her); a thing of theirs, a pet, people in
    # general and a thing said beside them still are
    ("I love my wife and my kids", set()), ("I love my wife and kids", set()), ("I love my husband so much", set()),
    ("I hate my boss", set()), ("I love my two little sisters", set()), ("我爱我老婆和孩子", set()),
    ("我很爱我妈", set()), ("I love my mom's cooking", {(USER, "likes", "my mom's cooking", 1)}),
    ("I love my job", {(USER, "likes", "my job", 1)}),
    ("I love my dog", {(USER, "likes", "my dog", 1)}), ("我喜欢孩子", {(USER, "likes", "孩子", 1)}),
    ("I love pizza and my kids", {(USER, "likes", "pizza", 1)}),
    # ... and the particle that ends the sentence is no part of the phrase (又是我的最爱了 = 是我的最爱)
    ("北京烤鸭又是我的最爱了", {(USER, "likes", "北京烤鸭", 1)}), ("火锅是我的最爱啊", {(USER, "likes", "火锅", 1)}),
    ("鸡蛋都还是吃的", {(USER, "eats", "鸡蛋", 1)}),
    ("故宫也在北京", {("故宫", "located_in", "北京", 1)}),
    # ... and a word whose last character looks like one keeps it
    ("成都是我的最爱", {(USER, "likes", "成都", 1)}), ("成都还是我的最爱", {(USER, "likes", "成都", 1)}),
    ("天才是我的最爱", {(USER, "likes", "天才", 1)}),
    # quotes and title marks around a Chinese object are no part of it
    ("我喜欢“三体”", {(USER, "likes", "三体", 1)}), ("我最喜欢的电影是《霸王别姬》", {(USER, "likes", "霸王别姬", 1)}),
    # a reply style is kept as said
    ("also pls dont tell me to do 'self care' lol", {(USER, "reply_style", "don't tell me to do 'self care'", 1)}),
    # the speaker starting again inside a clause that did not open with them, an aside in brackets
    ("honestly I love teal and my lucky number is 7", {(USER, "likes", "teal", 1)}),
    ("so I'm allergic to shellfish and my daughter is allergic to eggs", {(USER, "allergic_to", "shellfish", 1)}),
    ("lol I love sushi & honestly ramen too", {(USER, "likes", "sushi", 1)}),
    ("I love sushi (especially salmon)", {(USER, "likes", "sushi", 1)}),
    ("I'm allergic to peanuts (severe)", {(USER, "allergic_to", "peanuts", 1)}),
    ("I live in Denver (for now)", {(USER, "lives_in", "Denver", 1)}),
    ("I work at Procter & Gamble", {(USER, "works_at", "Procter & Gamble", 1)}),
    # a Chinese object ends at an adverb opening more of the subject, and keeps no adverb at its end
    ("我住在北京也挺好", {(USER, "lives_in", "北京", 1)}), ("我住在成都也挺好", {(USER, "lives_in", "成都", 1)}),
    ("我是程序员也是作家", {(USER, "is_a", "程序员", 1)}),
    ("我对花生也过敏", {(USER, "allergic_to", "花生", 1)}), ("我对猫毛都过敏", {(USER, "allergic_to", "猫毛", 1)}),
    ("我在杭州都住了五年了", {(USER, "lives_in", "杭州", 1)}),
    ("我搬到杭州也三年了", {(USER, "lives_in", "杭州", 1)}),
    ("我搬到成都三年了", {(USER, "lives_in", "成都", 1)}),  # the 都 of 成都 is no adverb (it read 成)
    ("我对花粉和尘螨都过敏", {(USER, "allergic_to", "花粉", 1), (USER, "allergic_to", "尘螨", 1)}),
    ("我叫阿才", {(USER, "name", "阿才", 1)}),
])
def test_an_object_ends_at_a_clause_boundary_a_quote_or_an_adverb(text: str,
                                                                    expected: set[tuple[str, str, str, int]]) -> None:
    assert spo(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ('my favorite color is "teal" & my lucky number is 7 <ok>', [("colour", "teal")]),
    ("my favorite food is ramen & my favorite drink is tea", [("food", "ramen"), ("drink", "tea")]),
    ("蓝色也是我最喜欢的颜色", [("colour", "蓝色")]), ("周杰伦还是我最喜欢的歌手", [("singer", "周杰伦")]),
])
def test_a_favourite_ends_where_its_object_does(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(f.category, f.value) for f in favourite_statements(text)] == expected

