"""The past period a question asks about (ingest/periods.py), pure: which words name which days, in the user's
time zone; statements and questions about what comes name none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from ingest.periods import asked_period

# Saturday 2026-12-05, 10:00 in Berlin (09:00 UTC)
BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 5, 10, 0, tzinfo=BERLIN)


def days(question: str, now: datetime = NOW, zone: ZoneInfo = BERLIN) -> tuple[str, str] | None:
    """The first and the last day of the period, in the zone (None: no period)."""
    p = asked_period(question, now, zone)
    if p is None:
        return None
    assert p.start.tzinfo is not None and p.end.tzinfo is not None and p.start < p.end <= now
    first = p.start.astimezone(zone).date()
    last = (p.end.astimezone(zone) - timedelta(microseconds=1)).date()  # the end is not in it
    return first.isoformat(), last.isoformat()


@pytest.mark.parametrize("question, first, last", [
    ("What did I do yesterday?", "2026-12-04", "2026-12-04"),
    ("昨天我做了什么？", "2026-12-04", "2026-12-04"),
    ("What did I do the day before yesterday?", "2026-12-03", "2026-12-03"),
    ("前天我去了哪里？", "2026-12-03", "2026-12-03"),
    ("大前天我干了什么？", "2026-12-02", "2026-12-02"),
    ("What did I eat today?", "2026-12-05", "2026-12-05"),
    ("What did I do 3 days ago?", "2026-12-02", "2026-12-02"),
    ("两天前我干了什么", "2026-12-03", "2026-12-03"),
    ("What happened last week?", "2026-11-23", "2026-11-29"),
    ("上周我都做了什么？", "2026-11-23", "2026-11-29"),
    ("What did I do this week?", "2026-11-30", "2026-12-05"),
    # asked on a Saturday: "last weekend" is the one before, "this weekend" today
    ("Where did I go last weekend?", "2026-11-28", "2026-11-29"),
    ("我上周末去了哪里？", "2026-11-28", "2026-11-29"),
    ("What did I do this weekend?", "2026-12-05", "2026-12-05"),
    ("What did I do on Monday?", "2026-11-30", "2026-11-30"),
    ("What did I do last Saturday?", "2026-11-28", "2026-11-28"),
    ("上周三我见了谁？", "2026-11-25", "2026-11-25"),
    ("Who did I meet in the past 10 days?", "2026-11-25", "2026-12-05"),
    ("What did I do two weeks ago?", "2026-11-16", "2026-11-22"),
    ("And yesterday?", "2026-12-04", "2026-12-04"),
])
def test_the_words_name_these_days(question: str, first: str, last: str) -> None:
    assert days(question) == (first, last)


def test_on_a_weekday_last_weekend_is_the_one_just_gone() -> None:
    tuesday = datetime(2026, 12, 8, 9, 0, tzinfo=BERLIN)
    assert days("What did I do last weekend?", tuesday) == ("2026-12-05", "2026-12-06")
    assert days("What did I do over the weekend?", tuesday) == ("2026-12-05", "2026-12-06")


@pytest.mark.parametrize("text", [
    "I went hiking yesterday.",  # a statement
    "昨天我去爬山了",
    "What should I cook today?",  # what comes
    "What do I have on Monday?",
    "Remind me tomorrow to call mom",
    "What should I get Jenny? Yesterday she said she likes tea.",  # the time words are in another sentence
    "Where do I live?",  # no time words
    "我住在哪里？",
    # months, years and "lately": told any time after, so no period of days ("Where did I go on holiday last year?"
    # is answered by what was said this year)
    "Where did I go on holiday last year?",
    "我去年去哪里旅行了？",
    "What happened last month?",
    "What has my best friend been into lately?",
    "最近我都在忙什么",
    "What did I do 20 days ago?",
])
def test_statements_and_questions_about_what_comes_ask_for_no_period(text: str) -> None:
    assert asked_period(text, NOW, BERLIN) is None


def test_days_are_the_users_own() -> None:
    """At 05:00 UTC on Saturday it is still Friday evening in Los Angeles: yesterday is Thursday there."""
    now = datetime(2026, 12, 5, 5, 0, tzinfo=UTC)
    la = ZoneInfo("America/Los_Angeles")
    p = asked_period("What did I do yesterday?", now, la)
    assert p is not None
    assert p.start == datetime(2026, 12, 3, 0, 0, tzinfo=la).astimezone(UTC)
    assert p.end == datetime(2026, 12, 4, 0, 0, tzinfo=la).astimezone(UTC)
    q = asked_period("What did I do yesterday?", now, UTC)
    assert q is not None and q.start == datetime(2026, 12, 4, tzinfo=UTC)


def test_a_period_never_reaches_past_the_moment_asked() -> None:
    p = asked_period("What did I eat today?", NOW, BERLIN)
    assert p is not None and p.end == NOW.astimezone(UTC)


def test_a_day_of_a_daylight_saving_change_is_23_hours_long() -> None:
    now = datetime(2026, 3, 30, 12, 0, tzinfo=BERLIN)  # the clocks went forward on Sunday 29 March
    p = asked_period("What did I do yesterday?", now, BERLIN)
    assert p is not None and (p.end - p.start).total_seconds() == 23 * 3600


@pytest.mark.parametrize("question, open_question", [
    ("What did I do yesterday?", True),
    ("What did we talk about yesterday?", True),
    ("Where did I go last weekend?", True),
    ("昨天我做了什么？", True),
    ("我上周末去了哪里？", True),
    ("What did I eat yesterday?", False),  # asks for meals, not for everything
    ("我昨天吃了什么？", False),
    ("上周三我见了谁？", False),
])
def test_an_open_question_asks_only_what_happened(question: str, open_question: bool) -> None:
    p = asked_period(question, NOW, BERLIN)
    assert p is not None and p.open_question is open_question


def test_the_words_are_kept_as_said() -> None:
    p = asked_period("So what did I do Last Weekend?", NOW, BERLIN)
    assert p is not None and p.words == "Last Weekend"
