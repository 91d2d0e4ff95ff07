"""Of two memories on one thing, the one saying a change comes first (ingest/scoring.py latest_word_first): the
blind conversations (bench/data) ranked "刚入了佳能R5" above "R5退了 换了尼康Z8" for "我这相机用啥存储卡好", and "based
at LAX" above "I transferred my base to SFO" for the airport the user reports to now. Pure ordering, then once
through ingest and recall against the real Neo4j."""

from __future__ import annotations

from datetime import datetime, timedelta

from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from ingest.scoring import (
    Candidate,
    Scored,
    Scores,
    change_said,
    changes_what_was_said,
    latest_word_first,
    says_own_change,
)
from ingest.turns import TurnInput
from tests.test_remember_hooks import linked_to
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
    # the thing shared is not where the change is said: the wife who chose the colour changed nothing of the
    # shares lost this year, nor did the wife of the roses' anniversary get diabetes
    elsewhere = [scored("a", "今年炒股亏了8万 老婆不让我买贵的了", 0.4, hours=900),
                 scored("b", "最后提了比亚迪汉 老婆选的颜色 还挺好看", 0.3, hours=10)]
    assert ids(latest_word_first(elsewhere)) == ["a", "b"]
    roses = [scored("a", "Carol and I planted twelve Mr Lincoln bushes for our 40th anniversary", 0.5, hours=900),
             scored("b", "Doctor says I've got type 2 diabetes now. Carol is cooking without sugar", 0.2, hours=10)]
    assert ids(latest_word_first(roses)) == ["a", "b"]
    # a word of feeling is no thing ("感觉" in both: the essay is no news of the test score)
    feeling = [scored("a", "GRE 考了 315 感觉申 CMU 没戏了 要不要 retake", 0.5, hours=900),
               scored("b", "现在准备 SOP 感觉 writing 是我的 weakness", 0.3, hours=10)]
    assert ids(latest_word_first(feeling)) == ["a", "b"]


def test_where_a_change_is_said() -> None:
    assert change_said("最后提了比亚迪汉 老婆选的颜色 还挺好看") == "最后提了比亚迪汉"
    # a thousands separator is no clause's end: the amount is where the raise is said
    assert change_said("I got a raise!! now it's $4,600 after tax") == "I got a raise now it's $4,600 after tax"
    assert change_said("I planted roses with Carol") == ""
    # a change only urged or thought of is none said: no latest word on the PhD it speaks of
    assert change_said("My flatmate Isla keeps saying I should quit the PhD and go work for an oil company.") == ""
    assert change_said("if I ever switched to Linux I'd miss Photoshop") == ""
    # a choice made after all: 想了想还是, "ended up"; 还是 alone is "still" or "or"
    assert change_said("想了想还是回国吧 英国投行根本不招人") == "想了想还是回国吧"
    assert change_said("We ended up going with the barn") == "We ended up going with the barn"
    assert change_said("我还是想去大厂") == "" and change_said("你喝咖啡还是茶") == ""
    assert says_own_change("R5退了 换了尼康Z8") and not says_own_change("my boss moved to Denver last month")
    # someone else's change beside the user's own: the user's (the designer redrew; the user took a foreman)
    assert says_own_change("和老王闹掰了 他图纸改了三次都不对 设计费退了一半 现在我自己找了个工长半包")


def test_two_memories_stating_the_fact_asked_are_on_one_thing() -> None:
    """Both state a food the user refuses (asked by "晚上吃点啥比较好"), sharing no word where the change is said: the
    newer, which says the change, comes first; without the fact asked of both, nothing moves."""
    dinner = [scored("a", "决定了 化悲愤为力量 从今天开始减肥 晚饭不吃了", 0.6, hours=960, answers=("not eats",)),
              scored("b", "不吃晚饭坚持了一周就饿疯了 现在改成晚上吃 就是不吃主食", 0.59, hours=240,
                     answers=("not eats",))]
    assert ids(latest_word_first(dinner)) == ["b", "a"]
    unasked = [scored("a", "决定了 化悲愤为力量 从今天开始减肥 晚饭不吃了", 0.6, hours=960),
               scored("b", "不吃晚饭坚持了一周就饿疯了 现在改成晚上吃 就是不吃主食", 0.59, hours=240)]
    assert ids(latest_word_first(unasked)) == ["a", "b"]


def test_a_change_of_the_users_beside_someone_elses_is_the_latest_word() -> None:
    designer = [scored("a", "找了个设计师老王 设计费一平米80 感觉有点贵", 0.6, hours=1800),
                scored("b", "和老王闹掰了 他图纸改了三次都不对 设计费退了一半 现在我自己找了个工长半包", 0.3,
                       hours=960)]
    assert ids(latest_word_first(designer)) == ["b", "a"]


def tell(container: Container, tenant: str, user: str, said: list[tuple[datetime, str]]) -> None:
    """The user's turns (when, what), each in a session of its own, through the ingest."""
    for i, (at, text) in enumerate(said):
        container.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id=f"s{i}", speaker="user", text=text,
                                                       at=at))


def test_recall_puts_the_latest_word_first(container: Container, tenant: str) -> None:
    said = [(START, "最近迷上拍鸟了 刚入了佳能R5 配100-500 够用不"),
            (START + timedelta(days=1), "我在沈阳 周末都去浑河边蹲"),
            (START + timedelta(days=50), "R5退了 换了尼康Z8 朋友说对焦跟踪更好 先用用看")]
    tell(container, tenant, "ann", said)
    result = container.recall.recall(tenant, RecallRequest(user_id="ann", query="我这相机用啥存储卡好", k=3))
    assert not result.gated, result.reason
    texts = [m.memory.text for m in result.memories]
    # the latest word first; the R5 after it, or not at all (the camera is one at a time: uses_camera superseded it)
    assert texts[0] == "R5退了 换了尼康Z8 朋友说对焦跟踪更好 先用用看", texts


def test_a_change_is_one_hop_from_the_older_word_however_few_memories_the_user_has(container: Container,
                                                                                    tenant: str) -> None:
    """A user of a few memories gets no rare-term links (every word is rare there), except on the thing a change is
    said of: "最后提了比亚迪汉" is linked to "纠结 特斯拉model 3和比亚迪汉", so "我开的是啥车来着", which finds only the
    older one by meaning, reaches the newer through the link, latest word first. 老婆, named in both outside the
    change, links nothing."""
    said = [(START, "纠结 特斯拉model 3和比亚迪汉 买哪个 预算25万"),
            (START + timedelta(days=1), "今年炒股亏了8万 老婆不让我买贵的了"),
            (START + timedelta(days=30), "最后提了比亚迪汉 老婆选的颜色 还挺好看")]
    tell(container, tenant, "bo", said)
    by_text = {m.text: m for m in container.memories.page(tenant, "bo", first=10).items}
    older, shares, newer = (by_text[text] for _, text in said)
    linked = linked_to(container, tenant, "bo", newer)
    assert frozenset((older.id, newer.id)) in linked
    assert frozenset((shares.id, newer.id)) not in linked
    result = container.recall.recall(tenant, RecallRequest(user_id="bo", query="车该买保险了 我开的是啥车来着", k=3))
    assert not result.gated, result.reason
    assert [m.memory.id for m in result.memories][:2] == [newer.id, older.id]


def test_a_change_is_no_engagement_with_the_stale_word(container: Container, tenant: str) -> None:
    """A turn on a temp memory's topic lifts it to mid (implicit engagement), but not a turn saying a change on its
    thing: "涨价了 凉皮从8块涨到10块" lifted "一份凉皮卖8块" (the stale price then outweighed the new one). The change
    is the latest word on it, first for the price list."""
    assert changes_what_was_said("涨价了 凉皮从8块涨到10块", "美团抽成百分之二十几 一份凉皮卖8块 到手没多少")
    assert not changes_what_was_said("凉皮卖得不错", "一份凉皮卖8块")  # no change said
    assert not changes_what_was_said("我同事涨价了 他的凉皮卖10块", "一份凉皮卖8块")  # someone else's
    said = [(START, "美团抽成百分之二十几 一份凉皮卖8块 到手没多少"),
            (START + timedelta(days=1), "我在西安开了个凉皮店 在小寨那边 开了四年了"),
            (START + timedelta(days=30), "涨价了 凉皮从8块涨到10块 有点怕客人跑了")]
    tell(container, tenant, "cy", said)
    by_text = {m.text: m for m in container.memories.page(tenant, "cy", first=10).items}
    assert by_text[said[0][1]].tier.value == "temp"
    result = container.recall.recall(tenant, RecallRequest(user_id="cy", query="帮我做个价目表 凉皮的价格写上", k=3))
    assert not result.gated, result.reason
    texts = [m.memory.text for m in result.memories]
    assert texts.index(said[2][1]) < texts.index(said[0][1]), texts


def test_the_latest_word_is_one_hop_from_each_older_word_on_its_thing(container: Container, tenant: str) -> None:
    """Two older memories name the flour supplier; the change ("switching to a new supplier") is linked to both at the
    term links' base strength, not base / sqrt(2) (0.35, below recall's expansion floor of 0.4): asked for a note
    about the supplier, recall finds the older by their words and reaches the new supplier through the link."""
    said = [(START, "Need to write an email to my flour supplier. Their last two deliveries were late."),
            (START + timedelta(minutes=2), "Great. Supplier is Blue Ridge Mills, contact is Harlan."),
            (START + timedelta(days=35), "Harlan called back, they lost a driver. We're switching to a new supplier "
                                         "anyway, Carolina Ground, local and better flour.")]
    tell(container, tenant, "dee", said)
    by_text = {m.text: m for m in container.memories.page(tenant, "dee", first=10).items}
    first, second, change = (by_text[text] for _, text in said)
    links = {frozenset((x.memory_a, x.memory_b)): x.strength
             for x in container.memories.associations(tenant, "dee", change.id)}
    floor = container.settings.recall.expand_min_strength
    assert links[frozenset((first.id, change.id))] >= floor, links
    assert links[frozenset((second.id, change.id))] >= floor, links
    result = container.recall.recall(tenant, RecallRequest(
        user_id="dee", query="can you write a note for the door about a late delivery from our flour supplier?", k=5))
    assert not result.gated, result.reason
    assert change.id in [m.memory.id for m in result.memories]
