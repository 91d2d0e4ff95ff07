"""Which names a memory's text says, given the names the user's graph already knows (pure): the stored-memory hook
that forms associations (bmam/usecases/associations.py) makes a memory MENTION the known entities it names, so
"Tom is getting married in June." (no triple) shares Tom with "My brother Tom lives in Munich.", and an entity a
new triple brings in is mentioned by the older memories that named it before the graph knew it.

The rules are recall's for a name in a memory's text (cypher/recall/slot_match.cypher): the name as written, not
inside a longer Latin word (nor beside a digit); a name written all in lower case in any case; a common given name
(lexicon.GIVEN_NAMES_EN, lower case) in any case in a text written all in lower case. So a daughter named Hope is
not "I hope so" and a son named Will is not William. A Han name is found as written (2+ characters; Han has no
word boundaries: 李娜 in 李娜下个月要来看我). Beyond those rules, for the few names that are everyday words too
(WORD_NAMES_EN: Will, May, Hope, Mark, ...): at the start of a sentence, where every word has a capital, the name
counts only followed by what a person's name is followed by ("Will got an A", "Jack has recently gotten into fly
fishing", "Mark's"), not "Will you ...", "Hope you're well", "May I ..."; and a month (May, June, April, August)
is no name beside a date ("in June", "June 5th"). A name that is an everyday word or a function word written in
lower case ("home", "the gym") is never found: a word read as a name links memories that have nothing in common.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ingest.lexicon import CAPITAL_BESIDE_I, GENERIC_PLACES_ZH, GIVEN_NAMES_EN, has_han, normalize_text
from ingest.scoring import COMMON_EN, COMMON_ZH, STOP_EN, STOP_ZH

# The entity kinds that are names (ingest/extract_core.py PREDICATES' object kinds, and a triple's subject other
# than the user): a person, a pet, a place, an organization (`org` as bench/eval_data.py's triples give it).
NAMED_KINDS: tuple[str, ...] = ("person", "animal", "place", "organization", "org")

# Names that are everyday words too (lexicon.GIVEN_NAMES_EN leaves them out for the same reason), and the months
# among them.
WORD_NAMES_EN: frozenset[str] = frozenset({
    "will", "may", "mark", "bill", "rose", "june", "grace", "hope", "frank", "jack", "sky", "april", "august",
})
_MONTH_NAMES_EN: frozenset[str] = frozenset({"may", "june", "april", "august"})
# Where anyone goes, written in lower case: no name of a place (GENERIC_PLACES_ZH's English side).
_GENERIC_PLACES_EN: frozenset[str] = frozenset({
    "home", "work", "school", "office", "gym", "church", "hospital", "uni", "college", "university", "downtown",
    "town", "city", "abroad", "here", "there", "outside", "inside", "upstairs", "downstairs", "bed", "class",
    "campus", "park", "beach", "store", "shop", "mall", "market", "airport", "station", "hotel", "lab", "clinic",
})

_CAPITAL_BESIDE_I_RE = re.compile(CAPITAL_BESIDE_I)
# What follows a person's name at a sentence's start (lexicon._NAME_NOT_AUX_RE's verbs, a few more, a possessive, a
# comma or "and"); an auxiliary or a verb is followed by its subject or object ("Will you", "Hope you're", "May I").
_NAME_FOLLOWS_RE = re.compile(
    r"\s*(?:['’]s(?![A-Za-z])|,|(?:and|is|was|has|had|got|gets|likes|loves|wants|says|said|told|lives|works|just"
    r"|also|went|came|can|could|would|will|won't|isn't|wasn't|doesn't|didn't|[a-z]+ed)(?![A-Za-z]))")
# Before a month said as a date ("in June", "since May", "early April"); after it: a day or a year ("June 5th").
_DATE_BEFORE_RE = re.compile(
    r"(?i)(?<![A-Za-z])(?:in|on|since|until|till|by|before|after|during|from|through|early|mid|late|next|last|this"
    r"|of|end|start|beginning)[\s-]+$")
_DATE_AFTER_RE = re.compile(r"\s*\d")
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?;:…。！？；]\s*|\n)\s*[\"'“‘(]*$")


def _joins_a_word(ch: str) -> bool:
    """Whether a character beside a Latin name makes it part of a longer word: a Latin letter or a digit (not a Han
    character: 我是和谁一起去的Iceland names Iceland; not an apostrophe: Tom's)."""
    return (ch.isalnum() or ch == "_") and not has_han(ch)


def _text_all_lower(text: str) -> bool:
    return _CAPITAL_BESIDE_I_RE.search(text) is None


def _everyday(name: str) -> bool:
    """A name written in lower case that is an everyday or a function word, or holds one ("the gym")."""
    if has_han(name):
        return name in COMMON_ZH or name in STOP_ZH or name in GENERIC_PLACES_ZH
    return any(w in COMMON_EN or w in STOP_EN or w in WORD_NAMES_EN or w in _GENERIC_PLACES_EN for w in name.split())


def _occurrence_counts(text: str, start: int, end: int, key: str) -> bool:
    """For a name that is an everyday word too (key, lower case): whether its occurrence text[start:end] is the
    name, not the word (see the module's docstring)."""
    before, after = text[:start], text[end:]
    if key in _MONTH_NAMES_EN and (_DATE_BEFORE_RE.search(before) or _DATE_AFTER_RE.match(after)):
        return False
    if _SENTENCE_START_RE.search(before):
        return _NAME_FOLLOWS_RE.match(after) is not None
    return True


def name_said(text: str, name: str) -> bool:
    """Whether the text says the name (see the module's docstring). The user themself (`user`) is no name."""
    return bool(NameFinder([name]).said(text))


def names_said(text: str, names: Iterable[str]) -> list[str]:
    """Those of the names (as given, each once, in the order given) that the text says as a name: see the module's
    docstring."""
    return NameFinder(names).said(text)


class NameFinder:
    """The names a text says, of names given once (a user's graph knows hundreds; the hook reads many texts): each
    name read once, and for each text a cheap test first, since most names are not in a text at all."""

    def __init__(self, names: Iterable[str]) -> None:
        # (the name as given, as read, folded); no user, nothing without a letter, no single Latin letter, no Han
        # name of one character, no everyday word written in lower case
        self._names: list[tuple[str, str, str]] = []
        for name in dict.fromkeys(names):
            n = normalize_text(name)
            key = n.casefold()
            if key == "user" or not any(ch.isalpha() for ch in n) or len(n) < 2:
                continue
            if (has_han(n) or n == key) and _everyday(key):
                continue
            self._names.append((name, n, key))

    def __len__(self) -> int:
        return len(self._names)

    def said(self, text: str) -> list[str]:
        """Those of the names the text says, in the order given."""
        if not self._names:
            return []
        t = normalize_text(text)
        folded = t.casefold()
        lower_text: bool | None = None  # read once, for the first common given name written with a capital
        found: list[str] = []
        for name, n, key in self._names:
            if key not in folded:
                continue
            if has_han(n):
                if n in t:
                    found.append(name)
                continue
            any_case = n == key
            if not any_case and key in GIVEN_NAMES_EN:
                if lower_text is None:
                    lower_text = _text_all_lower(t)
                any_case = lower_text
            hay, needle = (folded, key) if any_case else (t, n)
            start = hay.find(needle)
            while start >= 0:
                end = start + len(needle)
                if not (start > 0 and _joins_a_word(hay[start - 1])) \
                        and not (end < len(hay) and _joins_a_word(hay[end])) \
                        and (key not in WORD_NAMES_EN or _occurrence_counts(t, start, end, key)):
                    found.append(name)
                    break
                start = hay.find(needle, start + 1)
        return found
