"""The past period a question asks about ("What did I do yesterday?", 上周末我去了哪里？), pure: from the
question's words and the moment it is asked, in the user's time zone. Recall answers such a question from the
memories said (or said again) in that period (bmam/usecases/recall.py); a statement ("I went hiking
yesterday") or a question about what comes ("What should I cook today?") asks for no period.

Periods are of days as the user lives them: "yesterday" is the calendar day before today in `zone`, "last
week" Monday to Monday; days only, at most two weeks back (below). A period never reaches past the moment asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from ingest.lexicon import HAN_RE

_NUMBER_EN = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
              "nine": 9, "ten": 10}
_NUMBER_ZH = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_WEEKDAY_EN = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_WEEKDAY_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
# Days, at most two weeks back: what was said then is what happened then, near enough ("What did I do
# yesterday?"). Not months, years, "recently": a trip "last year" or a hobby taken up "lately" is told any time
# after (the eval's "Where did I go on holiday last year?" is answered by what was said this year); freshness and
# meaning answer those.
_MAX_DAYS_BACK = 14

_N_EN = r"(\d{1,2}|one|a|two|three|four|five|six|seven|eight|nine|ten)"
_N_ZH = r"(\d{1,2}|[一两二三四五六七八九十])"
_DAY_EN = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_DAY_ZH = r"(?:周|星期|礼拜)([一二三四五六日天])(?![直共起样定些下])"  # not 上周一直 / 一共 / 一起

# (pattern, kind), tried in order: the longer phrase first ("the day before yesterday" before "yesterday",
# 上周末 before 上周, 上周三 before 上周).
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), kind) for p, kind in (
    (r"\bthe day before yesterday\b|大前天|前天", "days_before"),
    (r"\blast night\b|昨晚|昨天晚上|昨夜", "last_night"),
    (r"\byesterday\b|昨天|昨日|昨儿", "yesterday"),
    (r"\b(?:earlier )?today\b|\bthis (?:morning|afternoon|evening)\b|\btonight\b|今天|今日|今早|今晚|今儿", "today"),
    (rf"\b{_N_EN} days? ago\b|{_N_ZH}天前", "days_ago"),
    (rf"\b(?:in|over|during) the (?:past|last) {_N_EN} days\b", "past_days"),
    (rf"\b{_N_EN} weeks? ago\b|{_N_ZH}(?:个)?(?:星期|礼拜|周)前", "weeks_ago"),
    (r"\blast weekend\b|上个?周末|上个?礼拜末", "last_weekend"),
    (r"\b(?:this|over the|on the|at the) (?:past )?weekend\b|这个?周末|周末", "this_weekend"),
    (rf"\blast {_DAY_EN}\b|上个?(?:周|星期|礼拜)([一二三四五六日天])(?![直共起样定些下])", "last_weekday"),
    (rf"\b(?:on )?{_DAY_EN}\b|这个?{_DAY_ZH}|{_DAY_ZH}", "weekday"),
    (r"\blast week\b|上个?(?:周|星期|礼拜)", "last_week"),
    (r"\b(?:in|over|during) the (?:past|last) (?:week|seven days)\b", "past_days"),
    (r"\bthis week\b|这个?(?:周|星期|礼拜)|本周", "this_week"),
))

# Asking, in the past: "did", "was", "happened" ..., and a question's form ("?", a question word first, "tell me
# what"). Chinese: 了 / 过 (or 在忙, 在做) and a question word or mark.
_PAST_EN = re.compile(r"\b(did|was|were|had|happened|went|been|have i|have we|said|told|mentioned|talked|ate|"
                      r"drank|met|saw|bought|watched|read|visited)\b", re.IGNORECASE)
_QUESTION_EN = re.compile(r"\?\s*$|^\W*(what|where|who|whom|when|which|how|did|was|were|tell me|remind me|do you "
                          r"remember|can you remind|could you remind|list|summari[sz]e|recap)\b", re.IGNORECASE)
_PAST_ZH = re.compile(r"[了过]|在忙|在做|在干")
_QUESTION_ZH = re.compile(r"[吗么哪谁啥几？?]|多少|怎样|怎么样")
_PLAN_RE = re.compile(r"(?i)\b(?:going to|gonna|planning|plan|planned|supposed to|meant to|will|would)\b"
                      r"|打算|准备|计划|要去|本来要")
_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
# Phrases that name a time gone by themselves ("yesterday", 上周): asked about, they need no past tense ("And
# yesterday?"); the others ("today", "this week", 周末) are asked about in the past ("What did I eat today?").
_PAST_BY_ITSELF = frozenset({"days_before", "last_night", "yesterday", "days_ago", "past_days", "weeks_ago",
                             "last_weekend", "last_weekday", "last_week"})

# What is left of a question that asks only what happened once its period is taken out: no word of its own
# ("What did I do yesterday?", "What have I been up to this week?", 上周末我去了哪里？).
_ACTIVITY_EN = frozenset(re.findall(r"\S+", """a about again all am and anything are be been did do doing done else
    everything get got go going gone had happen happened happening have how i in is me my of on or over say said so
    something stuff talk talked tell then told the to up us was we went were what where which who you remind
    mention mentioned discuss discussed summarize summarise recap list"""))
_ACTIVITY_ZH = re.compile(r"什么|发生|哪里|哪儿|去了|事情|[我你咱们都了些么啥事做干过在忙呢吗哪去聊说讲的和跟]")


@dataclass(frozen=True, slots=True)
class Period:
    """A span of time a question asks about: [start, end), both aware (UTC)."""

    start: datetime
    end: datetime
    words: str  # the phrase as said ("last weekend", 上周末)
    open_question: bool  # asks what happened then, nothing more specific: every memory of the period answers


def asked_period(question: str, now: datetime, zone: tzinfo = UTC) -> Period | None:
    """The past period the question asks about, or None (no time words, a statement, a question about what
    comes). `now` is aware; days are counted in `zone`. The time words, the asking and the past are looked for
    in one sentence ("What should I get Jenny? Yesterday she said she likes tea" asks for no period)."""
    for sentence in _SENTENCE.findall(question):
        if _PLAN_RE.search(sentence):
            continue  # "What was I going to do this weekend?": a plan, told before the period
        han = bool(HAN_RE.search(sentence))
        asking = _QUESTION_ZH.search(sentence) if han else _QUESTION_EN.search(sentence.strip())
        if not asking:
            continue
        past = _PAST_ZH.search(sentence) if han else _PAST_EN.search(sentence)
        for pattern, kind in _PHRASES:
            match = pattern.search(sentence)
            if match is None or not (past or kind in _PAST_BY_ITSELF):
                continue
            span = _span(kind, match, now.astimezone(zone))
            if span is None:
                continue
            start, end = span[0], min(span[1], now.astimezone(zone))
            if end <= start:
                return None
            rest = (sentence[: match.start()] + " " + sentence[match.end():]).strip()
            return Period(start=start.astimezone(UTC), end=end.astimezone(UTC), words=match.group(0),
                          open_question=_asks_only_what_happened(rest, han))
    return None


def _asks_only_what_happened(rest: str, han: bool) -> bool:
    if han:
        return not HAN_RE.search(_ACTIVITY_ZH.sub("", rest)) and not re.search(r"[A-Za-z]{2,}", rest)
    return all(w in _ACTIVITY_EN for w in re.findall(r"[a-z']+", rest.lower()) if len(w) > 1 or w in ("i", "a"))


def _midnight(day: date, zone: tzinfo | None) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone)


def _count(word: str) -> int:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _NUMBER_EN.get(word) or _NUMBER_ZH.get(word, 0)


def _span(kind: str, match: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    zone = now.tzinfo
    today = now.date()

    def days(first: date, count: int = 1) -> tuple[datetime, datetime]:
        return _midnight(first, zone), _midnight(first + timedelta(days=count), zone)

    monday = today - timedelta(days=today.weekday())
    said = match.group(0)
    if kind == "days_before":
        return days(today - timedelta(days=3 if said.startswith("大") else 2))
    if kind == "yesterday":
        return days(today - timedelta(days=1))
    if kind == "last_night":  # told that evening or the morning after
        start = _midnight(today - timedelta(days=1), zone) + timedelta(hours=17)
        return start, _midnight(today, zone) + timedelta(hours=12)
    if kind == "today":
        return days(today)
    if kind == "days_ago":
        n = _count(next(g for g in match.groups() if g))
        return days(today - timedelta(days=n)) if 0 < n <= _MAX_DAYS_BACK else None
    if kind == "past_days":
        n = _count(match.group(1)) if match.groups() and match.group(1) else 7
        return (now - timedelta(days=n), now) if 0 < n <= _MAX_DAYS_BACK else None
    if kind == "weeks_ago":
        n = _count(next(g for g in match.groups() if g))
        return days(monday - timedelta(weeks=n), 7) if 0 < n <= _MAX_DAYS_BACK // 7 else None
    if kind in ("last_weekend", "this_weekend"):
        saturday = monday + timedelta(days=5)
        in_weekend = today >= saturday
        if kind == "this_weekend" and in_weekend:
            return days(saturday, 2)
        # the last weekend over: on a weekday the one just gone, on a weekend the one before
        return days(saturday - timedelta(weeks=1), 2)
    if kind in ("last_weekday", "weekday"):
        name = next(g for g in match.groups() if g)
        wanted = _WEEKDAY_EN.get(name.lower(), _WEEKDAY_ZH.get(name))
        if wanted is None:
            return None
        if kind == "last_weekday" and HAN_RE.search(said):  # 上周三: Wednesday of last week
            return days(monday - timedelta(weeks=1) + timedelta(days=wanted))
        back = (today.weekday() - wanted) % 7 or 7  # the last such day before today
        return days(today - timedelta(days=back))
    if kind == "last_week":
        return days(monday - timedelta(weeks=1), 7)
    if kind == "this_week":
        return days(monday, 7)
    return None
