"""The extractor's shared core: the triple type, the closed vocabulary, and the per-turn state both rule sets fill.

ingest/extract.py is the public face and the driver; ingest/extract_zh.py and ingest/extract_en.py hold each language's
rules and import what they share from here (so neither imports the driver, and the driver imports both).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from ingest.lexicon import PLACES_ZH

USER = "user"


@dataclass(frozen=True, slots=True)
class ExtractedTriple:
    """One (subject, predicate, object) statement found in a turn, before it becomes graph entities."""

    subject: str
    subject_kind: str
    predicate: str
    object: str
    object_kind: str
    polarity: int = 1

    def key(self) -> tuple[str, str, str, int]:
        """The normalised identity used for de-duplication and evaluation."""
        return (normalize_term(self.subject), self.predicate, normalize_term(self.object), self.polarity)


@dataclass(frozen=True, slots=True)
class PredicateSpec:
    name: str
    object_kind: str
    description: str


# The closed vocabulary. object_kind is the Entity.kind the object becomes in the graph.
PREDICATES: dict[str, PredicateSpec] = {
    p.name: p
    for p in [
        PredicateSpec("name", "name", "the user's (or a person's) name: 我叫小明 / my name is Alice"),
        PredicateSpec("nickname", "name", "what people call them: 大家都叫我阿杰 / call me Jess"),
        PredicateSpec("age", "number", "age in years, digits: 我今年28岁 / I'm 34"),
        PredicateSpec("birthday", "date", "birthday as written: 7月20日 / March 3rd"),
        PredicateSpec("lives_in", "place", "where they live now (-1: no longer / used to)"),
        PredicateSpec("hometown", "place", "where they are from / grew up: 我是四川人 / I'm from Texas"),
        PredicateSpec("works_at", "organization", "employer or work place (-1: left)"),
        PredicateSpec("studies_at", "organization", "school or university"),
        PredicateSpec("major", "field", "field of study"),
        PredicateSpec("is_a", "role", "what the subject is: job, role, identity (程序员 / nurse / vegetarian)"),
        PredicateSpec("speaks", "language", "a language they speak"),
        PredicateSpec("spouse", "person", "wife / husband, named"),
        PredicateSpec("partner", "person", "girlfriend / boyfriend / fiancé(e), named"),
        PredicateSpec("mother", "person", "mother, named"),
        PredicateSpec("father", "person", "father, named"),
        PredicateSpec("sister", "person", "sister, named"),
        PredicateSpec("brother", "person", "brother, named"),
        PredicateSpec("child", "person", "son / daughter, named"),
        PredicateSpec("friend", "person", "friend, named"),
        PredicateSpec("colleague", "person", "colleague, named"),
        PredicateSpec("boss", "person", "boss / manager, named"),
        PredicateSpec("pet", "animal", "a pet, by its name"),
        PredicateSpec("emergency_contact", "person", "who to call in an emergency"),
        PredicateSpec("likes", "thing", "preference; -1 = dislike (不喜欢 / 讨厌 / hate / can't stand)"),
        PredicateSpec("eats", "food", "diet: what they (don't) eat"),
        PredicateSpec("drinks", "food", "diet: what they (don't) drink"),
        PredicateSpec("allergic_to", "allergen", "allergy (safety-critical)"),
        PredicateSpec("has_condition", "condition", "medical condition (safety-critical)"),
        PredicateSpec("visited", "place", "a named place they went to or were at (past events only)"),
        PredicateSpec("originates_from", "place", "general knowledge: X originated in Y"),
        PredicateSpec("located_in", "place", "general knowledge: X is in Y"),
        PredicateSpec("capital_of", "place", "general knowledge: X is the capital of Y"),
    ]
}

# Durable facts about the user: their identity, attributes, people, pets and health (a FACTUAL memory;
# a time word in the same turn does not make it temporary).
PERSONAL_FACT_PREDICATES: frozenset[str] = frozenset(
    {
        "name", "nickname", "age", "birthday", "lives_in", "hometown", "works_at", "studies_at", "major", "is_a",
        "speaks", "spouse", "partner", "mother", "father", "sister", "brother", "child", "friend", "colleague",
        "boss", "pet", "emergency_contact", "allergic_to", "has_condition",
    }
)

# Predicates where a subject holds one value at a time: a new value contradicts the old one.
SINGLE_VALUED_PREDICATES: frozenset[str] = frozenset(
    {
        "name",
        "age",
        "birthday",
        "lives_in",
        "hometown",
        "works_at",
        "studies_at",
        "major",
        "spouse",
        "partner",
        "mother",
        "father",
        "boss",
        "capital_of",
    }
)


def normalize_term(term: str) -> str:
    """Comparison form of a subject/object: NFKC, case-folded, no articles, no edge punctuation/particles."""
    t = unicodedata.normalize("NFKC", term).casefold().strip()
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"^(?:the|a|an)\s+", "", t)
    t = t.strip(" \t.,!?;:'\"“”‘’《》()[]")
    return t


# ---------------------------------------------------------------------------------------------
# shared object cleaning

def _valid_object(obj: str) -> bool:
    o = normalize_term(obj)
    if not o or o in {
        "什么",
        "啥",
        "东西",
        "它",
        "这个",
        "那个",
        "这",
        "那",
        "你",
        "您",
        "他",
        "她",
        "他们",
        "她们",
        "你们",
        "it",
        "anything",
        "everything",
        "something",
        "nothing",
        "this",
        "that",
        "them",
        "him",
        "her",
        "you",
        "me",
    }:
        return False
    return len(o) <= 40


# Emoji and pictographs at the edge of an object ("rainy days ☔", 下雪天❄️) are decoration, not the thing.
_SYMBOLS_EDGE_RE = re.compile(
    r"^[\s\u2190-\u2bff\u2600-\u27bf\ufe0f\u200d\U0001f000-\U0001faff]+"
    r"|[\s\u2190-\u2bff\u2600-\u27bf\ufe0f\u200d\U0001f000-\U0001faff]+$"
)

# A Latin proper name, and capitalised words that are not one (read by both rule sets: my sister Maria, 同事Mike).
_EN_NAME = r"(?:(?:St|Mt|Dr)\. )?[A-Z][a-zA-Z'\-]+(?: [A-Z][a-zA-Z'\-]+){0,2}"
_EN_NON_NAMES = frozenset(
    {"I", "I'm", "My", "The", "A", "An", "And", "But", "So", "He", "She", "It", "We", "They", "This", "That"}
)


# ---------------------------------------------------------------------------------------------
# the state one turn's clauses share


@dataclass(slots=True)
class _State:
    """What one clause leaves for the next: the carried subject, the last named person, a pending relation."""

    subject: str | None = None
    last_person: str | None = None
    pending_rel: str | None = None
    out: list[ExtractedTriple] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)

    def add(
        self,
        subject: str,
        predicate: str,
        obj: str,
        polarity: int = 1,
        *,
        subject_kind: str | None = None,
        object_kind: str | None = None,
    ) -> None:
        obj = _SYMBOLS_EDGE_RE.sub("", obj).strip()
        if not _valid_object(obj) or predicate not in PREDICATES:
            return
        if subject_kind is None:
            subject_kind = "user" if subject == USER else "person"
        if object_kind is None:
            object_kind = PREDICATES[predicate].object_kind
            if predicate == "works_at" and obj in PLACES_ZH:
                object_kind = "place"
        self.out.append(ExtractedTriple(subject, subject_kind, predicate, obj, object_kind, polarity))

    def free(self, start: int, end: int) -> bool:
        """Claim a span of the current clause unless an earlier rule already used it."""
        if any(start < e and s < end for s, e in self.spans):
            return False
        self.spans.append((start, end))
        return True


# Predicates a follow-up clause ("especially X", 尤其是X) may extend.
_LIST_PREDICATES = frozenset({"likes", "eats", "drinks", "allergic_to", "speaks", "visited"})
