"""Hearsay, pure: what a memory reports someone else as saying (ingest/hearsay.py), and recall leaving out a memory
whose only link to the input is such words, turned down by the user or about others (ingest/scoring.py)."""

from __future__ import annotations

import pytest

from ingest.hearsay import reports
from ingest.scoring import Candidate, ScoringParams, hearsay_only, score_candidates, terms

P = ScoringParams()


@pytest.mark.parametrize(("text", "who", "said", "turned_down", "about_others"), [
    ("my coworker keeps saying I should move to Tucson where rent is cheaper but no way, my whole family is here",
     "my coworker", "I should move to Tucson where rent is cheaper", True, False),
    ("good. keep it that neutral. my sister said i should 'make him beg' for holidays which, no",
     "my sister", "i should 'make him beg' for holidays", True, False),
    ("我老公说他妈做的剁椒鱼头是天下第一 我觉得一般般 哈哈不敢说", "我老公", "他妈做的剁椒鱼头是天下第一", True, True),
    ("车队的老孙说骑车要一直用大盘才练得出来 我觉得不对吧", "老孙", "骑车要一直用大盘才练得出来", True, False),
    ("我爸昨天电话里还说 考不上就回老家当老师算了 我听了就头大", "我爸", "考不上就回老家当老师算了", True, False),
    ("同事 Vivian 说她每天喝三杯 cold brew 才能活，我一杯就心慌哈哈", "Vivian", "她每天喝三杯 cold brew 才能活",
     False, True),
    ("Leo 说想搬来上海，但他的工作在深圳很难换", "Leo", "想搬来上海", False, False),  # a plan of his, no refusal
])
def test_reports(text: str, who: str, said: str, turned_down: bool, about_others: bool) -> None:
    [r] = reports(text)
    assert (r.who, r.said, r.turned_down, r.about_others) == (who, said, turned_down, about_others)


@pytest.mark.parametrize("text", [
    "我跟老公说周末去蠡园",  # the user told him
    "I said no to the second interview",  # the user's own words
    "my doctor said I need to cut down on salt",  # a professional's advice is no hearsay
    "小时候说过想当医生",  # 小时候 is no one
    "We moved to Denver last spring.",
])
def test_no_report(text: str) -> None:
    assert reports(text) == ()


@pytest.mark.parametrize(("text", "question", "only"), [
    # turned down: not the user's plan, whatever the input asks
    ("my coworker keeps saying I should move to Tucson where rent is cheaper but no way, my whole family is here",
     "When am I moving to the cheaper city?", True),
    ("我爸妈说装完放几个柚子皮就行了 我觉得不靠谱", "去甲醛的柚子皮一间房要放几个？", True),
    # about others, asked of the user
    ("我老公说他妈做的剁椒鱼头是天下第一 我觉得一般般 哈哈不敢说", "我做的剁椒鱼头是不是天下第一？", True),
    ("同事 Vivian 说她每天喝三杯 cold brew 才能活，我一杯就心慌哈哈", "我一天三杯 cold brew 是不是太多了？", True),
    # the input names the one who said it: what they said is the answer
    ("my sister said i should 'make him beg' for holidays which, no", "what did my sister say about the holidays?",
     False),
    ("同事 Vivian 说她每天喝三杯 cold brew 才能活，我一杯就心慌哈哈", "Vivian 一天喝几杯 cold brew", False),
    # about others but not turned down, asked of someone else (my dog, 我老公): may answer
    ("我老公说他妈做的剁椒鱼头很好吃", "我老公喜欢吃什么", False),
    # the words shared are the user's own too
    ("同事 Vivian 说她每天喝三杯 cold brew 才能活，我一杯就心慌哈哈", "我喝一杯 cold brew 会心慌吗", False),
    # advice the user did not turn down stays
    ("my mom says I should try pilates for my back", "what exercise should I try for my back?", False),
])
def test_hearsay_only(text: str, question: str, only: bool) -> None:
    assert hearsay_only(text, question, terms(question)) is only


def test_recall_leaves_a_turned_down_suggestion_out() -> None:
    """The coworker's Tucson is the closest memory to "When am I moving to the cheaper city?" by meaning and by
    words; the user turned it down, so it is no answer: scoring drops it and keeps the user's own plan."""
    question = "When am I moving to the cheaper city?"
    heard = Candidate(id="heard", text="my coworker keeps saying I should move to Tucson where rent is cheaper but "
                      "no way, my whole family is here", cosine=0.55, hours=24.0, weight=0.5, dense_rank=1,
                      text_rank=1)
    own = Candidate(id="own", text="we're moving to Mesa in June, the rent is lower", cosine=0.45, hours=48.0,
                    weight=0.5, dense_rank=2)
    assert [s.candidate.id for s in score_candidates([heard, own], question, terms(question), P)] == ["own"]
    asked_of_her = "what does my coworker keep saying about Tucson?"
    assert "heard" in [s.candidate.id for s in score_candidates([heard, own], asked_of_her, terms(asked_of_her), P)]
