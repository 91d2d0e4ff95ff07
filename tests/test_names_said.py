"""Which known names a memory's text says (ingest/names_said.py, pure): the rules recall reads a name in a text by
(cypher/recall/slot_match.cypher), and the care names that are everyday words too need."""

from __future__ import annotations

import pytest

from bmam.usecases.associations import ToAssociate, named_mentions
from graph.related import FreshEntity, KnownNames
from ingest.names_said import NameFinder, name_said, names_said

KNOWN = ["Tom", "Munich", "李娜", "杭州", "Will", "Hope", "May", "Mark", "June", "Jack", "greg", "Anna"]


@pytest.mark.parametrize(("text", "said"), [
    ("Tom is getting married in June.", ["Tom"]),  # June said as a month
    ("I'm flying to Munich for Tom's wedding.", ["Tom", "Munich"]),  # a possessive is the name
    ("李娜下个月要来看我。", ["李娜"]),  # a Han name as written, no word boundary needed
    ("我姐姐叫李娜，她在杭州当老师。", ["李娜", "杭州"]),
    ("I asked Tommy and tom-tom drums", []),  # not inside a longer Latin word; a capitalized name as written
    ("Tom2 and Tom_x", []),
    ("我是和Tom一起去的", ["Tom"]),  # a Han character beside a Latin name is no part of it
    ("I will call you", []),
    ("Will you call me?", []),  # an auxiliary at a sentence's start
    ("Will got an A in maths.", ["Will"]),
    ("Ask Will about it", ["Will"]),
    ("I hope so. Hope you are well!", []),
    ("Hope is coming over on Friday.", ["Hope"]),
    ("May I ask something?", []),
    ("May is my sister", ["May"]),
    ("We go in May.", []),
    ("Mark my words", []),
    ("Mark called twice.", ["Mark"]),
    ("June 5th is the date", []),
    ("June is visiting", ["June"]),
    ("Jack has recently gotten into fly fishing", ["Jack"]),
    ("greg agreed to pay 40%", ["greg"]),
    ("Greg agreed to pay", ["greg"]),  # a name written in lower case, in any case
    ("anna and greg are coming", ["greg", "Anna"]),  # a common given name in a text written all in lower case
    ("ANNA IS HERE", []),  # ... not in one with capitals
])
def test_the_names_a_text_says(text: str, said: list[str]) -> None:
    assert sorted(names_said(text, KNOWN)) == sorted(said)


def test_everyday_words_and_the_user_are_no_names() -> None:
    assert names_said("I went to the gym, then home", ["the gym", "home", "user", "x", "我", "家里"]) == []
    assert names_said("我回家里了 我自己去", ["家里", "我"]) == []
    assert name_said("My dog biscuit ate a biscuit", "biscuit")  # a pet named in lower case is its name
    assert NameFinder(["user", "the gym", "T"]).said("the gym T user") == []


def test_a_name_said_in_traditional_characters_or_other_spacing_is_the_same_name() -> None:
    assert names_said("我姐姐在杭州", ["杭州"]) == ["杭州"]
    assert names_said("去了臺北", ["台北"]) == ["台北"]
    assert names_said("We met in New   York", ["New York"]) == ["New York"]


def test_named_mentions_names_each_memory_s_known_entities_and_gives_fresh_ones_to_their_first_owner() -> None:
    brother = "My brother Tom lives in Munich."
    stored = [ToAssociate("m1", "Tom is getting married in June.", None), ToAssociate("m2", brother, None),
              ToAssociate("m3", None, None)]
    hits = (("o3", "Munich in winter"), ("o2", "munchkin"), ("o1", "Munich again"), ("m2", brother))
    known = KnownNames(
        names=(("e_tom", "Tom"), ("e_munich", "Munich"), ("e_tom_place", "Tom")),
        fresh=(FreshEntity("e_munich", "Munich", ("m2",), hits),
               FreshEntity("e_gone", "Lisbon", ("m9",), (("o5", "Lisbon"),))))
    names, named_by = named_mentions(stored, known)
    assert names == [["e_tom", "e_tom_place"], ["e_tom", "e_tom_place", "e_munich"], []]
    # the hits that say the name, newest first, for the memory whose triple brought it in (never that memory itself;
    # "munchkin" does not say Munich); none for a memory not among those stored
    assert named_by == [[], [("e_munich", ("o3", "o1"))], []]
    assert named_mentions(stored, known, backfill=False)[1] == [[], [], []]
