"""Of two memories on one thing, the one saying a change comes first (ingest/scoring.py latest_word_first): the
blind conversations (bench/data) ranked "刚入了佳能R5" above "R5退了 换了尼康Z8" for "我这相机用啥存储卡好", and "based
at LAX" above "I transferred my base to SFO" for the airport the user reports to now. Pure ordering, then once
through ingest and recall against the real Neo4j."""

from __future__ import annotations

from datetime import timedelta

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.scoring import Candidate, Scored, Scores, latest_word_first
from ingest.turns import TurnInput
from tests.test_routine_conflicts import START


def scored(id_: str, text: str, final: float, hours: float, **kw: object) -> Scored:
    c = Candidate(id=id_, text=text, cosine=0.3, hours=hours, weight=0.5, **kw)  # type: ignore[arg-type]
    return Scored(candidate=c, scores=Scores(vector=0.3, fulltext=0.0, graph=0.0, freshness=0.0, weight=0.5,
                                             relevance=final, damping=1.0, final=final), why="similar")


def ids(ranking: list[Scored]) -> list[str]:
    return [s.candidate.id for s in ranking]


def test_a_newer_memory_saying_a_change_comes_above_the_older_one_on_the_same_thing() -> None:
    ranking = [scored("old", "最近迷上拍鸟了 刚入了佳能R5 配100-500 够用不", 0.31, hours=1440),
               scored("other", "我在沈阳 周末都去浑河边蹲", 0.25, hours=1000),
               scored("new", "R5退了 换了尼康Z8 朋友说对焦跟踪更好 先用用看", 0.23, hours=144)]
    out = latest_word_first(ranking)
    assert ids(out) == ["new", "old", "other"]
    assert out[0].scores.final == 0.31  # at the older one's score, so nothing downstream reorders it back
    assert "the latest word on r5" in out[0].why
    assert sorted(ids(out)) == sorted(ids(ranking))  # only reordered


def test_forms_of_one_word_are_one_thing() -> None:
    ranking = [scored("lax", "I'm a flight attendant based at LAX", 0.29, hours=900),
               scored("sfo", "other news, I transferred my base to SFO", 0.17, hours=100)]
    assert ids(latest_word_first(ranking)) == ["sfo", "lax"]


def test_what_stays_where_it_was() -> None:
    # nothing in common
    unrelated = [scored("a", "I love hiking in the Alps", 0.4, hours=900),
                 scored("b", "I finally fixed the leaking tap", 0.3, hours=10)]
    assert ids(latest_word_first(unrelated)) == ["a", "b"]
    # the change is someone else's
    boss = [scored("a", "I moved to Denver for the job", 0.4, hours=900),
            scored("b", "my boss moved to Denver last month", 0.3, hours=10)]
    assert ids(latest_word_first(boss)) == ["a", "b"]
    # said within the hour: two parts of one message
    same_time = [scored("a", "I run every morning in the park", 0.4, hours=5.5),
                 scored("b", "actually I run in the evening now", 0.3, hours=5.0)]
    assert ids(latest_word_first(same_time)) == ["a", "b"]
    # the older one states the fact asked for, the newer does not ("indie rock" / "rock climbing")
    asked = [scored("a", "I mostly listen to indie rock", 0.4, hours=900, answers=("likes",)),
             scored("b", "I've stopped rock climbing and switched to bouldering", 0.3, hours=10)]
    assert ids(latest_word_first(asked)) == ["a", "b"]
    # no change said
    no_change = [scored("a", "刚入了佳能R5", 0.4, hours=900), scored("b", "R5拍鸟真好用", 0.3, hours=10)]
    assert ids(latest_word_first(no_change)) == ["a", "b"]


def test_recall_puts_the_latest_word_first(container: Container, tenant: str) -> None:
    said = [(START, "最近迷上拍鸟了 刚入了佳能R5 配100-500 够用不"),
            (START + timedelta(days=1), "我在沈阳 周末都去浑河边蹲"),
            (START + timedelta(days=50), "R5退了 换了尼康Z8 朋友说对焦跟踪更好 先用用看")]
    for i, (at, text) in enumerate(said):
        container.ingest.ingest_turn(tenant, TurnInput(user_id="ann", session_id=f"s{i}", speaker="user", text=text,
                                                       at=at))
    result = container.recall.recall(tenant, RecallRequest(user_id="ann", query="我这相机用啥存储卡好", k=3))
    assert not result.gated, result.reason
    texts = [m.memory.text for m in result.memories]
    assert texts.index("R5退了 换了尼康Z8 朋友说对焦跟踪更好 先用用看") < texts.index(said[0][1])
