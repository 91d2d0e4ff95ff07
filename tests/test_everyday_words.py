"""Readings of everyday words two testers found wrong (a coding assistant's user, changes of mind), pure: the
extractor's places, roles and favourites; a plan cancelled with the place in between (国庆不去云南了); "our" is the
user's; a step told as an order continues a procedure and is procedural."""

from __future__ import annotations

import pytest

from graph.model import MemoryType
from ingest.classify import RuleClassifier
from ingest.conflict_rules import Similar, cancellation_conflict
from ingest.extract import RuleTripleExtractor
from ingest.lexicon import SEQUENCE_STEP_RE
from ingest.scoring import is_personal

EXTRACTOR = RuleTripleExtractor()
CLASSIFIER = RuleClassifier()


def triples(text: str) -> set[tuple[str, str, str, int]]:
    return {(t.subject, t.predicate, t.object, t.polarity) for t in EXTRACTOR.extract(text)}


@pytest.mark.parametrize(("text", "expected"), [
    ("我现在是自由撰稿人。", {("user", "is_a", "自由撰稿人", 1)}),  # it read hometown 自由撰稿
    ("我是四川人。", {("user", "hometown", "四川", 1)}),
    ("我现在最爱吃的水果是芒果。", {("user", "likes", "芒果", 1)}),  # it read likes 的水果是芒果
    ("我最爱喝的是奶盖绿茶", {("user", "likes", "奶盖绿茶", 1)}),
    ("我姐姐搬到重庆去了。", {("姐姐", "lives_in", "重庆", 1)}),  # it read 重庆去
    ("My girlfriend Anna and I live together.", {("user", "partner", "Anna", 1)}),  # it read lives_in together
    ("I live in a studio apartment in Brooklyn.", {("user", "lives_in", "Brooklyn", 1)}),  # it read nothing
    ("I live in a small town.", set()),
    # who one is, said after the name: it read the name alone
    ("I'm Dana, a backend engineer at Kestrel Labs.", {("user", "name", "Dana", 1),
                                                      ("user", "is_a", "backend engineer", 1),
                                                      ("user", "works_at", "Kestrel Labs", 1)}),
    ("Hi, I'm Tom, software engineer at Google.", {("user", "name", "Tom", 1), ("user", "is_a", "software engineer", 1),
                                                   ("user", "works_at", "Google", 1)}),
    ("I'm Dana, a nurse.", {("user", "name", "Dana", 1), ("user", "is_a", "nurse", 1)}),
    ("I'm Dana, the one who called yesterday.", {("user", "name", "Dana", 1)}),
    ("I live alone.", set()),
])
def test_what_each_sentence_yields(text: str, expected: set[tuple[str, str, str, int]]) -> None:
    assert triples(text) == expected


def test_a_plan_cancelled_with_its_place_between_the_words() -> None:
    plan = Similar("old", "国庆打算去云南旅游", 0.6)
    assert cancellation_conflict("国庆不去云南了。", plan, 0.35)
    assert cancellation_conflict("国庆不去云南了，改去海南。", plan, 0.35)
    assert cancellation_conflict("我不去想这些事了", Similar("old", "我打算下个月去杭州", 0.2), 0.35) is None


@pytest.mark.parametrize(("question", "personal"), [
    ("What's our runbook if the ECS service is unhealthy?", True),  # gated at 0.316 < 0.35 as a general question
    ("What is our release process?", True),
    ("Why is our planet warming?", False),
    ("How did our ancestors make fire?", False),
    ("how did our last game go?", True), ("What is our solar system made of?", False),
])
def test_our_is_the_users(question: str, personal: bool) -> None:
    assert is_personal(question) is personal


@pytest.mark.parametrize(("text", "step"), [
    ("Then tag the commit as vX.Y.Z and push the tag.", True),  # an order: it needed a comma or "I"
    ("Then, tag it.", True),
    ("Then I rsync public/ to the server.", True),
    ("Then went home.", False),
    ("Finally got my license!", False),
    ("Then again, who knows", False),
])
def test_a_step_told_as_an_order_continues_a_procedure(text: str, step: bool) -> None:
    assert (SEQUENCE_STEP_RE.fullmatch(text) is not None) is step


@pytest.mark.parametrize("text", [
    "Here's how we release tidectl: first bump the version in pyproject.toml.",  # FACTUAL
    "Then tag the commit as vX.Y.Z and push the tag.",  # SEMANTIC
    "Hotfix procedure, so you know it: branch off the latest release tag, not main.",  # none
    "数据库迁移要先在 staging 上跑 alembic upgrade head，再上生产。",  # SEMANTIC
])
def test_a_teams_way_of_working_is_procedural(text: str) -> None:
    assert CLASSIFIER.classify(text) == (MemoryType.PROCEDURAL, 0.9)


def test_a_story_told_with_then_is_not() -> None:
    found = CLASSIFIER.classify("Then went to the movies, it was great.")
    assert found is not None and found[0] is not MemoryType.PROCEDURAL


@pytest.mark.parametrize(("question", "personal"), [
    # English around a Chinese word is read as English (the Chinese reading found no 我 and called it general)
    ("What's my recipe for 蛋炒饭?", True), ("Did I tell you about 朵朵?", True),
    ("Where is 北京?", False), ("北京在哪里", False), ("我的 dream school 是哪个", True),
])
def test_english_around_chinese_words(question: str, personal: bool) -> None:
    assert is_personal(question) is personal
