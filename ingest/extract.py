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
    PERSONAL_FACT_PREDICATES,
    PREDICATES,
    SINGLE_VALUED_PREDICATES,
    USER,
    ExtractedTriple,
    PredicateSpec,
    _State,
    normalize_term,
)
from ingest.extract_en import en_clause
from ingest.extract_zh import zh_clause, zh_subclauses
from ingest.lexicon import EPISODIC_EN_RE, EPISODIC_ZH_RE, HAN, PAST_EN_RE, is_question, is_request, split_clauses

__all__ = [
    "PERSONAL_FACT_PREDICATES",
    "PREDICATES",
    "SINGLE_VALUED_PREDICATES",
    "USER",
    "ExtractedTriple",
    "PredicateSpec",
    "RuleTripleExtractor",
    "TripleExtractor",
    "iter_predicates",
    "normalize_term",
]


class TripleExtractor(Protocol):
    """Anything that turns a user's turn into triples (rules today; an LLM extractor could plug in)."""

    def extract(self, text: str) -> list[ExtractedTriple]: ...


# ---------------------------------------------------------------------------------------------
# the extractor


class RuleTripleExtractor:
    """Regex rules over clauses, zh and en (mixed turns go through both rule sets)."""

    def extract(self, text: str) -> list[ExtractedTriple]:
        st = _State()
        episodic = bool(EPISODIC_ZH_RE.search(text) or EPISODIC_EN_RE.search(text) or PAST_EN_RE.search(text))
        for clause in (sub for whole in split_clauses(text) for sub in zh_subclauses(whole)):
            if is_question(clause) or is_request(clause):
                st.pending_rel = None
                continue
            st.spans = []
            zh = _join_han(clause)
            if re.search(f"[{HAN}]", zh):
                zh_clause(zh, st, episodic)
            en_clause(clause, st)
        return _dedupe(st.out)


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


def iter_predicates() -> Iterator[PredicateSpec]:
    """The vocabulary, for docs and the RDF export."""
    return iter(PREDICATES.values())
