"""The English rules of the triple extractor: reading an en clause, the en rule table and its helpers.

The driver (RuleTripleExtractor in ingest/extract.py) hands every clause to en_clause, after the Chinese rules (spans
they claimed are left alone); the rules add triples to the shared _State (ingest/extract_core.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import replace

from ingest.extract_core import (
    _EN_NAME,
    _EN_NON_NAMES,
    _LIST_PREDICATES,
    EMAIL_PATTERN,
    KIN_RELATIONS,
    PHONE_PATTERN,
    SINGLE_VALUED_PREDICATES,
    USER,
    WORK_FIELDS_EN,
    Favourite,
    _State,
    activity_name,
    favourite_category,
    is_music,
    is_occupation,
    is_sport,
    normalize_term,
    phone_ok,
    unquoted,
)
from ingest.lexicon import (
    CAPITAL_BESIDE_I,
    CONDITIONS_EN_RE,
    DRINKS_EN_PATTERN,
    EPISODIC_EN_RE,
    GIVEN_NAMES_EN,
    HAN,
    NATIONALITIES_EN,
    PAST_EN_RE,
    RELATIONS_EN,
    people,
    same_drink_kind,
    word_list,
)

# ---------------------------------------------------------------------------------------------
# object cleaning

_EN_COORD_RE = re.compile(r"\s*(?:,|\band\b|&|\bor\b)\s*", re.IGNORECASE)
_EN_ARTICLE_RE = re.compile(
    r"^(?:the|my|some|a bit of|a little|a little bit of|basic|fluent|conversational)\s+", re.IGNORECASE
)
_EN_INDEFINITE_RE = re.compile(r"^(?:a|an|one|some)\s", re.IGNORECASE)

# Where an English object ends: the start of an adverbial the object does not include.
_EN_TAIL_COMMON = (
    r"because|since|but|so|now|again|lately|these days|by the way|right now|too|as well|anymore|any more"
    r"|actually|though|haha|lol|a lot|so much|very much|really much|every \w+|each \w+|on weekends"
    r"|at weekends|on the weekend|whenever|when|while|if|which|who|that's|and i|i think|at all|online|offline"
    r"|at home|alone|sometimes|often|occasionally|nowadays|recently|daily|regularly|in my (?:free|spare) time"
    r"|btw|tbh|honestly|to be honest|originally"
)
_EN_TAIL_PLACE = (
    _EN_TAIL_COMMON + r"|with|for|as|from|on|at|after|before|last|this|next|yesterday|today"
    r"|tomorrow|twice|once|three times|\d+ times|in \d{4}|in the|over|during|to|and|where"
    r"|in (?:january|february|march|april|may|june|july|august|september|october|november|december)"  # "in August"
)
_EN_TAIL_THING = (
    _EN_TAIL_COMMON + r"|over|than|rather than|instead|more than|with|for|in the (?:mornings?|evenings?|afternoons?"
    r"|summer|winter|spring|fall|autumn)|in (?:summer|winter|spring|fall|autumn)|on (?:sundays|saturdays"
    r"|mondays|fridays|holidays)"
)
# when a sport is played, after it: "I do yoga twice a week", "I took up pickleball last year"
_EN_TAIL_SPORT = _EN_TAIL_THING + (r"|last|this|next|yesterday|today|twice|once|three times|\d+ times|at|in|on|after"
                                   r"|before")


# Where a clause goes on past its object whatever the rule: the speaker starting again where the clause did not open
# with them ("honestly I love teal and my lucky number is 7", "so I'm allergic to shellfish and my daughter is ..."),
# an aside in brackets ("sushi (especially salmon)", "Denver (for now)").
_EN_OBJECT_GOES_ON_RE = re.compile(r"\s+(?:(?:and|&)\s+(?:my|our|i|i'm|i've|we|we're)\s|\()", re.IGNORECASE)


def _en_cut(obj: str, tails: str) -> str:
    obj = unquoted(obj)  # '"teal" really': the quoted word, before the tails are looked for
    if goes_on := _EN_OBJECT_GOES_ON_RE.search(obj):
        obj = obj[: goes_on.start()]
    m = re.search(rf"\s+(?:{tails})(?![A-Za-z]).*$", obj, re.IGNORECASE)
    if m:
        obj = obj[: m.start()]
    return obj.strip(" .,!?;:'\"&")  # "sushi & honestly ramen": the "&" before the tail cut off


# ---------------------------------------------------------------------------------------------
# reading one clause


_EN_REL_ALT = "|".join(sorted(map(re.escape, RELATIONS_EN), key=len, reverse=True))


_EN_CAPITAL_RE = re.compile(CAPITAL_BESIDE_I)
_EN_GIVEN_NAME_RE = re.compile(r"(?<![A-Za-z'])(?:" + "|".join(sorted(GIVEN_NAMES_EN, key=len, reverse=True))
                               + r")(?![A-Za-z])")


@functools.lru_cache(maxsize=256)  # asked once per clause of the turn
def _in_lower_case(turn: str) -> bool:
    return _EN_CAPITAL_RE.search(turn) is None


def names_capitalized(clause: str, turn: str) -> str:
    """The clause with the common given names capitalized when its turn is written all in lower case ("my brother
    greg lives in seattle": the rules read a name by its capital); as it is otherwise (a turn that capitalizes
    its names and leaves "mike" lower case means a microphone)."""
    if not _in_lower_case(turn):
        return clause
    return _EN_GIVEN_NAME_RE.sub(lambda m: m[0].capitalize(), clause)


# How many verb phrases of one clause are read with a carried subject, and up to what length of clause (a list of
# "and love X" pasted thousands of times was read again from each "and": deep and quadratic)
_CARRIED_AT_MOST = 3
_CARRIED_CLAUSE_CHARS = 400


def en_clause(c: str, st: _State, *, carried: int = 0) -> None:
    c = _en_without_adverbs(_en_restore_subject(names_capitalized(c, st.turn)))
    if _en_follow_up(c, st):
        return
    read_from = len(st.out)
    _en_clause_rules(c, st)
    if len(c) <= _CARRIED_CLAUSE_CHARS and (second := second_verb_phrase(c)) is not None:
        # "I left NetEase and started a new job at Alibaba": the second verb phrase is the user's too, read as its own
        # clause (its words are no part of the first one's object: "I eat chicken and drink coffee")
        joined, phrase = second
        st.out[read_from:] = [replace(t, object=t.object[: at].strip(" ,"))
                              if (at := t.object.lower().find(joined)) > 0 else t for t in st.out[read_from:]]
        if carried < _CARRIED_AT_MOST - 1:
            spans, st.spans = st.spans, []
            en_clause(phrase, st, carried=carried + 1)
            st.spans = spans


def _en_clause_rules(c: str, st: _State) -> None:
    if st.last_person and not st.spans and re.match(
            rf"(?i)(?:and )?(?:he|she)(?:'s| is|(?: {_EN_PERSON_ADVERBS})? (?:lives|works|moved))\b", c):
        _en_person_attributes(c, st.last_person, st)  # "My sister Maria lives in Denver, she's a teacher"
        return
    _en_relations(c, st)
    if _en_named_person(c, st):
        return
    if not st.spans and (m := _en_opening_name(c)) and re.match("[a-z]", m["t"]):
        st.last_person = m["n"].removesuffix("'s")  # "Sarah got a new job, she now works at ...": she is Sarah
    # a person named late in the clause ("I live in London with my wife and our dog Max") leaves what comes
    # before it to the rules: read on its own too (a rule's match over the whole clause would cover the name)
    named_at = [start for start, _ in st.spans if start > 0]
    for text in (c, c[:min(named_at)]) if named_at else (c,):
        for pattern, handler in _EN_RULES:
            for m in pattern.finditer(text):
                if st.free(m.start(), m.end()) and handler(m, st) is False:
                    st.spans.pop()  # the rule declined: leave the words to the rules after it
    _en_knowledge(c, st)


def _en_follow_up(c: str, st: _State) -> bool:
    """A clause that only extends the previous statement: "especially green curry", "not Sydney"."""
    if st.spans:
        return False  # the Chinese rules already read this clause
    last = st.out[-1] if st.out else None
    if last is None:
        return False
    if last.predicate in _LIST_PREDICATES and (
        m := re.fullmatch(
            r"(?i:(?:and )?(?:especially|particularly|mostly|above all|even|also|plus))\s+(?P<o>.+)", c
        )
    ):
        for part in _EN_COORD_RE.split(_en_cut(m["o"], _EN_TAIL_THING)):
            if part := _EN_ARTICLE_RE.sub("", part.strip()):
                st.add(last.subject, last.predicate, part, last.polarity)
        return True
    if last.predicate in _LIST_PREDICATES and (
        m := re.fullmatch(
            r"(?i:(?:and|&|plus|as well as)\s+(?:also\s+)?(?:some|a bit of|a little(?: bit of)?|a little|basic"
            r"|broken|conversational|fluent|even)?)\s*(?P<o>[\w' -]{2,30})",
            c.strip(" .!"),
        )
    ):
        o = _en_cut(m["o"], _EN_TAIL_THING)
        if not re.search(r"(?i)\b(?:i|my|me|we|you|he|she|it|they|is|are|was|am|do|did|don't|can|will)\b", o):
            st.add(last.subject, last.predicate, o, last.polarity)  # "I speak English, and some Spanish"
            return True
    if last.predicate == "name" and last.subject == USER and (
        m := re.fullmatch(rf"(?i:(?:and )?(?:an? )?)(?P<role>[a-z][a-z -]{{1,40}}?)"
                          rf"(?: (?i:at|for|with) (?P<org>{_EN_NAME}))?", c.strip(" .!"))
    ) and is_occupation(m["role"]):  # not "a student at Stanford", "a member at Equinox": no employer
        st.add(USER, "is_a", m["role"])  # "I'm Dana, a backend engineer at Kestrel Labs": who she is, where she works
        if m["org"]:
            st.add(USER, "works_at", m["org"])
        return True
    if last.predicate == "works_at" and last.subject == USER and last.polarity == 1 \
            and re.match(r"(?i)(?:and |now )?as ", c.strip()) and _en_role_said(c, st):
        return True  # "I started a new job at Alibaba this week, as a senior product designer"
    if last.predicate == "works_at" and (
        m := re.fullmatch(rf"(?i:i'm|i am|im) (?i:now )?(?i:at|with) (?P<o>{_EN_NAME})(?i: now)?", c.strip(" .!"))
    ):
        st.add(USER, "works_at", m["o"])  # "I no longer work at Amazon, I'm at Microsoft now"
        return True
    if last.predicate in {"eats", "drinks"} and last.polarity == -1 and (
        m := re.fullmatch(r"(?i:(?:just|only)) (?P<o>[\w -]{2,30})", c.strip(" .!"))
    ):
        st.add(USER, last.predicate, _en_cut(m["o"], _EN_TAIL_THING))  # "I don't drink coffee, just tea"
        return True
    if m := re.fullmatch(rf"(?i:not)\s+(?P<o>{_EN_NAME}|\d{{1,3}})", c.strip(" .!")):
        o = m["o"]
        if last.subject_kind == "thing" and last.predicate == "capital_of":
            st.add(o, last.predicate, last.object, -last.polarity, subject_kind="thing")  # "X, not Z"
        elif last.subject_kind == "thing" or last.predicate in SINGLE_VALUED_PREDICATES:
            # "Croissants come from Austria, not France" / "I'm 31, not 30": the other value is denied
            if o.isdigit() != last.object.isdigit():
                return False
            st.add(last.subject, last.predicate, o, -last.polarity, subject_kind=last.subject_kind)
        else:
            return False
        return True
    return False


_EN_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, **{str(n): n for n in range(1, 10)}}
# ", who is 7," after a name in a list: that one's age (ingest/extract.py reads it as no question inside a list)
AGE_IN_A_LIST_RE = re.compile(r"(?i:who(?:'s| is)) (?P<n>\d{1,3})(?i: years? old)?")


def _en_listing(c: str, st: _State) -> bool:
    """The clauses after a list's first name ("We have two kids: Maya, who is 7, and Leo, who is 4"): an age said
    of the one just named, and the next name of the list (only Maya was a child before)."""
    rel, st.listing_rel = st.listing_rel, None
    if rel is None:
        return False
    if (m := AGE_IN_A_LIST_RE.fullmatch(c.strip())) and st.last_person:
        st.add(st.last_person, "age", m["n"])
    elif (m := re.fullmatch(rf"(?i:and) (?P<n>{_EN_NAME})", c.strip())) and m["n"] not in _EN_NON_NAMES \
            and st.listing_left > 0:  # "two kids: Maya and Leo, and Max": Max is no third child
        st.add(USER, rel, m["n"])
        st.last_person = m["n"]
        st.listing_left -= 1
    else:
        return False
    st.listing_rel = rel
    st.spans.append((0, len(c)))
    return True


def _en_relations(c: str, st: _State) -> None:
    if _en_listing(c, st):
        return
    address_before, st.address_before = st.address_before, False
    if address_before and (m := re.fullmatch(rf"(?P<o>{_EN_NAME})(?: [A-Z]{{2}})?(?: \d{{4,6}})?", c.strip())) \
            and m["o"] not in _EN_NON_NAMES:
        # "Our new address is 2417 NW 64th Street, Seattle[, WA 98107].", "..., Toronto ON"
        st.add(USER, "lives_in", re.sub(r" [A-Z]{2}$", "", m["o"]))
        st.spans.append((0, len(c)))
        return
    if re.match(r"(?i)(?:my|our) (?:new |home |current )?address is \d", c):
        st.address_before = True  # the city, if any, is the next clause ("... 64th Street, Seattle")
    # pending relation from "I have two kids," -> "Emma and Leo"
    if st.pending_rel and re.fullmatch(
        rf"(?:(?:one|the other|the older|the younger) (?:is )?(?:named |called )?"
        rf"|(?i:(?:his|her|its|their) name is|(?:he|she|it)(?:'s| is) (?:called|named)|called|named) )?"
        rf"{_EN_NAME}(?:(?:,| and) {_EN_NAME})*",
        c,
    ):
        for name in _EN_COORD_RE.split(
            re.sub(
                r"^(?:(?:one|the other|the older|the younger) (?:is )?(?:named |called )?"
                r"|(?i:(?:his|her|its|their) name is|(?:he|she|it)(?:'s| is) (?:called|named)|called|named) )",
                "",
                c,
            )
        ):
            if name and name not in _EN_NON_NAMES:
                st.add(USER, st.pending_rel, name)
                st.last_person = name
                st.pending_count -= 1
        # a list goes on past its first clause only as far as the count said ("We have two kids: Maya, who is 7,
        # and Leo"); no count, no list
        st.listing_rel, st.listing_left = (st.pending_rel, st.pending_count) if st.pending_count > 0 else (None, 0)
        st.pending_rel, st.pending_count = None, 0
        st.spans.append((0, len(c)))
        return
    if m := re.search(rf"(?i:\bmy emergency contact is )(?:(?i:my )(?P<r>{_EN_REL_ALT}) )?(?P<n>{_EN_NAME})", c):
        st.add(USER, "emergency_contact", m["n"])
        if m["r"]:
            st.add(USER, RELATIONS_EN[m["r"].lower()], m["n"])
        st.spans.append((m.start(), m.end()))
        return
    m = re.search(
        rf"(?i:\b(?:my|our) (?:(?:younger|older|little|big|elder|baby|twin|best|oldest|youngest|eldest|new|old) )?)"
        rf"(?P<r>(?i:{_EN_REL_ALT}))(?i:(?:'s|’s|s)? name is|(?:'s|’s|s)? name's| is called| is named"
        r"| named| called"
        r"| is|,)? "
        rf"(?P<n>{_EN_NAME})(?P<t>.*)$",
        c,
    )
    if m is None:  # chat drops the "my" opening a clause: "wife Sarah is a mining engineer"
        m = re.match(rf"(?P<r>(?i:{_EN_KIN_ALT})) (?P<n>{_EN_NAME})(?P<t>.*)$", c)
    if m is None:
        m = re.search(
            rf"(?i:\b(?:my|our) )(?P<r>(?i:{_EN_REL_ALT}))(?i:'s| is) (?i:an?|this) (?i:[\w-]+ )?"
            rf"(?i:guy|girl|man|woman|lady|dude|person|gal|fellow|chap|boy|kid|one)(?i: named| called) "
            rf"(?P<n>{_EN_NAME})(?P<t>.*)$",
            c,
        )
    if m and m["n"].split()[0] not in _EN_NON_NAMES:
        name = m["n"]
        # "My husband Mark is a chef": the tail may start with a verb that the name swallowed
        st.add(USER, RELATIONS_EN[m["r"].lower()], name)
        st.last_person = name
        st.spans.append((m.start(), m.start("t")))
        _en_person_attributes(m["t"], name, st)
        return
    if m := re.search(
        rf"(?P<n>{_EN_NAME}) is my (?:(?:younger|older|little|big|best) )?(?P<r>(?i:{_EN_REL_ALT}))\b", c
    ):
        st.add(USER, RELATIONS_EN[m["r"].lower()], m["n"])
        st.last_person = m["n"]
        st.spans.append((m.start(), m.end()))
        return
    if m := re.search(rf"(?i:\b(?:with|and) my (?P<r>{_EN_REL_ALT}))$", c.strip(" .!")):
        st.pending_rel = RELATIONS_EN[m["r"].lower()]  # "I live in Leeds with my partner, Sam": named next
    if re.fullmatch(r"(?i:(?:i'm|i am|im|i've been|i have been) (?:now |also )?seeing (?:someone|somebody)(?: new)?)",
                    c.strip(" .!")):
        st.pending_rel = "partner"  # "I've been seeing someone new, Alex.": named next
    if m := re.match(rf"(?i:(?:i'm|i am|im) (?:now |currently )?(?:dating|going out with)) (?P<n>{_EN_NAME})?",
                     c.strip(" .!")):
        if m["n"] and _en_name_ok(m["n"]):
            st.add(USER, "partner", m["n"])  # "I'm dating Sofia"
            st.last_person = m["n"]
        else:
            st.pending_rel = "partner"  # "I'm dating someone new, her name is Sofia": named next
        st.spans.append((m.start(), m.end()))
    if m := re.search(
        rf"(?i:\b(?:i|we)(?: have|'ve got|'ve| got| own| adopted| just adopted| just got) (?P<count>an?|one|two"
        rf"|three|four|\d+)"
        rf" (?:[\w-]+ ){{0,2}})(?P<r>(?i:{_EN_REL_ALT}))"  # (a retired racing greyhound)
        rf"(?:(?i: named| called) (?P<n>{_EN_NAME}))?",
        c,
    ):
        if m["n"]:
            st.add(USER, RELATIONS_EN[m["r"].lower()], m["n"])
            st.last_person = m["n"]
        else:
            st.pending_rel = RELATIONS_EN[m["r"].lower()]
            st.pending_count = _EN_COUNTS.get(m["count"].lower(), 0) if m["count"] else 0
        st.spans.append((m.start(), m.end()))


# Verbs whose subject is a person whatever the name ("Lily works at Mercy Hospital", "Tom moved to Berlin"); the
# others of _en_person_attributes only after a person named in the same turn: "Pizza is from Italy" is knowledge
# (originates_from), "Python is a language" no fact about anyone.
_EN_PERSON_ADVERBS = r"now|currently|recently|just|also|still"
# When or how someone works, between "works" and where or the job ("Linda works mornings at the library", "I work
# nights at St. Mary's", "I work part-time as a bookkeeper"): the workplace or job is still said.
_EN_WORK_WHEN = r"nights|days|weekends|evenings|mornings|part-time|full-time|part time|full time|shifts|remotely"
_EN_PERSON_VERBS = (rf"lives in|works (?:(?:{_EN_WORK_WHEN}) )?(?:at|for)|(?:just |recently )?moved to"
                    r"|is (?:severely |very |mildly )?allergic to"
                    r"|(?:now |just |recently )?(?:goes to|attends|started (?:at|attending)|transferred to"
                    r"|switched to)")
# A school by its name ("Oakwood Elementary", "Riverside Middle School"): where a child goes to school.
_EN_SCHOOL = (r"(?:[A-Z][\w'.-]+ ){1,4}(?:School|Elementary|Academy|High|Middle|Primary|Preschool|Kindergarten"
              r"|Montessori|Prep|College|University)\b")
_EN_NAMED_PERSON_VERBS = _EN_PERSON_VERBS + r"|(?:is|comes) (?:originally )?from|is an? |(?:just |recently )?turned"
# Capitalised words that open a clause without naming anyone.
_EN_NOT_A_PERSON = frozenset({
    "Yesterday", "Today", "Tomorrow", "Tonight", "Now", "Then", "Also", "Apparently", "Actually", "Finally",
    "Recently", "Last", "Next", "Sadly", "Luckily", "Anyway", "Well", "Oh", "Btw", "Everyone", "Everybody",
    "Nobody", "Someone", "Somebody", "Our", "Your", "His", "Her", "Their", "There", "Here", "You", "Who",
    *(word.capitalize() for word in RELATIONS_EN),
})


def _en_opening_name(c: str) -> re.Match[str] | None:
    """A clause opening with a person's name: the name as written (n) and what follows it (t), past a possessive
    ("Tom’s not in Berlin")."""
    # past a joining word ("because Linda works mornings at the library"): the clause still opens with what it says
    m = re.match(rf"(?:(?i:because|since|and|but|so|as|while|'?cause) )?(?P<n>{_EN_NAME})(?:['’]s)? (?P<t>.+)$",
                 c.strip())
    if m is None or not _en_name_ok(m["n"]) or m["n"].split()[0] in _EN_NOT_A_PERSON:
        return None
    return m


def _en_named_person(c: str, st: _State) -> bool:
    """A clause that says something of a person by name: "Lily works at Mercy Hospital" -> (Lily, works_at, ...),
    with the verbs any person takes; "Anna is a nurse", "Tom is from Leeds" only of a person named earlier in
    the turn. True when it gave a triple (the clause is read)."""
    m = _en_opening_name(c)
    if m is None:
        return False
    verbs = _EN_NAMED_PERSON_VERBS if m["n"] == st.last_person else _EN_PERSON_VERBS
    if not re.match(rf"(?i:{verbs})", m["t"]):
        return False
    before = len(st.out)
    _en_person_attributes(m["t"], m["n"], st)
    if len(st.out) == before:
        return False
    st.last_person = m["n"]
    st.spans.append((0, len(c)))
    return True


def _en_person_attributes(tail: str, name: str, st: _State) -> None:
    tail = tail.strip()
    # "... and she's 12" / "..., he is a chef": the pronoun is the person just named
    tail = re.sub(r"(?i)^(?:and |,\s*)?(?:he|she|they)(?:'s| is| are)\b", "is", tail)
    tail = re.sub(rf"(?i)^(?:and |,\s*)?(?:he|she|they) (?:(?:{_EN_PERSON_ADVERBS}) )?(?=lives|works|is|moved)", "",
                  tail)
    # "lives in Oslo and works at Equinor": each attribute in turn
    if more := re.search(rf"(?i)\s+and (?:(?:he|she|they) )?(?:(?:{_EN_PERSON_ADVERBS}) )?(?=(?:lives|works|moved) )",
                         tail):
        _en_person_attributes(tail[:more.start()], name, st)
        _en_person_attributes(tail[more.end():], name, st)
        return
    if m := re.match(rf"(?i:(?:now |just |recently )?(?:goes to|attends|started (?:at|attending)|transferred to"
                     rf"|switched to|moved to)) (?P<o>{_EN_SCHOOL})", tail):
        st.add(name, "studies_at", m["o"])  # "Leo started at Riverside Middle School this fall"
    elif m := re.match(r"(?i)lives (?:up |down |out |over |now )?in (?P<o>.+)", tail):
        st.add(name, "lives_in", _en_cut(m["o"], _EN_TAIL_PLACE))  # "He lives up in Denver"
    elif m := re.match(r"(?i)(?:just |recently )?moved to (?P<o>.+)", tail):
        if re.match(rf"{_EN_NAME}|[{HAN}]", m["o"]):  # a named place, not "moved to a new flat"
            st.add(name, "lives_in", _en_cut(m["o"], _EN_TAIL_PLACE))
    elif m := re.match(rf"(?i)works (?:(?:{_EN_WORK_WHEN}) )?(?:at|for) (?P<o>.+)", tail):
        org = _en_cut(m["o"], _EN_TAIL_PLACE)
        if not _EN_INDEFINITE_RE.match(org):  # unnamed organisations give no triple ("a small startup")
            st.add(name, "works_at", org)
    elif m := re.match(r"(?i)is an? (?P<o>[\w -]+)$", tail):
        st.add(name, "is_a", _en_cut(m["o"], _EN_TAIL_PLACE))
    elif m := re.match(rf"(?i)(?:is|comes) (?:originally )?from (?P<o>{_EN_NAME})", tail):
        st.add(name, "hometown", _en_cut(m["o"], _EN_TAIL_PLACE))  # "my coworker Dave is from Glasgow"
    elif m := re.match(r"(?i)is (?:severely |very |mildly )?allergic to (?P<o>.+)", tail):
        for part in _EN_COORD_RE.split(_en_cut(m["o"], _EN_TAIL_COMMON)):  # "my son Ethan is allergic to eggs"
            if part := _EN_ARTICLE_RE.sub("", part.strip()):
                st.add(name, "allergic_to", part)
    elif m := re.match(
        rf"(?i)(?:(?:just |recently )?turned|is|'s) (?P<o>\d{{1,3}}|{_EN_NUMBER_WORDS})"
        r"(?: (?:years old|yrs old|y/o|yo|now|today|last \w+))?$",
        tail,
    ):
        st.add(name, "age", _en_number(m["o"]))  # "my daughter Emma just turned 6" / "... turned seven"


def _en_knowledge(c: str, st: _State) -> None:
    if re.search(r"(?i)\b(?:i|i'm|my|me|we|our|you|your|it|it's|this|that|there|here)\b", c):
        return
    for pattern, predicate in _EN_KNOWLEDGE:
        if m := pattern.fullmatch(c.strip(" .!")):
            subj = re.sub(
                r"(?i)\s+(?:actually|originally|really|first|probably|apparently|supposedly|in fact|also)$",
                "",
                m["s"].strip(),
            )
            if len(subj.split()) <= 5 and st.free(0, len(c)):
                st.add(subj, predicate, _en_cut(m["o"], _EN_TAIL_COMMON), subject_kind="thing")
            return


# ---------------------------------------------------------------------------------------------
# favourites

# "my favourite thing is...", "my favourite part was...": no kind to hold one value of
NO_KIND_OF_FAVOURITE = frozenset({"thing", "one", "part", "way", "place to be", "time"})
_EN_FAV_ADV = r"(?:now|still|definitely|probably|currently|actually|honestly|totally|easily)"
_EN_FAVOURITE_RE = re.compile(
    r"(?i:\bmy (?:(?:new|current|absolute|all-time|very) )*(?:favou?rite|fave|fav|go-to) "
    r"(?P<cat>[a-z][a-z-]*(?: [a-z][a-z-]*){0,2}?)"
    # "Lately my favorite band has to be Arctic Monkeys", "my go-to snack is now ..."
    rf"(?: (?:now|these days|at the moment))? (?:is|are|'s|has to be|have to be|would (?:have to )?be)"
    rf"(?: {_EN_FAV_ADV})*) (?P<o>.+)"
    rf"|^(?P<o2>[^,]{{1,40}}?)(?i: (?:is|are) (?:{_EN_FAV_ADV} )*my (?:(?:new|current|absolute|all-time) )*"
    r"(?:favou?rite|fave) (?P<cat2>[a-z][a-z-]*))\b"
)


def en_favourites(c: str) -> list[Favourite]:
    """"My favourite colour is blue" / "Jazz is my favourite genre": (kind, value) for each value named; a kind
    "thing to eat" is kept as said. No kind ("Thai food is my absolute favorite"), no favourite."""
    m = _EN_FAVOURITE_RE.search(c)
    if m is None:
        return []
    category = favourite_category(m["cat"] or m["cat2"])
    if category in NO_KIND_OF_FAVOURITE:
        return []  # "my favourite thing is...", "my favourite part was...": no kind to hold one value of
    out: list[Favourite] = []
    for part in _EN_COORD_RE.split(_en_cut(m["o"] or m["o2"], _EN_TAIL_THING)):
        if value := normalize_term(_EN_ARTICLE_RE.sub("", part.strip())):
            out.append(Favourite(category, value, c))
    return out


# ---------------------------------------------------------------------------------------------
# English rule table

# Chat drops the subject: "love sushi", "moved to London in 2018", "not a fan of jazz", "obsessed with matcha".
_EN_DROPPED_I_RE = re.compile(
    r"^(?P<lead>(?:(?:honestly|actually|tbh|ngl|also|really|btw|lol|and|so|oh|just|kinda|totally|seriously|still"
    r"|always|never|currently|recently|originally|literally)\s*,?\s+)*)"
    r"(?P<v>(?:love|adore|enjoy|prefer|hate|dislike|detest|loathe|can't stand|cannot stand|don't (?:really )?like"
    r"|don't eat|don't drink|never eat|never drink|can't eat|can't drink|work (?:at|for|as)|worked (?:at|for|as)"
    r"|live in|lived in|moved|went|grew up|was born|studied|visited|used to|quit|gave up|got a job|got hired"
    r"|started working)\b)",
    re.IGNORECASE,
)
_EN_DROPPED_IM_RE = re.compile(
    r"^(?P<lead>(?:(?:honestly|actually|tbh|ngl|also|really|btw|lol|and|so|oh|just|kinda|totally|seriously|still"
    r"|currently|originally|literally)\s*,?\s+)*)"
    r"(?P<v>(?:not (?:a|really|that|the|much|into|big|huge)\b|(?:a |an )?(?:huge |big |massive )?fan of\b"
    r"|obsessed with\b"
    r"|crazy about\b|addicted to\b|hooked on\b|allergic to\b|based in\b|from(?= (?-i:[A-Z]))"
    # "I'm 19, a freshman at UCLA": a student's year or a student at a named school
    r"|(?:a|an) (?:freshman|sophomore|junior|senior|(?:first|second|third|fourth|final)[- ]year|[\w-]+ student)"
    r"(?: student)? at (?-i:[A-Z])))",
    re.IGNORECASE,
)


def _en_restore_subject(c: str) -> str:
    """Put the dropped "I" / "I'm" back so one rule table serves both ("Went to the Louvre" -> "I went ...")."""
    if m := _EN_DROPPED_I_RE.match(c):
        return c[: m.start("v")] + "I " + c[m.start("v") :]
    if m := _EN_DROPPED_IM_RE.match(c):
        return c[: m.start("v")] + "I'm " + c[m.start("v") :]
    if m := re.match(r"(?i)^(?P<lead>(?:honestly|actually|also|just|and|so)\s+)*(?P<v>been (?:living|working))\b", c):
        return c[: m.start("v")] + "I've " + c[m.start("v") :]
    return c


# A second verb phrase whose subject is the user's, carried over "and" ("I left NetEase and started a new job at
# Alibaba", "I live in London and work at Google", "I don't eat meat and drink alcohol"): the verbs the rules read
# after "I", in each form (a noun or an adjective after "and" is no verb: "I love fried rice and baked beans").
_EN_VERBS_IRREGULAR = {
    "eat": "ate eaten", "drink": "drank drunk", "leave": "left", "take": "took taken", "get": "got gotten",
    "become": "became", "go": "went gone", "teach": "taught", "speak": "spoke spoken", "ride": "rode ridden",
    "run": "ran", "do": "did done", "grow": "grew grown", "buy": "bought", "begin": "began begun", "quit": "quit",
    "swim": "swam swum", "fly": "flew flown", "drive": "drove driven", "meet": "met", "find": "found",
    "make": "made", "pay": "paid", "spend": "spent", "keep": "kept", "have": "had", "sell": "sold", "read": "read",
    "lose": "lost", "wake": "woke", "sleep": "slept", "feel": "felt", "fall": "fell fallen", "lead": "led",
    "prefer": "preferred",
}
_EN_VERBS_REGULAR = word_list(
    "love like enjoy adore prefer hate dislike work live move start join study play use own bike cycle visit travel "
    "retire raise marry date adopt rent volunteer support cook watch listen practice practise train land accept "
    "transfer relocate settle graduate finish stop walk commute hike ski surf need want plan hope try miss switch "
    "pick drop call help manage"
)


def _en_verb_forms() -> tuple[frozenset[str], frozenset[str]]:
    """(base and present forms, past forms) of the verbs a carried subject is read before."""
    present: set[str] = set()
    past: set[str] = set()
    for base in (*_EN_VERBS_REGULAR, *_EN_VERBS_IRREGULAR):
        present |= {base, base + "es" if base.endswith(("sh", "ch", "o")) else base + "s"}
        if base in _EN_VERBS_IRREGULAR:
            past |= set(_EN_VERBS_IRREGULAR[base].split())
        elif base.endswith("e"):
            past.add(base + "d")
        elif base.endswith("y") and base[-2] not in "aeiou":
            past.add(base[:-1] + "ied")
        elif re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", base):
            past.add(base + base[-1] + "ed")  # stop -> stopped, plan -> planned
        else:
            past.add(base + "ed")
    return frozenset(present), frozenset(past - present)


_EN_VERB_PRESENT, _EN_VERB_PAST = _en_verb_forms()
_EN_ANY_VERB = "|".join(sorted(_EN_VERB_PRESENT | _EN_VERB_PAST, key=len, reverse=True))
# "I" and what opens the first verb phrase: a helping verb or a wish whose scope the second verb shares when said
# bare ("I don't eat meat and drink alcohol": no alcohol either; "I want to quit and join a startup": a wish too)
_EN_CARRY_HELPER = (r"(?:don't|do not|didn't|did not|never|can't|cannot|can not|won't|will not|will|'ll|would|'d"
                    r"|should|could|might|may|must|no longer|'m not|am not|'m going to|am going to|'m gonna|wanna"
                    r"|want to|need to|have to|plan to|'m planning to|am planning to|hope to|'m hoping to|try to"
                    r"|'m trying to|used to|'d like to|'m about to|'ve|have|'m|am)")
_EN_SECOND_VP_RE = re.compile(
    r"(?i)^(?:(?:so|and|well|oh|ok|okay|also|honestly|actually|btw|yeah|anyway|then|lol|haha|update|big news)"
    r"[,!:]?\s+)*"
    rf"i(?P<helper>\s*{_EN_CARRY_HELPER})?\s+(?P<first>[^,;]*?)"
    rf",?\s+(?P<joined>and(?:\s+(?:then|now|also|just|recently|finally|since|later|eventually|soon))?\s+"
    rf"(?P<verb>{_EN_ANY_VERB}))\b(?P<rest>[^,;]*)$")
# Whose the first verb phrase's words are not: a thought or words said ("I think my sister left Google and joined
# Meta"), or a clause that does not state ("if", "when", "because")
_EN_NOT_CARRIED_RE = re.compile(
    r"(?i)^(?:think|thought|guess|believe|feel|felt|hope|wish|heard|hear|know|knew|said|say|told|tell|mean|meant"
    r"|suppose|bet|realized|realised|noticed|learned|remember|wonder|doubt|reckon)\b"
    r"|\b(?:that|who|which|because|since|when|while|where|if|whether|unless|although|though|but|so)\b")


def second_verb_phrase(c: str) -> tuple[str, str] | None:
    """A clause of the user's joining two verb phrases with "and": ("and <verb>" as written, lower case; the second
    phrase with the subject carried: "I started a new job at Alibaba this week"), or None. A helping verb or a wish
    before the first verb goes with a second verb said bare ("I don't eat meat and drink alcohol": "I don't drink
    alcohol"), not with one in the past ("I used to work at IBM and then moved to Oracle": "I moved to Oracle")."""
    m = _EN_SECOND_VP_RE.match(c.strip().rstrip(".!"))
    if m is None or _EN_NOT_CARRIED_RE.search(m["first"]) or re.match(r"(?i)(?:if|when|whether|unless)\b", c.strip()):
        return None
    verb, helper = m["verb"].lower(), (m["helper"] or "").strip()
    said = m["verb"] + m["rest"]
    if verb in _EN_VERB_PAST or not helper or helper.lower() in ("'m", "am", "'ve", "have"):
        carried = f"I {said}"  # "'m" / "'ve" before a bare verb is no helper of it ("I'm from Ohio and live in Boston")
    else:
        carried = f"I {helper} {said}" if not helper.startswith("'") else f"I{helper} {said}"
    return m["joined"].lower(), carried


# Adverbs a speaker puts between "I" and the verb that change no fact: "I'm also allergic to shellfish", "I actually
# don't drink coffee anymore" read as the same clause without them (the rules list a few such words each, never
# all). Negations, "used to" and times stay: they change the fact; so do hedges and hyperbole ("I'm basically a chef
# at home", "I'm literally allergic to mondays", "I'm already a member at Equinox": no job, no allergy).
_EN_FILLER_ADVERBS_RE = re.compile(
    r"(?i)\b(?P<s>i|i'm|i am|im|i've|i have|we|we're|we are|we've|we have)"
    r"(?:\s+(?:also|actually|really|still|now|currently|recently|finally|definitely|officially))+(?=\s)"
)


def _en_without_adverbs(c: str) -> str:
    return _EN_FILLER_ADVERBS_RE.sub(lambda m: m["s"], c)


# A handler returns False when it declines the match (the span is then left to later rules).
_EnHandler = Callable[[re.Match[str], _State], bool | None]


_EN_NOT_A_HOME = frozenset({"together", "alone", "here", "there", "nearby", "abroad", "close by", "on my own",
                            "by myself", "with my parents", "with roommates", "separately"})


def _en(
    predicate: str,
    *,
    tails: str = _EN_TAIL_PLACE,
    coord: bool = False,
    group: str = "o",
    polarity_group: str = "neg",
    check: Callable[[str], bool] | None = None,
    strip: str | None = None,
) -> _EnHandler:
    def handle(m: re.Match[str], st: _State) -> None:
        obj = _en_cut(m[group], tails)
        if strip:
            obj = re.sub(strip, "", obj, flags=re.IGNORECASE).strip()
        if predicate == "lives_in" and _EN_INDEFINITE_RE.match(obj) and (
                place := re.search(r"\bin (?P<p>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})$", obj)):
            obj = place["p"]  # "a studio apartment in Brooklyn": the home is in Brooklyn
        if _EN_INDEFINITE_RE.match(obj) and predicate in {"works_at", "studies_at", "lives_in", "visited", "hometown"}:
            return  # "a small startup": not a named organisation
        if predicate == "lives_in" and obj.lower() in _EN_NOT_A_HOME:
            return  # "Anna and I live together": how, not where
        if re.match(r"(?i)(?:it|this|that|them|you|him|her|when|whenever|if|how|what)\b", obj):
            return  # "I love it here", "I hate when people are late": not a thing
        if predicate in {"lives_in", "hometown", "works_at", "studies_at"} and re.match(r"the [a-z]", obj):
            return  # "I live in the moment", "I'm from the future": not a named place
        if check is not None and not check(obj):
            return
        groups = m.groupdict()
        polarity = -1 if groups.get(polarity_group) else 1
        # "gardening and baking bread": a list of activities, each a gerund, is split even where things are not
        gerunds = predicate == "likes" and re.fullmatch(r"(?i)\w+ing\b[\w -]*(?:(?:,| and| or) \w+ing\b[\w -]*)+", obj)
        for part in _EN_COORD_RE.split(obj) if coord or gerunds else [obj]:
            part = _EN_ARTICLE_RE.sub("", part.strip()) if coord else part
            if part:
                st.add(USER, predicate, part, polarity)

    return handle


_EN_NUMBERS = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
]
_EN_NUMBER_WORDS = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))


def _en_number(word: str) -> str:
    """An age in digits: "seven" -> "7"."""
    return word if word.isdigit() else str(_EN_NUMBERS.index(word.lower()) + 1)


_EN_STUDY_YEAR = r"(?:first|second|third|fourth|final|1st|2nd|3rd|4th|last)[- ]year|freshman|sophomore|junior|senior"


def _en_role_at(m: re.Match[str], st: _State) -> None:
    role = m["role"].strip()
    if re.search(r"(?i)\bfan\b", role):
        return
    year = re.fullmatch(rf"(?i)(?:{_EN_STUDY_YEAR})(?: student)?", role) is not None
    polarity = -1 if _en_past_job(m, st) else 1
    if not year:
        st.add(USER, "is_a", role, polarity)  # "a second year at UT" is a student's year, not a role
    org = _en_cut(m["org"], _EN_TAIL_PLACE)
    if not _EN_INDEFINITE_RE.match(org):
        studies = year or re.search(r"(?i)student|undergrad|postdoc|researcher|phd", role)
        st.add(USER, "studies_at" if studies else "works_at", org, polarity)
        if studies and (major := re.match(r"(?i)\s+(?:studying|majoring in|doing a degree in) (?P<o>[\w -]+)",
                                          m.string[m.end("org") :])):
            st.add(USER, "major", _en_cut(major["o"], _EN_TAIL_PLACE))


def _en_study(m: re.Match[str], st: _State) -> None:
    st.add(USER, "major", _en_cut(m["major"], _EN_TAIL_PLACE))
    st.add(USER, "studies_at", _en_cut(m["org"], _EN_TAIL_PLACE))


# A turn of someone retired: a job it tells in the past tense ("I worked at Boeing for 30 years before I retired",
# "I'm retired now, I was a teacher") is one held no longer, as 退休前是工程师 is.
_EN_RETIRED_RE = re.compile(r"(?i)\b(?:i'm|i am|i've|i have|i|since i|before i|until i|when i)"
                            r" (?:now |just |recently |finally |been )?retired\b|\bmy retirement\b")


def _en_past_job(m: re.Match[str], st: _State) -> bool:
    """Whether the job the match tells ended: said with "used to" or "no longer", or in the past tense by someone
    retired."""
    return bool(m.groupdict().get("neg")) or (re.search(r"(?i)\b(?:worked|was)\b", m[0]) is not None
                                             and _EN_RETIRED_RE.search(st.turn) is not None)


def _en_works_at(m: re.Match[str], st: _State) -> None:
    org = _en_cut(m["o"], _EN_TAIL_PLACE)
    if not (re.match(_EN_NAME, org) or re.match(f"[{HAN}]", org)) or _EN_INDEFINITE_RE.match(org):
        return
    st.add(USER, "works_at", org, -1 if _en_past_job(m, st) else 1)
    if role := re.search(r"(?i)\bas (?:a|an) (?P<r>[\w -]+)$", m["o"]):
        st.add(USER, "is_a", _en_cut(role["r"], _EN_TAIL_PLACE))  # "I work at Google as a data scientist"


# The job said after where it is ("... at Alibaba this week as a senior product designer"), or as its own clause after
# it ("I started a new job at Alibaba this week, as a senior product designer")
_EN_AS_A_ROLE_RE = re.compile(r"(?i)(?:,?\s*(?:this|last|next) (?:week|month)|,?\s*(?:today|recently|now))?,?\s*"
                              r"(?:and |now )?as (?:a|an|the|our|their) (?P<role>[\w -]+)")


def _en_role_said(text: str, st: _State) -> bool:
    """The job a text after an employer names ("as a senior product designer"): the user's is_a, when it is one."""
    if (m := _EN_AS_A_ROLE_RE.fullmatch(text.strip(" .!")) or _EN_AS_A_ROLE_RE.match(text.strip(" .!"))) is None:
        return False
    role = _en_cut(m["role"], _EN_TAIL_PLACE)
    if not is_occupation(role):
        return False
    st.add(USER, "is_a", role)
    return True


def _en_new_job(m: re.Match[str], st: _State) -> None:
    """I got / started a new job at Google (as a data scientist), I joined Meta as a product manager."""
    org = _en_cut(m["o"] or m["o2"], _EN_TAIL_PLACE)
    st.add(USER, "works_at", org)
    _en_role_said(m.string[m.end():], st)


def _en_promoted(m: re.Match[str], st: _State) -> bool:
    """I got promoted to senior engineer / to design lead at Alibaba: the job now, the employer it is at."""
    role = _en_cut(m["o"], _EN_TAIL_PLACE)
    if not is_occupation(role):
        return False
    st.add(USER, "is_a", role)
    if at := re.match(rf"\s+(?i:at|with) (?P<org>{_EN_NAME})", m["o"][len(role):]):
        st.add(USER, "works_at", at["org"])
    return True


def _en_former_job(m: re.Match[str], st: _State) -> bool:
    """I used to be a nurse, (retired) I was an engineer at Boeing: the job and employer held no longer; False
    (the clause read on) for what is no job ("When I was a kid my dad took me to Yellowstone")."""
    role = m["role"].strip()
    if not _en_past_job(m, st) or not is_occupation(role):
        return False
    st.add(USER, "is_a", role, -1)
    if m["org"] and not _EN_INDEFINITE_RE.match(org := _en_cut(m["org"], _EN_TAIL_PLACE)):
        st.add(USER, "works_at", org, -1)
    return True


def _en_switched(m: re.Match[str], st: _State) -> None:
    """I've switched from coffee to tea: coffee no longer, tea now; a drink for a drink of its kind, drunk now too
    (conflict_rules.drink_switch_conflict ends the old one's "I drink coffee")."""
    old, new = _en_cut(m["old"], _EN_TAIL_THING), _en_cut(m["o"], _EN_TAIL_THING)
    st.add(USER, "likes", old, -1)
    st.add(USER, "likes", new, 1)
    if same_drink_kind(normalize_term(new), normalize_term(old)):
        st.add(USER, "drinks", new.lower(), 1)


def _en_switched_sport(m: re.Match[str], st: _State) -> None:
    """I've stopped tennis and switched to swimming: the one no longer, the other now; only between sports (not
    "I stopped working at Google and switched to Meta")."""
    old, new = _en_cut(m["old"], _EN_TAIL_THING), _en_cut(m["o"], _EN_TAIL_THING)
    if is_sport(old) and is_sport(new):
        st.add(USER, "likes", activity_name(old), -1)
        st.add(USER, "likes", activity_name(new), 1)


def _en_moved_from(m: re.Match[str], st: _State) -> None:
    """I moved from Lagos to London: lives in London, no longer in Lagos."""
    if re.match(rf"{_EN_NAME}|[{HAN}]", m["o"]):  # not "moved here from Ohio to be near family"
        st.add(USER, "lives_in", _en_cut(m["o"], _EN_TAIL_PLACE))
    st.add(USER, "lives_in", m["old"], -1)


def _en_each(st: _State, predicate: str, objects: str) -> None:
    for o in _EN_COORD_RE.split(objects):
        if o:
            st.add(USER, predicate, o)


# A birthday is a day: a month, a weekday, a day's number or a day counted from today ("next Tuesday"), not "coming
# up" or "a big deal for my mum".
_EN_DATE_LIKE_RE = re.compile(
    r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|\d|\b(?:today|tomorrow|tonight)\b|\b(?:next|this) (?:week|weekend|month)\b|\b(?:christmas|new year)")


def _en_date_like(obj: str) -> bool:
    return _EN_DATE_LIKE_RE.search(obj) is not None


def _en_name_ok(name: str) -> bool:
    return name.split()[0] not in _EN_NON_NAMES and name.lower() not in NATIONALITIES_EN


def _en_condition(m: re.Match[str], st: _State) -> None:
    cm = CONDITIONS_EN_RE.search(m["o"])
    if cm is not None:
        st.add(USER, "has_condition", cm.group(0), -1 if m.groupdict().get("neg") else 1)


_EN_ROUTINE_RE = re.compile(
    r"(?i)\b(?:usually|always|often|every|each|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b")


@functools.lru_cache(maxsize=64)
def _plan_or_routine(clause: str) -> bool:
    """Whether a clause speaks of a plan or a routine: asked once per clause, not once per match in it (a long
    clause of many visits searched itself again for each: quadratic)."""
    return _EN_FUTURE_RE.search(clause) is not None or _EN_ROUTINE_RE.search(clause) is not None


# When a past event happened ("last night", "in 2019", "two days ago").
_EN_PAST_TIME_RE = re.compile(
    r"(?i)\b(?:yesterday|last (?:night|week|weekend|month|year|summer|winter|spring|fall|autumn|time|january"
    r"|february|march|april|may|june|july|august|september|october|november|december)|ago"
    r"|this (?:morning|afternoon)|in (?:19|20)\d\d|on (?:monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday))\b"
)


# A routine word in a later clause of the same sentence, joined by "and we" / "and I": what they did there every day
# ("Last May I went to Lisbon with my sister and we ate custard tarts every day"), not how often they go.
_EN_ROUTINE_LATER_RE = re.compile(r"(?i)\b(?:and|where) (?:we|i|they|he|she)\b.*\b(?:every|each)\b")


def _en_trip_with_a_routine(m: re.Match[str]) -> bool:
    """A past trip whose routine word belongs to a later clause: the visit said in the past tense before the place,
    no routine word up to the place, no plan anywhere ("I go to the gym every day" stays a routine)."""
    said = m.string[: m.end("o")]
    return (PAST_EN_RE.search(said) is not None and _EN_ROUTINE_RE.search(said) is None
            and _EN_FUTURE_RE.search(m.string) is None
            and _EN_ROUTINE_LATER_RE.search(m.string[m.end("o"):]) is not None)


# A trip said as past with no past verb PAST_EN_RE knows ("my trip to Japan was amazing"): a visit, no plan.
_EN_SAID_AS_PAST_RE = re.compile(r"(?i)\b(?:was|were)\b")


def _en_going(m: re.Match[str], st: _State) -> bool | None:
    """A place the user is headed for, said as a plan ("I'm flying to Lisbon on Friday", "we're moving to Denver in
    March", "my trip to Mexico City in November", "We've decided to spend summers in Flagstaff"): no visit yet, no
    home yet; "I'm not going to Cancun anymore" drops it. Not a person's home ("going to Sarah's"), not a month, not
    a trip said as past ("my trip to Japan last year was amazing": the visited rules read it)."""
    place = _en_cut(m["o"], _EN_TAIL_PLACE)
    if not _en_name_ok(place) or _en_month(place) or place.endswith("'s") \
            or re.match(r"(?i) (?:it|this|that|them|me|you|him|her|us|sure)\b", m.string[m.end("o"):]):
        return False  # "going to Sarah's party"; "I'm going to Make it work" (a verb, capitalized)
    said = m.groupdict()  # "trip" and "neg" only where a rule has them
    if said.get("trip") and (PAST_EN_RE.search(m.string) or _EN_PAST_TIME_RE.search(m.string)
                             or _EN_SAID_AS_PAST_RE.search(m.string)):
        return False
    st.add(USER, "going_to", place, -1 if said.get("neg") else 1)
    return None


def _en_visited(m: re.Match[str], st: _State) -> None:
    if _plan_or_routine(m.string) and not _en_trip_with_a_routine(m):
        return  # a plan is not an experience yet; a routine is not one past event
    if re.match(r"(?i)go\b", m[0]) and not (PAST_EN_RE.search(m.string) or _EN_PAST_TIME_RE.search(m.string)):
        return  # "I go to Starbucks (and I get a latte every day)": a habit in the present, no past visit
    place = _en_cut(m["o"], _EN_TAIL_PLACE)
    if re.fullmatch(
        r"(?i)(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|christmas|easter"
        r"|january|february|march|april|may|june|july|august|september|october|november|december)",
        place,
    ):
        return
    after = m.string[m.end("o") :]
    if re.match(rf"(?i)\s+(?:{_EN_EVENTS})\b", after):
        # "went to the Taylor Swift concert in Toronto": the event is no place; where it was held is
        if at := re.search(rf"(?i:\b(?:in|at)) (?:the )?(?P<o>{_EN_NAME})", after):
            place = at["o"]
            after = after[at.end() :]
        else:
            return
        if _en_month(place):
            return
    st.add(USER, "visited", place)
    # "through Vietnam and Cambodia": every place of the list
    while more := re.match(rf"(?:,| and| &|, and) (?:the )?(?P<o>{_EN_NAME})", after):
        if _en_month(more["o"]) or not _en_name_ok(more["o"]):
            break
        st.add(USER, "visited", _en_cut(more["o"], _EN_TAIL_PLACE))
        after = after[more.end() :]


_EN_EVENTS = (
    r"concert|show|gig|game|match|festival|wedding|party|conference|exhibition|expo|tour|premiere|musical"
    r"|play|opera|ballet|marathon|race|meetup|convention|fair|reunion"
)


def _en_month(word: str) -> bool:
    return re.fullmatch(
        r"(?i)(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|christmas|easter"
        r"|january|february|march|april|may|june|july|august|september|october|november|december)",
        word,
    ) is not None


_EN_DRINKS = r"alcohol|booze|coffee|caffeine|beer|wine|soda|energy drinks|spirits"
# How much of what is eaten or drunk, and how often: not the thing ("i drink like 4 coffees a day" drinks coffee,
# "I drink about three cups of coffee a day" too: the same fact as "I drink coffee", which a change of mind must find)
_EN_AMOUNT = (r"^(?:(?:like|about|around|maybe|probably|at least|roughly|easily)\s+)?"
              r"(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple(?: of)?|several|lots of"
              r"|loads of|tons of|a lot of|plenty of)\s+(?:(?:cups?|glasses?|mugs?|cans?|bottles?|pints?|shots?"
              r"|litres?|liters?|servings?|bowls?|slices?)\s+of\s+)?)?(?=\S)")
_EN_TAIL_HOW_OFTEN = r"|a day|per day|a week|per week|daily|every day|each day|a night"
_EN_DRINK_PLURAL = r"(?<=coffee)s$|(?<=beer)s$|(?<=wine)s$|(?<=soda)s$"  # "4 coffees": coffee
_EN_GIVE_UP = _EN_DRINKS + r"|sugar|meat|red meat|dairy|gluten|carbs|junk food|fast food|pork|beef|chocolate|sweets"
_EN_CONDITION_ADJ = {
    "diabetic": "diabetes",
    "asthmatic": "asthma",
    "epileptic": "epilepsy",
    "anemic": "anemia",
    "anaemic": "anaemia",
    "celiac": "celiac",
    "coeliac": "coeliac",
    "lactose intolerant": "lactose intolerance",
    "gluten intolerant": "gluten intolerance",
}


_EN_NOW_RE = re.compile(r"(?i)\b(?:today|tonight|right now|this (?:morning|afternoon|evening|week)|lately)\b")


def _en_gave_up(m: re.Match[str], st: _State) -> None:
    """I gave up coffee / quit drinking alcohol / cut out sugar: the drink or food, negated."""
    obj = m["o"]
    st.add(USER, "drinks" if re.fullmatch(_EN_DRINKS, obj, re.IGNORECASE) else "eats", obj, -1)


def _en_marker(m: re.Match[str], st: _State) -> None:
    """my cholesterol is high -> has_condition "high cholesterol"; my iron is low -> "low iron" (a reading out of
    range is what a meal or a plan must respect, as a named condition is)."""
    level = "low" if m["lvl"].lower() == "low" else "high"
    marker = m["o"].lower()
    st.add(USER, "has_condition", f"{level} {'blood sugar' if marker == 'sugar' else marker}")


def _en_condition_adj(m: re.Match[str], st: _State) -> None:
    """I'm diabetic -> has_condition diabetes."""
    st.add(USER, "has_condition", _EN_CONDITION_ADJ[m["o"].lower()], -1 if m["neg"] else 1)


def _en_past_event(clause: str) -> bool:
    """A past event with its time ("... last night", "... in 2019"), not where one works, lives or studies."""
    return (
        PAST_EN_RE.search(clause) is not None
        and _EN_PAST_TIME_RE.search(clause) is not None
        and re.search(
            r"(?i)\b(?:work|works|worked|working|live|lives|lived|living|study|studied|born|grew up|job)\b", clause
        )
        is None
    )


# An unnamed relative the speaker refers to ("my sister", "my older brother"): singular kin only.
_EN_KIN_ALT = "|".join(
    sorted(
        (re.escape(k) for k, v in RELATIONS_EN.items()
         if v in KIN_RELATIONS and k not in {"kids", "children", "sons", "daughters"}),
        key=len,
        reverse=True,
    )
)
_EN_KIN_MOD = r"younger|older|little|big|elder|baby|twin|oldest|youngest|eldest"
_EN_KIN = rf"(?i:\bmy (?:(?P<mod>{_EN_KIN_MOD}) )?(?P<r>{_EN_KIN_ALT}))"


def _en_kin_subject(m: re.Match[str]) -> str:
    return " ".join(["my", *([m["mod"].lower()] if m["mod"] else []), m["r"].lower()])


def _en_kin_lives_works(m: re.Match[str], st: _State) -> bool | None:
    """My sister lives in Hangzhou / my dad works at Boeing: the unnamed relative's home or employer."""
    obj = _en_cut(m["o"], _EN_TAIL_PLACE)
    if not (re.match(_EN_NAME, obj) or re.match(f"[{HAN}]", obj)) or obj.split()[0] in _EN_NON_NAMES:
        return False  # "lives in a small town", "works at the hospital": not a named place or employer
    predicate = "lives_in" if m["v"].lower().startswith("live") else "works_at"
    st.add(_en_kin_subject(m), predicate, obj, -1 if m["neg"] else 1, subject_kind="person")
    return None


def _en_contact(m: re.Match[str], st: _State) -> bool | None:
    """My phone number is 555-1234 / my sister's email is ...: the speaker's (or the relative's) contact detail."""
    subject = _en_kin_subject(m) if m["r"] else USER
    if m["phone"] is not None and re.fullmatch(r"(?i)phone|phone number|cell|cell number|cell phone|cell phone number"
                                               r"|mobile|mobile number|number|telephone|telephone number", m["what"]):
        if not phone_ok(m["phone"]):
            return False
        st.add(subject, "phone", m["phone"].strip(), subject_kind=None if subject == USER else "person")
        return None
    if m["email"] is not None and re.fullmatch(r"(?i)e-?mail(?: address)?", m["what"]):
        st.add(subject, "email", m["email"], subject_kind=None if subject == USER else "person")
        return None
    return False


_EN_FUTURE_RE = re.compile(
    r"(?i)\b(?:tomorrow|next (?:week|month|year|summer)|going to|will|'ll|(?:'m|am|'re|are) (?:flying|going"
    r"|driving|heading|leaving)|plan(?:ning|s)? (?:to|a|an|our|my)|(?:'re|are|'m|am) planning)\b"
)
_I = r"(?i:\bi)"
# What an allergy named as a thing is to: the common allergens, so "my social media allergy" is none.
_EN_ALLERGENS = (r"peanut|tree nut|nut|shellfish|fish|dairy|milk|gluten|wheat|egg|soy|sesame|penicillin|latex|pollen"
                 r"|cat|dog|dust mite|dust|bee|wasp|sulfa|mango|strawberry|kiwi|coconut|seafood")
_EN_ALLERGY_DEGREE = r"(?:severe|bad|mild|serious|life-threatening|deadly)"
_EN_HE_SHE_RE = re.compile(r"(?i)\b(?:he|she|his|her|he's|she's)\b")
_IM = r"(?i:\b(?:i'm|i am|im))"
_IWE = r"(?i:\b(?:i|we))"
_EN_PLACE = rf"(?:the )?(?P<o>{_EN_NAME}|[{HAN}]{{2,8}})"
# A day or a month after "call me" is when to call, not a name ("Call me Monday morning", "call me in May").
_EN_WHEN_NOT_A_NAME = (r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May"
                       r"|June|July|August|September|October|November|December|Tonight|Tomorrow|Today|ASAP)\b")

# What the rest of a clause says of a home that is not lived in: rented out, a holiday home ("our house in Spain is
# rented out to tourists", "a flat in Lisbon we use for holidays")
_NOT_LIVED_IN = (r"(?![^.;!?]*\b(?i:rent(?:ed|ing|s)? (?:it |them )?out|rental|investment|holidays?|vacations?"
                 r"|summers?)\b)")
# What says a place one is in is not home: a stay ("for the weekend", "this week", "right now", "visiting", a trip), or
# no place at all (a team, a school year, an app: "I'm in Sales", "in Year 10", "in Slack all day")
_EN_A_STAY = (r"\b(?i:for (?:the|a|an|two|three|four|five|\d+|work|business|a few|my|our)\b|this (?:week|weekend|month)"
              r"|until|till|right now|at the moment|for now|visiting|on (?:holiday|vacation|business|a trip|tour)"
              r"|trip|holiday|vacation|conference|layover|airport|hotel|hostel|airbnb)")
_EN_NOT_A_PLACE_AFTER_IN = (r"(?:Sales|Marketing|Finance|HR|IT|Engineering|Product|Design|Operations|Ops|Legal|Support"
                            r"|Accounting|Admin|Grade|Year|Form|Class|Level|Stage|Phase|Beta|Love|Charge|Trouble|Slack"
                            r"|Teams|Zoom|Discord|Excel|Chrome|Bed|Hospital|School|College|Uni|University|Lockdown"
                            r"|Quarantine|Recovery|Remission|Tech|Chapter|Week|Room|Group|Team|Club|Band|Choir"
                            r"|Toastmasters)\b")
# A diet taken up that the same turn ends ("... but stopped", "went back to meat", "for a month", "used to")
_DIET_ENDED_RE = re.compile(r"(?i)\b(?:but|until|then|and)\b[^.!?]{0,40}\b(?:stopped|quit|gave (?:it )?up|went back"
                            r"|back to|caved)\b|\b(?:i|we) used to\b"
                            r"|\bfor (?:a|one|two|three|\d+) (?:weeks?|months?|years?)\b")
# The user with someone, as the subject of a move ("me and Owen", "me and the kids", "Brad and I")
_ME_AND = r"(?i:\bme and (?:the |my )?\w+|\b\w+ and i\b)"
_EN_LIVES_IN = _en("lives_in")
_MOVED_IN_WITH_RE = re.compile(rf"(?:{_IWE}|{_ME_AND})(?i: (?:just |recently |finally )?moved in with) [^,.;!?]+$")

_EN_RULES: list[tuple[re.Pattern[str], _EnHandler]] = [
    # contact details: the speaker's own (not a work or home line, which is another number), or a relative's
    (
        re.compile(
            rf"(?:{_EN_KIN}(?:'s|’s) |(?i:\bmy) )(?i:(?:new |current |personal |cell |mobile )?)"
            r"(?P<what>(?i:cell phone number|cell phone|cell number|mobile number|phone number|telephone number"
            r"|telephone|phone|cell|mobile|number|e-?mail address|e-?mail))(?i: is|'s|’s|=)? "
            rf"(?:(?P<email>{EMAIL_PATTERN})|(?P<phone>{PHONE_PATTERN}))"
        ),
        _en_contact,
    ),
    # an unnamed relative's home or employer (a named one is read with the name: "My sister Anna lives in ...")
    (
        re.compile(
            rf"{_EN_KIN}(?i: (?:(?P<neg>no longer |doesn't |does not |used to )|(?:still |now |currently |also )?)"
            r"(?P<v>lives in|live in|works at|works for|work at|work for)) (?P<o>(?:(?!(?i: and my )).)+)"
        ),
        _en_kin_lives_works,
    ),
    # an unnamed relative's job ("My husband is a firefighter", "my sister works as a nurse in Melbourne"): only a
    # job's name, as a relative "is a" much else ("my dad is a night owl")
    (
        re.compile(rf"{_EN_KIN}(?i:(?: is|'s|’s) (?:(?:now|still|also|actually) )?(?:a|an)|(?: now| still| also)?"
                   r" works as (?:a|an)) (?P<o>[\w -]+)"),
        lambda m, st: st.add(_en_kin_subject(m), "is_a", o, subject_kind="person")
        if is_occupation(o := _en_cut(m["o"], _EN_TAIL_PLACE + r"|in")) else False,
    ),
    (re.compile(rf"(?i:\bmy name(?:'s| is))\s+(?P<o>{_EN_NAME}|[{HAN}]{{2,4}})"), _en("name", tails=_EN_TAIL_PLACE)),
    (
        # "Don't call me Kate", "nobody calls me Kate anymore": said no to; not a time ("Call me Monday morning")
        # (not a quotation: '"Call me Ishmael" is the first line of Moby-Dick')
        re.compile(rf"(?<![\"“‘'])(?i:\b(?:(?P<neg>(?:don't|do not) call me|(?:nobody|no one|no-one) calls me)"
                   rf"|call me|people call me|everyone calls me|friends call me))"
                   rf"\s+(?!{_EN_WHEN_NOT_A_NAME})(?P<o>{_EN_NAME})"),
        _en("nickname"),
    ),
    (
        # "I go by Kat these days": the name the user goes by; only where the clause ends or says since when, not
        # "I go by Starbucks every morning" (passing it)
        re.compile(rf"{_I}(?i: (?:now |usually |just |only |mostly |prefer to |'d rather |would rather )?"
                   rf"(?:go|am going|'m going|have been going|'ve been going) by) (?!{_EN_WHEN_NOT_A_NAME})"
                   rf"(?P<o>{_EN_NAME})(?=\s*(?:$|[,.;!]|(?i:these days|now|nowadays|instead|at work|anymore)\b))"),
        _en("nickname"),
    ),
    (
        re.compile(
            rf"{_IM}\s+(?P<o>\d{{1,3}})(?:\s*(?i:years old|yrs old|y/o|yo))?(?![\d%])(?!\s*(?i:minutes|kg|lbs|cm"
            r"|km|miles|hours|days|weeks|months|percent|years? ago))"
        ),
        _en("age"),
    ),
    (re.compile(rf"{_I}(?i: (?:just )?turned) (?P<o>\d{{1,3}})\b"), _en("age")),
    (re.compile(r"(?i)\bmy birthday(?: is|'s)(?: on)?\s+(?P<o>[^,.!?]+)"),
     _en("birthday", tails=_EN_TAIL_COMMON, check=_en_date_like)),
    (
        re.compile(
            # "we live in Leeds": the user's household
            rf"{_IWE}(?i: (?P<neg>no longer |don't |do not |used to |don't )?(?:currently |now |still )?"
            r"(?:live|lived)(?: in)?) (?P<o>.+)"
        ),
        _en("lives_in"),
    ),
    (re.compile(rf"{_IM}(?i: (?:currently |now )?based in) (?P<o>.+)"), _en("lives_in")),
    # "we're in Brunswick, Melbourne", "I'm in Flagstaff now": where the household is. Not a stay ("I'm in Paris for
    # the weekend", "this week", "right now", on a trip), a team or a school year ("I'm in Sales", "in Year 10").
    (re.compile(rf"(?:{_IM}|(?i:\bwe(?:'re| are)))(?i: (?:now |currently |still )?)in "
                rf"(?!{_EN_WHEN_NOT_A_NAME}|{_EN_NOT_A_PLACE_AFTER_IN})(?P<o>{_EN_NAME})\b(?! \d)"
                rf"(?![^.;!?]*{_EN_A_STAY})"),
     _en("lives_in", check=_en_name_ok)),
    (
        re.compile(rf"{_I}(?i:'m| am|'ve been| have been) (?i:currently |now |still )?(?i:living) (?i:in) (?P<o>.+)"),
        _en("lives_in"),
    ),
    (
        re.compile(rf"{_I}(?i:'ve| have) (?i:now |always )?(?i:lived) (?i:in) (?P<o>(?=[A-Z{HAN}]).+)"),
        _en("lives_in"),
    ),
    # "I've been in Houston for ten years": a stay counted in years or months is where one lives
    (
        re.compile(
            rf"{_I}(?i:'ve| have) (?i:now )?(?i:been) (?i:in) (?P<o>{_EN_NAME}) (?i:for|since) (?i:(?:over |almost "
            r"|nearly |about )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|\w+teen|twenty|a few"
            r"|several|many) (?:years?|months?)|\d{4})\b"
        ),
        _en("lives_in"),
    ),
    (
        re.compile(
            rf"{_IWE}?(?i:(?:^| )(?:just |recently )?moved (?:here |over )?from) (?P<o>{_EN_NAME})\b"
            r"(?!(?i:.*\bto\b))"
        ),
        lambda m, st: st.add(USER, "lives_in", m["o"], -1) if _en_name_ok(m["o"]) else False,
    ),
    (
        re.compile(
            rf"{_IWE}(?i: (?:just |recently |finally )?moved (?:here |over )?from) (?P<old>{_EN_NAME}) (?i:to)"
            r" (?P<o>.+)"
        ),
        _en_moved_from,
    ),
    (re.compile(rf"(?:{_IWE}|{_ME_AND})(?i: (?:just |recently |finally )?(?:moved|relocated) (?:to|back to))"
                r" (?P<o>.+)"),
     _en("lives_in")),
    # "we have a house in East Nashville", "I own a condo in Plano": a home owned is where one lives (not a holiday
    # home, a beach house, nor one rented out; one just bought is not moved into yet)
    (re.compile(rf"{_IWE}(?i: (?:have|own) (?:a|an|our|my) (?:new |little |small"
                rf" |big )?(?:house|flat|apartment|condo|home|townhouse|townhome) in) (?P<o>{_EN_NAME})"
                + _NOT_LIVED_IN),
     _en("lives_in")),
    # "my flat in Kreuzberg is tiny", "just got the keys to our new place in Oakland", "we settled in Lisbon", "I'm
    # renting a room in Camden": where the user's home is
    (re.compile(rf"(?i:\b(?:my|our) (?:new |little |tiny |first )?(?:flat|apartment|place|house|home|condo|studio"
                rf"|room|rental) in) (?P<o>{_EN_NAME}){_NOT_LIVED_IN}"),
     _en("lives_in")),
    (re.compile(rf"{_IWE}(?i:(?:'ve| have)? (?:finally |eventually |now )?settled (?:down )?in) (?P<o>{_EN_NAME})"),
     _en("lives_in")),
    (re.compile(rf"{_IM}(?i: (?:now |currently )?renting (?:a |an |the )?(?:\w+ )?(?:room|flat|apartment|place|house"
                rf"|studio) in) (?P<o>{_EN_NAME})"),
     _en("lives_in")),
    # the rent paid where one lives: "rent is $1,650 in Phoenix which is killing me", "my rent in Austin went up",
    # "I rent a flat in Leeds" (not a car, nor a cabin rented for the weekend)
    (re.compile(rf"(?i:(?:^|\b(?:my|our) )rent (?:is|'s|went up to|is now|just went up to) (?:about |like |around )?"
                rf"[$£€¥]?[\d,.]+k?(?: (?:a|per) month)?) (?i:in) (?P<o>{_EN_NAME})"
                rf"|(?i:\b(?:my|our) rent in) (?P<o2>{_EN_NAME})"
                rf"|{_IWE}(?i: (?:currently |now )?rent (?:a |an |the )?(?:\w+ )?(?:room|flat|apartment|place|house"
                rf"|studio|condo) in) (?P<o3>{_EN_NAME})"),
     lambda m, st: st.add(USER, "lives_in", _en_cut(m["o"] or m["o2"] or m["o3"], _EN_TAIL_PLACE))),
    # "me and Owen moved in with my sister Claire in Franklin": the home moved into is in that town (the match is the
    # town alone, as the person moved in with may be read already: "my sister Claire")
    (re.compile(rf"(?i:\bin) (?P<o>{_EN_NAME})"),
     lambda m, st: _EN_LIVES_IN(m, st) if _MOVED_IN_WITH_RE.search(m.string, 0, m.start()) else False),
    (
        re.compile(
            rf"(?:{_IM}(?i: (?:originally )?from)|{_I}(?i: (?:grew up|was born|was raised) in| come from))"
            r" (?P<o>.+)"
        ),
        _en("hometown"),
    ),
    (
        re.compile(
            rf"{_IM} (?i:(?:now|currently|still) )?(?:a|an) (?P<role>(?!(?i:huge|big|massive|great|fan)\b)[\w -]+?)"
            rf" (?i:at|with) (?P<org>{_EN_NAME})"
        ),
        _en_role_at,
    ),
    # "First day at my new job at Northwind!", "first week of work at Stripe": the new employer, when the clause
    # speaks of work ("first day at Disneyland", "... at Mayo Clinic for my chemo" are no job; "First day at
    # Northwind today!" says nothing of work either, and gives none)
    (
        re.compile(rf"(?i:^(?:(?:it's|it is|today is|today's) )?(?:my |our )?first (?:day|week)"
                   rf"(?: of work| at work| at (?:my|the) new job)? (?:at|with)) (?P<o>{_EN_NAME})"),
        lambda m, st: st.add(USER, "works_at", _en_cut(m["o"], _EN_TAIL_PLACE))
        if re.search(r"(?i)\b(?:work|job|office|team|onboarding|boss|manager|colleagues?|coworkers?|orientation)\b",
                     m.string) else False,
    ),
    # "I accepted an offer from Stripe": the employer to be
    (
        re.compile(rf"{_I}(?i: (?:just |finally )?accepted (?:an|the|their|a job) (?:job )?offer (?:from|at|with))"
                   rf" (?P<o>{_EN_NAME})"),
        lambda m, st: st.add(USER, "works_at", _en_cut(m["o"], _EN_TAIL_PLACE))  # not one for the old car
        # (or said with the job left: "I'm leaving Acme at the end of the month, I accepted an offer from Brightline")
        if re.search(r"(?i)\bjob offer|\b(?:job|role|position|team|salary|start(?:ing)? (?:on|in|next))\b"
                     r"|\b(?:i'm|i am) (?:leaving|quitting)\b|\b(?:resign(?:ed|ing)?|two weeks' notice|last day)\b",
                     f"{m.string} {st.turn}") else False,
    ),
    # "I got promoted to senior engineer", "... to design lead at Alibaba": the job now, and where (a role that is no
    # job, "promoted to the fraud team", is none)
    (
        re.compile(rf"{_I}(?i: (?:just |finally |recently )?(?:got |was |have been |'ve been )?promoted to)"
                   r" (?:(?i:a|an|the) )?(?P<o>[\w -]+)"),
        _en_promoted,
    ),
    # "I used to be a nurse", "I was an engineer at Boeing before I retired": a job held no longer (only with
    # "used to", or in a retired person's turn: "I was a nurse" alone may tell a story)
    (
        re.compile(rf"{_I}(?i: (?P<neg>used to be)| was) (?i:a|an) (?P<role>[\w -]+?)"
                   rf"(?: (?i:at|for|with) (?P<org>{_EN_NAME}))?(?=$|[,.;!?]| (?i:for|before|until|when|and|but)\b)"),
        _en_former_job,
    ),
    (
        re.compile(rf"{_I}(?i: (?:just |finally |recently )?retired from) (?P<o>{_EN_NAME})"),
        lambda m, st: st.add(USER, "works_at", _en_cut(m["o"], _EN_TAIL_PLACE), -1),
    ),
    # "I got a new job at Google", "I joined Meta as a product manager": the employer (and the job, said with "as")
    (
        re.compile(rf"{_I}(?i: (?:just |finally )?(?:got|landed|accepted|started|took) (?:a |my )?(?:new )?job"
                   rf" (?:at|with)) (?P<o>{_EN_NAME})"
                   rf"|{_I}(?i: (?:just |finally |recently )?joined) (?P<o2>{_EN_NAME})(?= (?i:as (?:a|an)) )"),
        _en_new_job,
    ),
    (
        re.compile(
            rf"{_I}(?i:(?:'ve| have) been working (?:at|for)| am working (?:at|for)| (?P<neg>no longer |don't "
            rf"|do not |used to )?(?:currently |now |still )?work(?:ed)? (?:(?:{_EN_WORK_WHEN}) )?(?:at|for)) (?P<o>.+)"
        ),
        _en_works_at,
    ),
    (
        re.compile(rf"{_I}(?i: (?:just |recently |finally )?(?:quit|left) my job (?:at|with)"
                   rf"| (?:just |recently |finally )?(?:quit|left)) (?P<o>{_EN_NAME})"),
        lambda m, st: st.add(USER, "works_at", _en_cut(m["o"], _EN_TAIL_PLACE), -1),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?:work|am working|'m working|worked)(?: (?:{_EN_WORK_WHEN}))? as (?:a|an)) (?P<role>[\w -]+?)"
            rf" (?i:at|for|with)"
            rf" (?P<org>{_EN_NAME})"
        ),
        _en_role_at,
    ),
    (
        re.compile(rf"{_I}(?i: (?:work|am working|'m working)(?: (?:{_EN_WORK_WHEN}))? as (?:a|an)) (?P<o>.+)"),
        lambda m, st: st.add(USER, "is_a", _en_cut(m["o"], _EN_TAIL_PLACE)),
    ),
    # "I'm going out on my own as an HR consultant from July", "going freelance as a designer": the job from now on
    (
        re.compile(rf"{_IM}(?i: (?:going|gone) (?:out on my own|freelance|independent|solo|self-employed)"
                   rf"| (?:setting up|starting out) on my own) (?i:as (?:a|an)) (?P<o>[\w -]+)"),
        lambda m, st: st.add(USER, "is_a", o) if is_occupation(o := _en_cut(m["o"], _EN_TAIL_PLACE)) else False,
    ),
    # "I work in product", "I'm in sales": a line of work (WORK_FIELDS_EN; "I'm in Denver" is none)
    (
        re.compile(rf"(?:{_I}(?i: (?:now |currently |still )?(?:work|am working|'m working|worked) in)"
                   rf"|{_IM}(?i: (?:now |currently |still )?in))"
                   rf" (?P<o>(?i:{'|'.join(sorted(WORK_FIELDS_EN, key=len, reverse=True))}))(?![\w-])"),
        lambda m, st: st.add(USER, "is_a", m["o"].lower()),
    ),
    # "I teach high school math", "I teach 4th years", "I teach at a primary school": a teacher
    (
        re.compile(rf"{_I}(?i: (?:now |currently |still )?teach (?:at (?:a|an|the) [\w -]*?(?:school|college"
                   r"|university|academy)\b|(?:high|middle|primary|elementary|secondary|grade|nursery) school\b"
                   r"|(?:kindergarten|preschool|college|university)\b|(?:\d+(?:st|nd|rd|th)|first|second|third|fourth"
                   r"|fifth|sixth) (?:grade|graders|years?)\b|year \d+\b))"),
        lambda m, st: st.add(USER, "is_a", "teacher"),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?:just )?(?:got a job|got hired|started working|started a new job|got an offer)"
            r" (?:at|with|by)) (?P<o>.+)"
        ),
        lambda m, st: _en_works_at(m, st) if not _EN_FUTURE_RE.search(m.string) else None,
    ),
    (
        re.compile(
            rf"{_I}(?i:(?: study| studied| am studying|'m studying)) (?P<major>[\w -]+?) (?i:at) (?P<org>{_EN_NAME})"
        ),
        _en_study,
    ),
    (
        # where the user studies now ("I study at MIT", "I go to school at Rutgers"), or has been admitted to go
        # ("I got accepted to Cornell", "I got into Pratt Institute": a bare "got into" + name is as often a hobby
        # or a band, so only a name that says it is a school)
        re.compile(
            rf"{_I}(?i: (?:now |currently |still )?(?:study|am studying|'m studying|go to (?:school|college|uni"
            r"|university)|am in (?:school|college)|'m in (?:school|college)) at"
            r"| (?:just |finally )?(?:got|was|have been|'ve been) (?:accepted|admitted) (?:in)?to) "
            rf"(?P<o>{_EN_NAME})"
            rf"|{_I}(?i: (?:just |finally )?got into) (?P<school>(?:[A-Z][a-zA-Z'\-]+ ){{0,3}}"
            r"(?:University|College|School|Institute|Academy|Conservatory|Polytechnic)(?: of [A-Z][a-zA-Z'\-]+){0,2})"
        ),
        lambda m, st: st.add(USER, "studies_at", _en_cut(m["o"] or m["school"], _EN_TAIL_PLACE)),
    ),
    (
        re.compile(rf"{_I}(?i: major(?:ed)? in|'m majoring in) (?P<o>.+)|(?i:\bmy major is) (?P<o2>.+)"),
        lambda m, st: st.add(USER, "major", _en_cut(m["o"] or m["o2"], _EN_TAIL_PLACE)),
    ),
    (
        re.compile(rf"{_IM}(?i: (?P<neg>not )?(?:severely |very |mildly )?allergic to) (?P<o>.+)"),
        _en("allergic_to", coord=True, tails=_EN_TAIL_COMMON),
    ),
    (
        re.compile(
            # "'ve got" follows the I unspaced ("I've got a nut allergy")
            rf"{_I}(?i:(?: have|'ve got|'ve) (?:an? )?(?:severe |mild |bad |serious |life-threatening )?)"
            r"(?P<o>[\w -]+?)(?i: allergy| allergies)"
        ),
        _en("allergic_to", tails=_EN_TAIL_COMMON),
    ),
    (
        # "my peanut allergy is acting up", "i cant eat the garlic knots there, peanut allergy and they fry stuff in
        # peanut oil": an allergy named as a thing, the user's in a turn about no one else
        re.compile(rf"(?i)(?:\bmy (?:{_EN_ALLERGY_DEGREE} )?|^(?:(?:a |an )?{_EN_ALLERGY_DEGREE} )?)"
                   rf"(?P<o>{_EN_ALLERGENS}) allerg(?:y|ies)\b"),
        lambda m, st: False if people(st.turn) or _EN_HE_SHE_RE.search(st.turn)
        else st.add(USER, "allergic_to", m["o"].lower()),
    ),
    (
        re.compile(
            rf"{_I}(?i:(?: (?P<neg>don't |do not )?(?:have got|have|suffer from|was diagnosed with|got diagnosed with"
            r"|live with|am living with)|'ve (?:got|been diagnosed with)|'m living with)) (?P<o>.+)"
        ),
        _en_condition,
    ),
    (
        re.compile(
            rf"{_I}(?i: (?P<neg>don't |do not |never |no longer |can't |cannot |won't |stopped |don't really )?"
            r"(?:really |usually |only |also |mostly )?(?:eat|eating)) (?P<o>.+)"
        ),
        _en("eats", tails=_EN_TAIL_THING + _EN_TAIL_HOW_OFTEN, strip=r"^(?:any|much|meat like)\s+|" + _EN_AMOUNT),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?P<neg>don't |do not |never |no longer |can't |cannot |won't |stopped )?"
            r"(?:really |usually |only |also |mostly )?(?:drink|drinking)) (?P<o>.+)"
        ),
        _en("drinks", tails=_EN_TAIL_THING + _EN_TAIL_HOW_OFTEN,
            strip=r"^(?:any|much)\s+|" + _EN_AMOUNT + "|" + _EN_DRINK_PLURAL),
    ),
    # A drink switched to ("also switched to matcha", "I've switched over to decaf", "I swapped coffee for green
    # tea"): the user drinks it now, and the one of its kind it replaced ends (conflict_rules.drink_switch_conflict)
    (
        re.compile(rf"(?:{_I}(?i:'ve| have)? |^(?i:(?:ok|so|and|but|oh) )?)(?i:(?:also |just |finally |recently "
                   rf"|since )?(?:switched|swapped|changed)(?: over)?(?: (?:{DRINKS_EN_PATTERN})s?)? "
                   rf"(?:to|for) (?P<o>{DRINKS_EN_PATTERN}))(?![\w-])"),
        lambda m, st: st.add(USER, "drinks", m["o"].lower(), 1),
    ),
    # "I'm on sertraline for anxiety": the condition a medication is taken for (a bare name here is the condition)
    (
        re.compile(
            rf"{_IM}(?i: (?:currently |still )?(?:on|taking) [\w-]+ for) (?P<o>(?i:anxiety|depression|insomnia|acne"
            r"|allergies)|.+)"
        ),
        lambda m, st: st.add(USER, "has_condition", m["o"].lower())
        if re.fullmatch(r"(?i)anxiety|depression|insomnia|acne", m["o"])
        else _en_condition(m, st),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?:gave up|quit|cut out|stopped|have given up|'ve given up|gave up on) (?:drinking |eating )?)"
            rf"(?P<o>(?i:{_EN_GIVE_UP}))\b"
        ),
        _en_gave_up,
    ),
    # a health reading out of range, said of the speaker's own ("my cholesterol is high", "doctor say my cholesterol
    # very high leh", "my blood sugar has been a bit elevated"); not "is it high?" (a question is read elsewhere)
    (
        re.compile(
            r"(?i:\bmy (?P<o>cholesterol|ldl|blood pressure|blood sugar|sugar|a1c|hba1c|triglycerides|uric acid|iron"
            r"|ferritin|vitamin d|potassium|thyroid)(?: levels?| numbers?| readings?)?(?: is| are| was| were|'s|’s"
            r"| has been| have been| came back| went| got| still)*(?: (?:really|very|quite|a bit|a little|slightly|way"
            r"|super|too|pretty|kinda|borderline|dangerously|so))* (?P<lvl>high|low|elevated|up)\b)"
        ),
        _en_marker,
    ),
    (
        re.compile(
            rf"{_IM}(?i: (?P<neg>not )?(?:a )?(?P<o>diabetic|asthmatic|epileptic|anemic|anaemic|celiac|coeliac"
            r"|lactose intolerant|gluten intolerant))\b"
        ),
        _en_condition_adj,
    ),
    (
        re.compile(rf"{_I}(?i: (?P<neg>don't |do not |can't |cannot )?(?:can |also |only )?speak) (?P<o>.+)"),
        _en("speaks", coord=True, tails=_EN_TAIL_COMMON),
    ),
    # "English is my second language", "I grew up speaking Tagalog"
    (
        re.compile(
            rf"^(?P<o>{_EN_NAME}) (?i:is my (?:first|second|third|native|mother|home|main) (?:language|tongue))"
            rf"|{_I}(?i: grew up speaking) (?P<o2>{_EN_NAME}(?: and {_EN_NAME})?)"
        ),
        lambda m, st: _en_each(st, "speaks", m["o"] or m["o2"]),
    ),
    # preferences: dislikes are likes with polarity -1
    (
        re.compile(
            rf"{_IM} (?P<neg>(?i:not) )?(?i:(?:a |an )?(?:really )?(?:huge |big |massive |great |the biggest )?"
            r"fan of) (?P<o>.+)"
        ),
        _en("likes", tails=_EN_TAIL_THING),
    ),
    (
        re.compile(
            rf"{_IM}(?i: (?P<neg>not )?(?:really |so |totally |very |kinda |kind of |that |super |lowkey |honestly )*"
            r"(?:into|obsessed with|crazy about|addicted to|hooked on|passionate about|mad about|nuts about))"
            r" (?P<o>.+)"
        ),
        _en("likes", tails=_EN_TAIL_THING),
    ),
    (
        re.compile(rf"{_I}(?i: can't get enough of| could live on| live for) (?P<o>.+)"),
        _en("likes", tails=_EN_TAIL_THING),
    ),
    (
        re.compile(
            rf"{_I}(?i:(?:'ve| have) (?:always )?(?P<flip>hated|disliked|never (?:liked|loved|enjoyed|been a fan of))"
            r"|(?:'ve| have) always (?:loved|liked|enjoyed|been a fan of)) (?P<o>.+)"
        ),
        _en("likes", tails=_EN_TAIL_THING, polarity_group="flip", strip=r"^(?:eating|drinking)\s+"),
    ),
    # a partner or spouse no longer ("Anna and I broke up", "I broke up with Mark", "Tom and I got divorced"),
    # and a spouse said so ("I'm married to Tom")
    (
        re.compile(rf"(?P<o>{_EN_NAME}) (?i:and i) (?:(?i:just|recently|finally) )?(?P<how>(?i:broke up|split up"
                   rf"|separated|got divorced|are divorced|divorced))\b"
                   rf"|{_I}(?i: (?:just |recently |finally )?(?P<how2>broke up|split up|divorced|separated)"
                   rf"(?: with| from)?) (?P<o2>{_EN_NAME})\b"),
        lambda m, st: st.add(USER, "spouse" if "divorc" in (m["how"] or m["how2"] or "").lower() else "partner",
                             m["o"] or m["o2"], -1),
    ),
    (re.compile(rf"{_IM}(?i: (?:now |happily )?married to) (?P<o>{_EN_NAME})\b"),
     lambda m, st: st.add(USER, "spouse", m["o"], 1)),
    # a wedding said as done ("Anna and I got married in May", "I married Tom last year"): the spouse now
    (re.compile(rf"(?P<o>{_EN_NAME}) (?i:and i) (?:(?i:just|finally|recently) )?(?i:got married|were married"
                rf"|tied the knot)\b|{_I}(?i: (?:just |finally |recently )?(?:got married to|married))"
                rf" (?P<o2>{_EN_NAME})\b"),
     lambda m, st: st.add(USER, "spouse", m["o"] or m["o2"], 1) if _en_name_ok(m["o"] or m["o2"]) else False),
    # a couple said as one ("Linda and I are officially together", "Sam and I are dating now"; not "... are going
    # together", nor a plan: "might be", "if")
    (re.compile(rf"(?P<o>{_EN_NAME}) (?i:and i) (?i:are|'re) (?:(?i:officially|now|finally|basically) )?"
                rf"(?i:together|a couple|an item|dating|seeing each other|going out)\b"
                rf"(?! (?i:to|for|on|in|at|with)\b)"),
     lambda m, st: st.add(USER, "partner", m["o"], 1)
     if _en_name_ok(m["o"]) and not re.search(r"(?i)\b(?:might|maybe|if|wish|hope)\b", m.string) else False),
    # a partner by the dating ("I've been seeing someone named Priya since October", "I'm dating Sam"): "seeing"
    # only with "someone named" ("I'm seeing Dr. Nguyen", "seeing Tom tomorrow" are no partner)
    (re.compile(rf"{_I}(?i:'ve been|'m| am| have been| started| just started)(?i: (?:now |currently |also )?)"
                rf"(?:(?i:seeing|dating) (?i:someone|somebody|a (?:guy|girl|man|woman))(?i: new)? (?i:named|called)"
                rf"|(?i:dating)) (?P<o>{_EN_NAME})\b"),
     lambda m, st: st.add(USER, "partner", m["o"], 1)  # (not "dating Priya's brother")
     if _en_name_ok(m["o"]) and not re.search(r"['’]", m["o"])
     and not re.search(r"(?i)\b(?:might|maybe|thinking|want|hope|if)\b", m.string) else False),
    # "I'm single": no partner now (not "a single mom", "single-handedly")
    (re.compile(rf"{_IM}(?i: (?:still |currently |happily |now |totally )?single)\b(?![ -](?i:mom|mother|dad|father"
                r"|parent|handed|income|person|player|malt|room|bed|use|digit|file|day|time|event))"),
     lambda m, st: st.add(USER, "is_a", "single", 1)),
    # a liking that was ("I used to love coffee, but now I prefer tea"): no longer, as 我以前喜欢 reads
    (
        re.compile(rf"{_I}(?i: used to (?:really )?(?:love|like|enjoy|adore)) (?P<o>.+)"),
        lambda m, st: st.add(USER, "likes", _en_cut(m["o"], _EN_TAIL_THING), -1),
    ),
    # "I mostly listen to jazz": a kind of music the user likes (not "I listen to podcasts on my commute")
    (
        re.compile(rf"{_I}(?i: (?:mostly |usually |mainly |often |always |really |just |love to |like to )?listen to)"
                   r" (?P<o>[\w&' -]+)"),
        _en("likes", tails=_EN_TAIL_THING, check=is_music),
    ),
    # "I've stopped tennis and switched to swimming": a sport no longer, another now
    (
        re.compile(rf"{_I}(?i:(?:'ve| have)? (?:just |recently |finally )?(?:stopped|quit|given up|gave up|dropped)"
                   r" (?:playing |doing |going )?)(?P<old>[\w -]+?) (?i:and (?:have |'ve )?(?:switched|moved|changed"
                   r"|gone over) to) (?P<o>[\w -]+)"),
        _en_switched_sport,
    ),
    # "I play tennis every Sunday", "I took up pickleball", "I do yoga twice a week": a sport the user plays now;
    # "I quit tennis", "I stopped playing badminton": one no longer (is_sport decides: not the piano, not video games)
    (
        re.compile(rf"{_I}(?i: (?:now |still |also |usually |regularly |mostly |just |recently |mainly )?"
                   r"(?:play|practi[cs]e|do|started playing|started doing|started|took up|have taken up"
                   r"|'ve taken up|switched to|got into|am into|'m into)) (?P<o>[A-Za-z][\w -]{1,30})"),
        _en("likes", tails=_EN_TAIL_SPORT, check=is_sport),
    ),
    (
        re.compile(rf"{_I}(?i:(?:'ve| have)? (?:just |recently |finally )?(?:quit|stopped|given up|gave up|dropped)"
                   r" (?:playing |doing |going )?)(?P<o>[A-Za-z][\w -]{1,30})(?! (?i:and (?:have |'ve )?(?:switched"
                   r"|moved|changed|gone over) to))"),
        lambda m, st: st.add(USER, "likes", activity_name(o), -1)
        if is_sport(o := _en_cut(m["o"], _EN_TAIL_SPORT)) else False,
    ),
    # "I've switched from coffee to tea": the one no longer, the other now
    (
        re.compile(rf"{_I}(?i:(?:'ve| have)? (?:just |recently |finally )?switched from) (?P<old>[\w -]+?) (?i:to)"
                   r" (?P<o>.+)"),
        _en_switched,
    ),
    # "X is disgusting" / "X isn't my thing": a taste stated about the thing
    (
        re.compile(
            r"^(?P<o>(?!(?i:it|this|that|these|those|he|she|they|you|i|we|the weather|weather|traffic|today|tonight"
            r"|life|work|everything|everyone)\b)"
            r"[^,]{2,40}?) (?i:is|are) (?:(?i:so|really|just|absolutely|honestly|kinda|pretty|totally|super) )*"
            r"(?P<flip>(?i:disgusting|gross|nasty|revolting|overrated|vile|not my thing|not for me))\b"
            r"|^(?P<o2>(?!(?i:it|this|that|he|she|they|you|i|we)\b)[^,]{2,40}?)(?i: isn't| aren't) (?i:really )?"
            r"(?i:my thing|for me|my cup of tea)\b"
        ),
        lambda m, st: None
        if _EN_NOW_RE.search(m.string)
        else st.add(USER, "likes", _en_cut(m["o"] or m["o2"], _EN_TAIL_THING), -1),
    ),
    (
        re.compile(
            r"^(?P<o>(?!(?i:it|this|that|these|those|he|she|they|you|i|we|work|life|today|everything|my|our|your|his"
            r"|her|their|the|weather|traffic|tonight|someone|everyone|nobody)\b)[^,]{2,40}?)"
            r" (?i:is|are) (?:(?i:so|really|just|absolutely|honestly|totally|literally|kinda|basically) )*"
            r"(?:(?P<flip>(?i:a crime|a sin|the worst|criminal|an abomination|cursed))"
            r"|(?i:my thing|my jam|life|my weakness|my guilty pleasure|my comfort food|the best))\b"
        ),
        lambda m, st: None
        if _EN_NOW_RE.search(m.string)
        else st.add(USER, "likes", _en_cut(m["o"], _EN_TAIL_THING), -1 if m["flip"] else 1),
    ),
    (
        re.compile(
            r"(?i:(?:^|\bso |\bthat means |\bwhich means )no) (?!(?i:worries|problem|pressure|rush|way|idea|thanks"
            r"|luck|time|choice|offense|offence|one|more)\b)(?P<o>[\w -]{2,30}?) (?i:for me)\b"
        ),
        lambda m, st: st.add(
            USER, "drinks" if re.fullmatch(_EN_DRINKS, m["o"], re.IGNORECASE) else "eats", m["o"], -1
        ),
    ),
    (
        re.compile(rf"{_I}(?i:'d| would) (?i:pick|choose|take|go for|prefer) (?P<o>[\w -]{{2,30}}?) (?i:over|to) "),
        _en("likes", tails=_EN_TAIL_THING),
    ),
    (
        re.compile(
            rf"{_IM}(?i: (?P<neg>not )?(?:a )?(?:strict |full |fully |mostly |totally )?"
            r"(?P<o>vegan|vegetarian|pescatarian|pescetarian|flexitarian|teetotal))\b"
        ),
        lambda m, st: st.add(USER, "is_a", m["o"].lower(), -1 if m["neg"] else 1),
    ),
    # "I've decided to go vegetarian", "I've gone vegan": a diet taken up is one held ("I went vegan last year" may
    # have ended: "... but stopped" is a clause of its own)
    (
        re.compile(rf"{_I}(?i:(?:'ve| have)? (?:decided to go|gone|(?:'m|am) going)) "
                   r"(?P<o>(?i:vegan|vegetarian|pescatarian|pescetarian|flexitarian))\b"
                   r"(?!(?i: for| this| next| before| once| a few times))"),
        lambda m, st: st.add(USER, "is_a", m["o"].lower()),
    ),
    # "I went vegan in January, still getting used to it": taken up, unless the turn says it ended or lasted a while
    # ("I went vegan last year but stopped", "went vegetarian for a month", "I used to be ...")
    (
        re.compile(rf"{_I}(?i: (?:just |finally |recently )?(?:went|turned|became)) "
                   r"(?P<o>(?i:vegan|vegetarian|pescatarian|pescetarian|flexitarian))\b"
                   r"(?!(?i: for| this| before| once| a few times))"),
        lambda m, st: st.add(USER, "is_a", m["o"].lower())
        if not _DIET_ENDED_RE.search(st.turn) else False,
    ),
    (
        re.compile(
            rf"{_IM} (?i:\w+ ){{0,2}}?(?i:too old|too young|old enough|young enough)\b[^,.;]{{0,40}}? (?i:at)"
            r" (?P<o>\d{1,3})\b(?! ?%)"
        ),
        _en("age"),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?:really |just |honestly |actually )?(?P<neg>don't|do not|never|didn't) (?:really |much "
            r"|particularly |even )?(?:like|love|enjoy|care for)(?: to)?) (?P<o>.+)"
        ),
        _en("likes", tails=_EN_TAIL_THING, strip=r"^(?:eating|drinking|to eat|to drink)\s+"),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?:really |absolutely |just |also |totally |kinda |kind of |truly |so |do |still )*"
            r"(?:love|like|adore|enjoy|prefer)(?: to)?) (?P<o>.+)"
        ),
        _en("likes", tails=_EN_TAIL_THING, strip=r"^(?:eating|drinking|to eat|to drink)\s+"),
    ),
    (
        re.compile(
            rf"{_I}(?i: (?:really |absolutely |just |totally |kinda |truly )*(?P<flip>hate|dislike|detest"
            r"|can't stand|cannot stand|loathe|can't bear)) (?P<o>.+)"
        ),
        _en("likes", tails=_EN_TAIL_THING, polarity_group="flip", strip=r"^(?:eating|drinking)\s+"),
    ),
    (
        re.compile(rf"{_IM} (?:a|an) (?P<o>(?!(?i:huge|big|massive|great|fan|bit|little|lot|tad|kind|sort)\b)[\w -]+)"),
        _en("is_a", tails=_EN_TAIL_PLACE + r"|in"),
    ),
    (
        re.compile(r"(?i:\bmy (?:absolute |all-time )?(?:favou?rite|fave|fav) (?:[\w-]+ ){0,2}?(?:is|are)) (?P<o>.+)"),
        _en("likes", tails=_EN_TAIL_THING),
    ),
    (
        re.compile(r"^(?P<o>[^,]+?)(?i: (?:is|are) my (?:absolute |all-time )?(?:favou?rite|fave)\b.*)"),
        _en("likes", tails=_EN_TAIL_THING),
    ),
    # name last: "I'm Tom" only when nothing above explained the clause
    (
        re.compile(
            rf"{_IM} (?P<o>{_EN_NAME})(?=$|[,!.]| (?i:by the way|btw|here|from|and|lol|haha|nice to meet you)\b)"
        ),
        _en("name", check=_en_name_ok, tails=_EN_TAIL_PLACE),
    ),
    # plans: a place the user is headed for (_en_going)
    (
        re.compile(
            rf"(?:{_IM}|(?i:\bwe(?:'re| are)))(?P<neg>(?i: not))?(?i: (?:also |finally |actually |still |now |soon "
            r"|just |all )?(?:(?:going|flying|driving|heading|headed|moving|relocating|off|travell?ing)(?: back| over"
            rf"| out| down| up)? to|leaving for)) {_EN_PLACE}"
        ),
        _en_going,
    ),
    (
        re.compile(
            rf"{_IWE}(?i:(?:'ll| will|'re gonna| are gonna|'m gonna| am gonna)(?P<neg> not)? (?:go|fly|drive|head|move"
            rf"|relocate|travel|be)(?: back| over| out)? (?:to|in)) {_EN_PLACE}"
        ),
        _en_going,
    ),
    (
        re.compile(
            r"(?i:\b(?:planning|plan|plans|decided|deciding|booked|booking) (?:to|on) (?:go(?:ing)?|fly(?:ing)?"
            r"|mov(?:e|ing)|relocat(?:e|ing)|travel(?:l?ing)?|visit(?:ing)?|spend(?:ing)? (?:the |our |my )?"
            r"(?:summers?|winters?|holidays|christmas|spring|fall|autumn|\w+ break))(?: back| over)?(?: to| in)?)"
            rf" {_EN_PLACE}"
        ),
        _en_going,
    ),
    (
        re.compile(
            r"(?i:\b(?:my|our) (?:upcoming |next |big |summer |winter |spring |fall |autumn |first |long )?"
            rf"(?P<trip>trip|vacation|holiday|honeymoon|move|flights?) (?:to|in)) {_EN_PLACE}"
        ),
        _en_going,
    ),
    # "I'm planning a trip to Japan in late December", "we're organising a holiday in Crete": a trip being planned
    (
        re.compile(
            r"(?i:\b(?:planning|plan|plans|organi[sz]ing|organi[sz]e|arranging|booking) (?:a |an |our |my |the |this )?"
            r"(?:\w+ ){0,2}?(?P<trip>trip|vacation|holiday|getaway|honeymoon|visit|tour|road trip) (?:to|in)) "
            rf"{_EN_PLACE}"
        ),
        _en_going,
    ),
    # "booked the Mexico City flights!", "just booked flights to Lisbon"
    (
        re.compile(rf"(?i:\bbooked (?:the |my |our |some )?){_EN_PLACE}"
                   r"(?i: (?:flights?|trip))\b"),  # not "booked the Taylor Swift tickets", "the Hilton hotel"
        _en_going,
    ),
    (
        re.compile(rf"(?i:\bbooked (?:the |my |our |some )?(?:flights?|tickets?|a trip) to) {_EN_PLACE}"),
        _en_going,
    ),
    # experiences (places of past events)
    (
        re.compile(
            rf"(?i:\b(?:went|go|travell?ed|flew|drove(?: down| up| over)?|headed|took a trip|came back|took (?:me|us)"
            rf"|returned|got back|just back|been back)(?: \w+ing)? (?:to|back to|down to|up to|from)) {_EN_PLACE}"
        ),
        _en_visited,
    ),
    (
        re.compile(
            rf"(?i:\b(?:visited|(?:i've|i have|we've|we have) been to|i was in|we were in|when i was in))"
            rf" {_EN_PLACE}"
        ),
        _en_visited,
    ),
    (
        re.compile(
            rf"(?i:\b(?:backpacked|toured|cycled|hitchhiked|road-?tripped|interrailed|travell?ed|drove|trekked"
            rf"|wandered|roamed) (?:through|around|across|all over)) {_EN_PLACE}"
        ),
        _en_visited,
    ),
    (
        re.compile(
            rf"(?i:\b(?:stayed|spent [\w ]+?|\w+ing|camping|skiing|hiking|place|trip|holiday|vacation|"
            rf"honeymoon|time) (?:in|at|through|off|to)) {_EN_PLACE}"
        ),
        lambda m, st: _en_visited(m, st) if PAST_EN_RE.search(m.string) or EPISODIC_EN_RE.search(m.string) else None,
    ),
    # "We had our anniversary dinner at Nobu": a meal or celebration had at a named venue
    (
        re.compile(
            rf"(?i:\b(?:had|celebrated|held) (?:our|my|a|the|his|her) (?:[\w-]+ ){{0,2}}?(?:dinner|lunch|brunch"
            rf"|breakfast|wedding|reception|party|date|anniversary|birthday)) (?i:at|in) {_EN_PLACE}"
        ),
        _en_visited,
    ),
    # "We celebrated our anniversary at Nobu last night": a named venue of a past event with a time
    (
        re.compile(rf"(?<!\w)(?i:at|in) {_EN_PLACE}"),
        lambda m, st: _en_visited(m, st) if _en_past_event(m.string) else False,
    ),
]

_EN_KNOWLEDGE: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"(?i)(?P<s>.+?) (?:originated|originates|comes|come|came|was first \w+) (?:in|from) (?P<o>.+)"),
        "originates_from",
    ),
    (re.compile(r"(?i)(?P<s>.+?) (?:is|are) the capital (?:city )?of (?P<o>.+)"), "capital_of"),
    (re.compile(r"(?i)(?P<s>.+?) (?:is|are) (?:located |situated )?in (?P<o>.+)"), "located_in"),
]
