"""What remains of a superseded memory (ingest/remains.py, pure): the loser's clauses that state a fact the winner
does not contest, read clause by clause by the rule extractor."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.extract import RuleTripleExtractor
from ingest.extract_core import ExtractedTriple, normalize_term, single_valued_slot
from ingest.remains import Fact, indefinite_article, remains

EXTRACT = RuleTripleExtractor()


def winner_facts(text: str) -> list[Fact]:
    return [Fact.of(t.subject, t.predicate, t.object) for t in EXTRACT.extract(text)]


def remains_text(loser: str, winner: str) -> str | None:
    found = remains(EXTRACT.by_clause(loser), winner_facts(winner))
    return None if found is None else found.text


def test_by_clause_is_extract_clause_by_clause() -> None:
    text = "我叫李明，在杭州的阿里巴巴做产品经理"
    clauses = EXTRACT.by_clause(text)
    assert [c for c, _ in clauses] == ["我叫李明", "在杭州的阿里巴巴做产品经理"]
    assert [(t.predicate, t.object) for t in clauses[0][1]] == [("name", "李明")]
    # the second clause has no subject of its own: read in context, as extract reads it
    assert [t.key() for _, ts in clauses for t in ts] == [t.key() for t in EXTRACT.extract(text)]


@pytest.mark.parametrize(("loser", "winner", "left"), [
    # a change of employer keeps the name and the job (做产品经理: is_a, which the move to 腾讯 does not contest)
    ("我叫李明，在杭州的阿里巴巴做产品经理", "我上个月跳槽去了腾讯，现在住在深圳", "我叫李明，我是产品经理"),
    # a move keeps the job
    ("I live in Boston and I work as a data engineer at Moderna", "Big news: we moved to Seattle last month",
     "I work as a data engineer at Moderna"),
    # a clause about the speaker's own people splits at "and I ..." once it has said something ("My sister and I
    # live in Paris" stays whole): the move keeps the wife
    ("My wife Anna is a doctor and I live in Boston", "I live in Seattle now", "My wife Anna is a doctor"),
    ("My name is Tom and I live in Boston", "We moved to Denver", "My name is Tom"),
    # a new occupation (is_a, one job at a time) keeps the home
    ("I'm a teacher, I live in Boston", "I'm a nurse now", "I live in Boston"),
    # the opposite polarity on the same thing contests that clause only
    ("I love sushi, but I hate natto", "I don't like sushi anymore", "I hate natto"),
])
def test_the_uncontested_clauses_remain(loser: str, winner: str, left: str) -> None:
    assert remains_text(loser, winner) == left


def test_my_sister_and_i_stay_one_clause() -> None:
    assert [c for c, _ in EXTRACT.by_clause("My sister and I live in Paris")] == ["My sister and I live in Paris"]
    assert [c for c, _ in EXTRACT.by_clause("My husband and my kids love pizza")] == \
        ["My husband and my kids love pizza"]


def test_the_remains_state_the_kept_clauses_facts() -> None:
    found = remains(EXTRACT.by_clause("我叫李明，在杭州的阿里巴巴做产品经理"), winner_facts("我现在在腾讯工作"))
    assert found is not None
    # the clause the employer was said in states the job too: the job is kept, said on its own
    assert [(t.subject, t.predicate, t.object, t.polarity) for t in found.facts] == [
        ("user", "name", "李明", 1), ("user", "is_a", "产品经理", 1)]


@pytest.mark.parametrize(("loser", "winner"), [
    ("I live in Boston", "I live in Seattle now"),  # one fact, contested: nothing remains
    ("I live in Boston and I work at Moderna", "I moved to Seattle and I work at Amazon now"),  # every fact contested
    ("I like the new office", "I don't like the new office at all"),  # no clause contested by a fact: by meaning
])
def test_nothing_remains(loser: str, winner: str) -> None:
    assert remains_text(loser, winner) is None


def test_a_clause_without_a_fact_is_not_kept() -> None:
    # "Big news" states nothing: the remains hold the uncontested fact only
    assert remains_text("Big news, I'm Tom and I live in Boston", "I live in Paris these days") == "I'm Tom"


def test_chinese_clauses_are_joined_with_a_chinese_comma() -> None:
    assert remains_text("我叫李明，今年三十岁，住在杭州", "我现在住在深圳") == "我叫李明，今年三十岁"


_SUBJECTS = ("user", "Anna")
_PREDICATES = ("name", "lives_in", "likes", "pet", "works_at")
_OBJECTS = ("Tom", "Boston", "sushi", "Max", "Google")
_facts = st.lists(st.builds(lambda s, p, o, pol: ExtractedTriple(s, "person", p, o, "thing", pol),
                            st.sampled_from(_SUBJECTS), st.sampled_from(_PREDICATES), st.sampled_from(_OBJECTS),
                            st.sampled_from((1, -1))), max_size=3)


def _speaks_of(t: ExtractedTriple, w: Fact) -> bool:
    """The rule, from the primitives: the same subject and either the same single-valued slot or the same object."""
    if normalize_term(t.subject) != w.subject:
        return False
    slot = single_valued_slot(t.predicate, t.object)
    return (slot is not None and slot == w.slot) or normalize_term(t.object) == w.object


@settings(max_examples=300, deadline=None)
@given(clause_facts=st.lists(_facts, min_size=1, max_size=5),
       winner=st.lists(st.builds(Fact.of, st.sampled_from(_SUBJECTS), st.sampled_from(_PREDICATES),
                                 st.sampled_from(_OBJECTS)), max_size=3))
def test_the_remains_are_the_clauses_stating_facts_the_winner_does_not_speak_of(
        clause_facts: list[list[ExtractedTriple]], winner: list[Fact]) -> None:
    """Every free clause and, from a clause the winner speaks of, the speaker's pets it does not speak of (said
    again: "Max is my pet"), in order, and nothing else."""
    clauses = [(f"clause {i}", facts) for i, facts in enumerate(clause_facts)]
    found = remains(clauses, winner)
    spoken = [any(_speaks_of(t, w) for t in facts for w in winner) for _, facts in clauses]
    left: list[str] = []
    if not any(spoken):  # contradicted by meaning: every clause is as if spoken of, its pets said again
        spoken = [bool(facts) for _, facts in clauses]
    for (text, facts), hit in zip(clauses, spoken, strict=True):
        if facts and not hit:
            left.append(text)
        elif hit:
            left += [f"{t.object} is my pet" for t in facts if t.subject == "user" and t.predicate == "pet"
                     and t.polarity == 1 and not any(_speaks_of(t, w) for w in winner)]
    if found is None:
        assert not left  # nothing left
        return
    assert found.text.split(", ") == left
    assert not any(_speaks_of(t, w) for t in found.facts for w in winner)


@pytest.mark.parametrize(("loser", "winner", "left"), [
    # who the speaker's people are outlives the contested clause that named them
    ("My colleague Tom lives in Paris.", "Tom moved to Berlin.", "Tom is my colleague"),
    ("我姐姐小美在腾讯工作", "小美在阿里巴巴工作", "小美是我的姐妹"),
    # and so does the speaker's occupation, said with the employer
    ("I work at ByteDance as a data scientist.", "I now work at Alibaba", "I'm a data scientist"),
    ("I work at Amazon as an engineer.", "I work at Google now", "I'm an engineer"),
    ("I work at NetEase as a UX designer.", "I work at Alibaba now", "I'm a UX designer"),  # not "an UX designer"
    # a clause extending a contested one goes with it; a pronoun opening a later sentence is mid-sentence now
    ("I love Italian food, especially carbonara. I live in Rome", "I don't really like Italian food anymore",
     "I live in Rome"),
    ("I live in Rome. I love pasta, especially carbonara.", "I moved to Milan", "I love pasta, especially carbonara"),
    ("My colleague Tom lives in Paris. He works at Airbus as an engineer.", "Tom moved to Berlin.",
     "Tom is my colleague, he works at Airbus as an engineer"),
    # a contested occupation is not restated
    ("I work at Amazon as an engineer.", "I'm a nurse now and I work at a hospital", None),
])
def test_a_fact_that_stands_on_its_own_is_restated_from_a_contested_clause(loser: str, winner: str,
                                                                          left: str | None) -> None:
    assert remains_text(loser, winner) == left


@pytest.mark.parametrize(("noun", "article"), [
    ("engineer", "an"), ("teacher", "a"), ("UX designer", "a"), ("HR manager", "an"), ("MBA student", "an"),
    ("CTO", "a"), ("SRE", "an"), ("user researcher", "a"), ("university lecturer", "a"), ("urologist", "a"),
    ("European historian", "a"), ("honest broker", "an"), ("hourly worker", "an"), ("unemployed actor", "an"),
    ("Uber driver", "an"), ("usher", "an"), ("office manager", "an"), ("one-man band", "a"),
])
def test_a_restated_occupation_takes_the_article_its_sound_asks_for(noun: str, article: str) -> None:
    assert indefinite_article(noun) == article
