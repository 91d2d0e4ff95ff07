"""Triple extraction without an LLM: zh/en rules turning a user's turn into (subject, predicate, object, polarity).

The predicate vocabulary is closed (PREDICATES); the subject of a user's statement about themself is
"user". Negation is polarity -1 on the same predicate ("我不吃辣" -> (user, eats, 辣, -1); "I hate X" ->
(user, likes, X, -1)), so a later opposite statement is visible as a conflict. Label guidelines and the
object normalisation are documented in tests/data/README.md; these modules are their executable form.

This module is the public face and the driver: RuleTripleExtractor splits a turn into clauses and runs each language's
rules over each clause. Callers import from here; the parts live in ingest/extract_core.py (ExtractedTriple, the
vocabulary, normalize_term, the per-turn _State), ingest/extract_zh.py (the Chinese rules) and ingest/extract_en.py
(the English rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Protocol

from ingest.extract_core import (
    OCCUPATION_SLOT,
    PERSONAL_FACT_PREDICATES,
    PREDICATES,
    REPLY_STYLE_PREDICATE,
    SINGLE_VALUED_PREDICATES,
    USER,
    ExtractedTriple,
    Favourite,
    PredicateSpec,
    _State,
    favourite_category,
    normalize_term,
    single_valued_slot,
)
from ingest.extract_en import AGE_IN_A_LIST_RE, NO_KIND_OF_FAVOURITE, en_clause, en_favourites
from ingest.extract_routines import DOSE_PREDICATE, TEAM_PREDICATE, ended_facts, routine_facts
from ingest.extract_zh import zh_clause, zh_favourites, zh_subclauses, zh_switched_sport
from ingest.lexicon import (
    EPISODIC_EN_RE,
    EPISODIC_ZH_RE,
    HAN,
    PAST_EN_RE,
    is_question,
    is_request,
    said_for_some_times,
    split_clauses,
)
from ingest.reply_style import reply_style

__all__ = [
    "OCCUPATION_SLOT",
    "PERSONAL_FACT_PREDICATES",
    "PREDICATES",
    "SINGLE_VALUED_PREDICATES",
    "USER",
    "ExtractedTriple",
    "Favourite",
    "PredicateSpec",
    "RuleTripleExtractor",
    "TripleExtractor",
    "favourite_statements",
    "iter_predicates",
    "normalize_term",
    "single_valued_slot",
]


class TripleExtractor(Protocol):
    """Anything that turns a user's turn into triples (rules today; an LLM extractor could plug in)."""

    def extract(self, text: str) -> list[ExtractedTriple]: ...


# ---------------------------------------------------------------------------------------------
# the extractor


class RuleTripleExtractor:
    """Regex rules over clauses, zh and en (mixed turns go through both rule sets)."""

    def extract(self, text: str) -> list[ExtractedTriple]:
        return _dedupe([t for _, triples in self.by_clause(text) for t in triples])

    def by_clause(self, text: str) -> list[tuple[str, list[ExtractedTriple]]]:
        """extract, clause by clause (split_clauses' clauses, normalised): what each clause states, read in the
        context of the clauses before it (a carried subject, a named person), as extract reads it. A correction of
        the speaker's own words ("我住在北京，不对，是天津", "I work at Siemens, I mean BMW") puts its value in the
        statement before it (its clause states nothing of its own)."""
        st = _State(turn=text)
        episodic = bool(EPISODIC_ZH_RE.search(text) or EPISODIC_EN_RE.search(text) or PAST_EN_RE.search(text))
        spans: list[tuple[str, int, int]] = []
        correcting = False
        before = ""  # the clause before, for a routine or provider it completes
        for whole in split_clauses(text):
            start = len(st.out)
            if _CORRECTION_MARK_RE.fullmatch(whole.strip()) and st.out:
                correcting = True
                spans.append((whole, start, start))
                continue
            value = _corrected_value(whole, after_mark=correcting)
            correcting = False
            if value is not None and st.out:
                st.out[-1] = replace(st.out[-1], object=value)
                spans.append((whole, start, start))
                continue
            for clause in zh_subclauses(whole):
                if style := reply_style(clause):  # said to the assistant: read before a request is skipped
                    st.add(USER, REPLY_STYLE_PREDICATE, style)
                # ", who is 7," inside a list of names ("two kids: Maya, who is 7, and Leo") is her age, no question
                if (is_question(clause) and not (st.listing_rel and AGE_IN_A_LIST_RE.fullmatch(clause.strip()))) \
                        or is_request(clause):
                    st.pending_rel = None
                    continue
                st.spans = []
                read_from = len(st.out)
                zh = _join_han(clause)
                if re.search(f"[{HAN}]", zh):
                    zh_clause(zh, st, episodic)
                en_clause(clause, st)
                _routines(clause, st, read_from, before)
                if switched := zh_switched_sport(zh, _join_han(before)):
                    st.add(USER, "likes", switched[0], -1)
                    st.add(USER, "likes", switched[1], 1)
                before = clause
                if said_for_some_times(clause):  # "I never eat breakfast on weekdays": no plain no to breakfast
                    st.out[read_from:] = [t for t in st.out[read_from:]
                                          if not (t.predicate in ("eats", "drinks") and t.polarity == -1)]
            spans.append((whole, start, len(st.out)))
        return [(whole, _dedupe(st.out[a:b])) for whole, a, b in spans]


# The speaker correcting what they just said: a clause of its own ("不对", "说错了", "sorry", "no wait") before the
# right value, or the value said with it ("是天津" after 不对; "I mean BMW"; "Hamburg" after "sorry").
_CORRECTION_MARK_RE = re.compile(r"(?:哦|噢|啊|呃)?(?:不对|不是不是|说错了|我说错了|打错了|写错了)"
                                 r"|(?i:sorry|no wait|wait|oops|sorry,? no|no,? sorry)")
_SAID_WITH_MARK_RE = re.compile(r"(?i:(?:sorry|oops|no wait|wait),?\s+)?(?i:i mean|i meant|i mean to say|make that)"
                                r"\s+(?P<v>.+)"
                                r"|(?:我是说|我的意思是|应该是)(?P<z>.+)")
# A value as a correction gives it: a name or a date ("Hamburg", "May 15th", "New York"), or one plain word after
# "I mean" ("I mean ramen"); not a phrase ("I mean the city", "Wait, Tom just called", "I mean seriously").
_VALUE_WORD = r"(?:[A-Z][\w.'&-]*|\d[\w.]*)"
_BARE_VALUE_EN_RE = re.compile(rf"(?:(?i:it's|its|it is)\s+)?"
                               rf"(?P<v>{_VALUE_WORD}(?:\s+(?:{_VALUE_WORD}|of|de|la)){{0,3}})")
_ONE_WORD_EN_RE = re.compile(r"(?P<v>[a-z][a-z'-]{1,30})")
_NOT_A_VALUE_EN = frozenset({"seriously", "really", "literally", "honestly", "like", "it", "that", "this", "yes",
                             "no", "well", "totally", "basically", "actually", "obviously", "exactly", "whatever"})
_BARE_VALUE_ZH_RE = re.compile(rf"是?(?P<v>[{HAN}A-Za-z0-9]{{1,12}})")
_NOT_A_VALUE_ZH_RE = re.compile(r"[我你他她那这]|非常|很|特别|太|以前|现在|之前|不是|一点|真的|开玩笑")


def _corrected_value(clause: str, *, after_mark: bool) -> str | None:
    """The value a correction clause gives, or None when the clause is no correction: "I mean BMW" alone, or a bare
    value ("Hamburg", "May 15th", 是天津) right after a correction mark."""
    c = clause.strip().rstrip("。.!！")
    if m := _SAID_WITH_MARK_RE.fullmatch(c):
        said = (m["v"] or m["z"] or "").strip()
        v = _BARE_VALUE_EN_RE.fullmatch(said) or _ONE_WORD_EN_RE.fullmatch(said) or _BARE_VALUE_ZH_RE.fullmatch(said)
    elif after_mark:
        v = _BARE_VALUE_EN_RE.fullmatch(c) or _BARE_VALUE_ZH_RE.fullmatch(c)
    else:
        return None
    value = v["v"].strip() if v else ""
    if not value or value.lower() in _NOT_A_VALUE_EN or _NOT_A_VALUE_ZH_RE.search(value) or len(value) > 40:
        return None
    return value


def _routines(clause: str, st: _State, read_from: int, before: str) -> None:
    """The user's dose of a medicine, way to work, routines, providers and team at work the clause states
    (ingest/extract_routines.py; `before`: the clause before it); a dose read by the diet rules as something eaten
    (我每天吃二甲双胍500毫克: eats 二甲双胍500毫克) is the dose, not food."""
    facts = routine_facts(clause, st.turn or clause, before)
    if any(p == DOSE_PREDICATE for p, _ in facts):
        st.out[read_from:] = [t for t in st.out[read_from:]
                              if not (t.predicate in ("eats", "drinks") and re.search(r"\d", t.object))]
    # 我在市场部工作: the department, not an employer (it would replace 腾讯)
    teams = {normalize_term(o) for p, o in facts if p == TEAM_PREDICATE}
    st.out[read_from:] = [t for t in st.out[read_from:]
                          if not (t.predicate == "works_at" and normalize_term(t.object) in teams)]
    for predicate, obj in facts:
        st.add(USER, predicate, obj)
    for predicate, obj in ended_facts(clause):  # "took me off lisinopril": the dose said before ends
        st.add(USER, predicate, obj, -1)


def _join_han(text: str) -> str:
    """Drop the spaces that mixed zh/en text puts around Latin words next to Han characters."""
    return re.sub(rf"(?<=[{HAN}])\s+|\s+(?=[{HAN}])", "", text)


def _dedupe(triples: list[ExtractedTriple]) -> list[ExtractedTriple]:
    seen: set[tuple[str, str, str, int]] = set()
    out: list[ExtractedTriple] = []
    for t in triples:
        if t.key() not in seen:
            seen.add(t.key())
            out.append(t)
    return out


def favourite_statements(text: str) -> list[Favourite]:
    """The favourites a turn states ("My favourite colour is blue", 我最喜欢的颜色是蓝色), with their kind: one value
    per kind at a time, where the (user, likes, value) triple alone cannot tell a favourite from a liking (conflict
    detection compares them, ingest/conflict_rules.py). Questions and requests state none."""
    out: list[Favourite] = []
    before = ""
    for clause in split_clauses(text):
        if is_question(clause) or is_request(clause):
            before = ""
            continue
        zh = _join_han(clause)
        if re.search(f"[{HAN}]", zh):
            out.extend(zh_favourites(zh))
        out.extend(en_favourites(clause))
        said = _FAVOURITE_SAID_BEFORE_RE.search(before)
        if said and (m := _PRONOUN_FAVOURITE_RE.fullmatch(clause.strip())) \
                and (category := favourite_category(m["cat"])) not in NO_KIND_OF_FAVOURITE:
            # the clause of the kind, which says no no ("nothing beats" is no negation of the value)
            out.append(Favourite(category, normalize_term(said["v"]), clause))
        before = clause
    return out


# "Honestly nothing beats tacos for me nowadays, they're my favorite food": the value in the clause before, the kind
# in "they're my favourite food"
_FAVOURITE_SAID_BEFORE_RE = re.compile(r"(?i)\bnothing (?:beats|tops|compares to) (?P<v>[\w' -]{2,30}?)"
                                       r"(?= for me\b| these days\b| nowadays\b| lately\b| right now\b|$)")
_PRONOUN_FAVOURITE_RE = re.compile(r"(?i)(?:and )?(?:it's|it is|they're|they are|that's|that is) (?:now |definitely "
                                   r"|honestly |easily )*my (?:new |current |absolute |all-time )*(?:favou?rite|fave"
                                   r"|go-to) (?P<cat>[a-z][a-z-]*(?: [a-z][a-z-]*)?)(?: now)?")


def iter_predicates() -> Iterator[PredicateSpec]:
    """The vocabulary, for docs and the RDF export."""
    return iter(PREDICATES.values())
