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
from typing import Protocol

from ingest.extract_core import (
    OCCUPATION_SLOT,
    PERSONAL_FACT_PREDICATES,
    PREDICATES,
    SINGLE_VALUED_PREDICATES,
    USER,
    ExtractedTriple,
    Favourite,
    PredicateSpec,
    _State,
    normalize_term,
    single_valued_slot,
)
from ingest.extract_en import en_clause, en_favourites
from ingest.extract_zh import zh_clause, zh_favourites, zh_subclauses
from ingest.lexicon import (
    EPISODIC_EN_RE,
    EPISODIC_ZH_RE,
    HAN,
    PAST_EN_RE,
    SOMETIMES_RE,
    is_question,
    is_request,
    split_clauses,
)

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
        context of the clauses before it (a carried subject, a named person), as extract reads it."""
        st = _State()
        episodic = bool(EPISODIC_ZH_RE.search(text) or EPISODIC_EN_RE.search(text) or PAST_EN_RE.search(text))
        out: list[tuple[str, list[ExtractedTriple]]] = []
        for whole in split_clauses(text):
            start = len(st.out)
            for clause in zh_subclauses(whole):
                if is_question(clause) or is_request(clause):
                    st.pending_rel = None
                    continue
                st.spans = []
                read_from = len(st.out)
                zh = _join_han(clause)
                if re.search(f"[{HAN}]", zh):
                    zh_clause(zh, st, episodic)
                en_clause(clause, st)
                if SOMETIMES_RE.search(clause):  # "I never eat breakfast on weekdays": no plain no to breakfast
                    st.out[read_from:] = [t for t in st.out[read_from:]
                                          if not (t.predicate in ("eats", "drinks") and t.polarity == -1)]
            out.append((whole, _dedupe(st.out[start:])))
        return out


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
    for clause in split_clauses(text):
        if is_question(clause) or is_request(clause):
            continue
        zh = _join_han(clause)
        if re.search(f"[{HAN}]", zh):
            out.extend(zh_favourites(zh))
        out.extend(en_favourites(clause))
    return out


def iter_predicates() -> Iterator[PredicateSpec]:
    """The vocabulary, for docs and the RDF export."""
    return iter(PREDICATES.values())
