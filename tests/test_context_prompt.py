"""contextPrompt: the rendering within a character budget (pure) and the whole path over HTTP (ingested
turns from working memory plus the gated relevant memories)."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.mcp_server import _context_prompt
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import (
    ContextTurn,
    RecalledMemory,
    RecallRequest,
    RecallResult,
    humanize_age,
    now_line,
    render_context,
)
from graph.errors import BadInput
from graph.model import ClassifierLevel, Memory, MemoryType, PresetKind, Provenance, Tier, WeightParts
from ingest.scoring import Scores
from ingest.turns import TurnInput

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def memory(text: str, type_: MemoryType = MemoryType.FACTUAL, age: timedelta = timedelta(days=3)) -> RecalledMemory:
    m = Memory(id=f"m_{uuid.uuid4().hex[:8]}", tenant="t", user_id="u", text=text, type=type_, tier=Tier.TEMP,
               weight=WeightParts(0.0, 0.5, 0.5, 0.2), preset_kind=PresetKind.DEFAULT, locked=False,
               created_at=NOW - age, last_recalled_at=None, last_mentioned_at=None, recall_count=0,
               mention_count=1, classified_by=ClassifierLevel.USER, confidence=1.0, provenance=Provenance(),
               valid_from=NOW - age)
    return RecalledMemory(memory=m, scores=Scores(0.5, 0, 0, 0, 0.2, 0.5, 1, 0.4), why="")


def turn(i: int, speaker: str, text: str) -> ContextTurn:
    return ContextTurn(speaker=speaker, text=text, at=NOW - timedelta(minutes=10 - i), turn=i)


TURNS = [turn(0, "user", "我最近在学做川菜"), turn(1, "assistant", "好呀，想学哪道？"), turn(2, "user", "麻婆豆腐吧")]

DATE_LINE = re.compile(r"Now: (Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d{4}-\d\d-\d\d \d\d:\d\d \(([^()]+)\)")


def under_the_date(text: str, zone: str | None = None) -> str:
    """A context prompt's text under its date line (now_line), which opens every prompt the use case makes."""
    first, _, rest = text.partition("\n\n")
    found = DATE_LINE.fullmatch(first)
    assert found, text
    assert zone is None or found.group(2) == zone, first
    return rest


def test_memories_are_marked_with_type_and_age_and_turns_come_oldest_first() -> None:
    recent = memory("我不吃香菜", MemoryType.FACTUAL, timedelta(hours=2))
    result = RecallResult(gated=False, reason="", memories=[memory("我住在成都"), recent])
    p = render_context(TURNS, result, budget=2000, now=NOW)
    assert "- [FACTUAL, 3 days ago] 我住在成都" in p.text
    assert "- [FACTUAL, 2 hours ago] 我不吃香菜" in p.text
    assert p.text.index("user: 我最近在学做川菜") < p.text.index("assistant: 好呀") < p.text.index("user: 麻婆豆腐吧")
    assert p.text.startswith("Relevant memories:")
    assert [t.turn for t in p.turns] == [0, 1, 2] and len(p.memories) == 2


def test_gated_prompt_has_only_the_turns() -> None:
    p = render_context(TURNS, RecallResult(gated=True, reason="nothing relates", memories=[]), budget=500, now=NOW)
    assert p.gated and "Relevant memories" not in p.text and "麻婆豆腐吧" in p.text


def test_the_newest_turns_and_best_memories_win_when_the_budget_is_tight() -> None:
    long_turns = [turn(i, "user", f"turn {i} " + "x" * 60) for i in range(5)]
    mems = [memory(f"memory {i} " + "y" * 50) for i in range(6)]
    p = render_context(long_turns, RecallResult(gated=False, reason="", memories=mems), budget=400, now=NOW)
    assert len(p.text) <= 400
    assert p.turns and p.turns[-1].turn == 4  # the newest turn is kept
    assert p.memories and p.memories[0] is mems[0]  # the best memory is kept
    kept = [m.memory.text for m in p.memories]
    assert kept == [m.memory.text for m in mems[: len(kept)]]


def test_a_turn_too_long_for_the_space_left_is_cut_with_an_ellipsis() -> None:
    p = render_context([turn(0, "user", "z" * 1000)], RecallResult(gated=True, reason="", memories=[]), budget=200,
                       now=NOW)
    assert len(p.text) <= 200 and p.text.endswith("…")


def test_a_newest_turn_longer_than_half_the_budget_keeps_half_not_what_the_memories_leave() -> None:
    """The newest turn takes up to half the budget first, cut to it when longer: five long memories must not
    crowd the conversation's last word out of the prompt (they took all but 27 characters of it, or all)."""
    turns = [turn(0, "user", "hi there"), turn(1, "assistant", "hello, how can I help?"), turn(2, "user", "y" * 1200)]
    mems = [memory("m" * 368) for _ in range(5)]
    p = render_context(turns, RecallResult(gated=False, reason="", memories=mems), budget=2000, now=NOW)
    assert len(p.text) <= 2000
    newest = p.text[p.text.index("user: yyy"):]
    assert newest.endswith("…") and len("Recent conversation:\n" + newest) == 1000  # half the budget, alone
    # the memories take the other half, in rank order, the third cut to what the first two leave: the older
    # turns come after the memories, and nothing is left for them
    assert len(p.memories) == 3 and p.text.split("\n\n")[0].endswith("m…")
    assert [t.turn for t in p.turns] == [2]
    fewer = render_context(turns, RecallResult(gated=False, reason="", memories=mems[:2]), budget=2000, now=NOW)
    assert len(fewer.memories) == 2 and [t.turn for t in fewer.turns] == [0, 1, 2]  # what they leave


@given(
    turns=st.lists(st.text(min_size=1, max_size=300), max_size=6),
    mems=st.lists(st.text(min_size=1, max_size=300), max_size=8),
    budget=st.integers(100, 1500),
)
@settings(max_examples=150, deadline=None)
def test_the_budget_is_never_exceeded(turns: list[str], mems: list[str], budget: int) -> None:
    ts = [turn(i, "user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(turns)]
    result = RecallResult(gated=False, reason="", memories=[memory(m) for m in mems])
    p = render_context(ts, result, budget=budget, now=NOW)
    assert len(p.text) <= budget
    for i, m in enumerate(p.memories):
        line = f"- [FACTUAL, 3 days ago] {' '.join(m.memory.text.split())}"
        if i < len(p.memories) - 1:
            assert line in p.text  # whole, all but the last
        else:
            shown_line = p.text.split("\n\n" + "Recent conversation:")[0].splitlines()[-1]
            assert shown_line == line or (shown_line.endswith("…") and line.startswith(shown_line[:-1]))
    shown = {m.memory.id for m in p.memories}
    # a prefix of the ranking but for repeats of a turn: never a lower one in a better one's place
    said = [" ".join(t.text.split()) for t in ts]
    passed = [i for i, m in enumerate(result.memories) if m.memory.id not in shown
              and not any(" ".join(m.memory.text.split()) in t for t in said)]
    assert all(i > j for i in passed for j, m in enumerate(result.memories) if m.memory.id in shown)


@pytest.mark.parametrize(("delta", "expected"), [
    (timedelta(seconds=20), "just now"), (timedelta(minutes=1), "1 minute ago"),
    (timedelta(minutes=5), "5 minutes ago"),
    (timedelta(hours=3), "3 hours ago"), (timedelta(days=1), "1 day ago"), (timedelta(days=45), "1 month ago"),
    (timedelta(days=800), "2 years ago"),
])
def test_humanize_age(delta: timedelta, expected: str) -> None:
    assert humanize_age(NOW - delta, NOW) == expected


def test_context_prompt_over_http(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:10]}"
    session = f"s-{uuid.uuid4().hex[:8]}"
    client.remember(user, "I live in Chengdu and love hotpot", "FACTUAL")
    for i, (speaker, text) in enumerate([("user", "I'm planning dinner tonight"), ("assistant", "Any cravings?"),
                                         ("user", "Something spicy maybe")]):
        client.ingest_turn(user, session, speaker, text, turn=i)
    p = client.context_prompt(user, session, "Where should I go for spicy hotpot in my city?", budget=1000)
    assert p["gated"] is False
    assert "[FACTUAL, just now] I live in Chengdu and love hotpot" in p["text"]
    assert "user: I'm planning dinner tonight" in p["text"] and "user: Something spicy maybe" in p["text"]
    assert [t["turn"] for t in p["turns"]] == [0, 1, 2]
    assert len(p["text"]) <= 1000
    gated = client.context_prompt(user, session, "What is the capital of Australia?")
    assert gated["gated"] is True and gated["memories"] == [] and "Something spicy maybe" in gated["text"]
    with pytest.raises(BmamClientError) as err:
        client.context_prompt(user, session, "hi", budget=10)
    assert err.value.code == "BAD_USER_INPUT"


def test_a_memory_the_budget_leaves_out_is_not_recalled(container: Container, tenant: str) -> None:
    """contextPrompt records the use (recall_count, passive + 0.1, the session's anti-repetition) only of the
    memories its text shows: one left out by the budget is not counted as recalled, and the reason says so.
    Three long memories in 200 characters: the best is cut to fit, the other two left out."""
    user, session = "zoe", "s1"
    made = [container.memories.remember(tenant, RememberRequest(
        user_id=user, text=f"I love spicy hotpot {kind} " + "with extra chili oil and numbing peppers " * 8,
        type="FACTUAL")) for kind in ("in Chengdu", "at home", "with friends")]
    p = container.recall.context_prompt(tenant, user, session, "Which spicy hotpot do I love?", budget=200)
    assert len(p.memories) == 1 and "2 more left out (over the budget)" in p.reason
    assert len(p.text) <= 200 and p.text.endswith("…") and "I love spicy hotpot" in p.text
    shown = p.memories[0].memory.id
    after = {m.id: m for m in container.memories.page(tenant, user).items}
    assert after[shown].recall_count == 1
    for left_out in (m for m in made if m.id != shown):
        assert after[left_out.id].recall_count == 0 and after[left_out.id].weight == left_out.weight


def test_a_shorter_lower_ranked_memory_never_takes_a_better_ones_place() -> None:
    """The memories go in rank order: the first that does not fit whole is cut (it was skipped, and a shorter,
    lower-ranked one took its room: a friend's birthday shown, the user's allergy not), and nothing after it
    is shown; when too little of it would fit, it is left out with everything after it."""
    allergy = memory("I'm severely allergic to peanuts and tree nuts, even traces, so always check labels " * 2)
    birthday = memory("Tom's birthday is May 3")
    p = render_context([], RecallResult(gated=False, reason="", memories=[allergy, birthday]), budget=150, now=NOW)
    assert [m.memory for m in p.memories] == [allergy.memory]
    assert "birthday" not in p.text and p.text.endswith("…") and len(p.text) == 150
    assert "- [FACTUAL, 3 days ago] I'm severely allergic to peanuts" in p.text

    roomy = render_context([], RecallResult(gated=False, reason="", memories=[birthday, allergy, birthday]),
                           budget=150, now=NOW)
    assert [m.memory for m in roomy.memories] == [birthday.memory, allergy.memory]  # cut after the first

    # too little room for the allergy after the birthday: left out, and the third is not shown in its place
    other = memory("Tom likes jazz")
    tight = render_context([], RecallResult(gated=False, reason="", memories=[birthday, allergy, other]),
                           budget=90, now=NOW)
    assert [m.memory for m in tight.memories] == [birthday.memory]
    assert "jazz" not in tight.text and "allergic" not in tight.text


def test_a_memory_a_recent_turn_shown_says_is_left_out_for_the_others() -> None:
    """The prompt carries a recent turn's words already: the memory made of them (or of a part of them) gives
    its line to the next memory. A memory only an older turn says, one the first half of the budget did not
    take whole, stays: that turn may not fit."""
    said = memory("I started eating fish again")
    other = memory("I live in Hangzhou")
    turns = [turn(0, "user", "I started eating fish again, so I'm pescatarian now."), turn(1, "assistant", "Noted!")]
    p = render_context(turns, RecallResult(gated=False, reason="", memories=[said, other]), budget=2000, now=NOW)
    assert [m.memory.text for m in p.memories] == ["I live in Hangzhou"]
    assert p.text.count("eating fish") == 1 and [t.turn for t in p.turns] == [0, 1]

    older = [turn(0, "user", "I started eating fish again " + "z" * 200), turn(1, "user", "y" * 110)]
    p = render_context(older, RecallResult(gated=False, reason="", memories=[said]), budget=300, now=NOW)
    assert [m.memory.text for m in p.memories] == ["I started eating fish again"]


def test_context_prompt_leaves_out_what_the_recent_turns_say_and_does_not_recall_it(
        container: Container, tenant: str) -> None:
    user, session = "zoe", "s1"
    container.ingest.ingest_turn(tenant, TurnInput(
        user_id=user, session_id=session, speaker="user", text="I'm allergic to peanuts, please remember that."))
    kept = container.memories.remember(tenant, RememberRequest(
        user_id=user, text="Peanut butter cookies gave me a rash as a child", type="EPISODIC"))
    repeated = [m for m in container.memories.page(tenant, user).items if m.id != kept.id]
    assert len(repeated) == 1 and "peanuts" in repeated[0].text
    p = container.recall.context_prompt(tenant, user, session, "Can I eat peanuts?")
    assert [m.memory.id for m in p.memories] == [kept.id]
    assert "1 said in the recent turns shown" in p.reason and "over the budget" not in p.reason
    assert p.text.count("allergic to peanuts") == 1
    after = {m.id: m for m in container.memories.page(tenant, user).items}
    assert after[repeated[0].id].recall_count == 0 and after[kept.id].recall_count == 1


def test_a_repeat_leaves_its_place_among_the_k_to_the_next_memory(container: Container, tenant: str) -> None:
    """contextPrompt shows recall's k memories less what the recent turns say: the repeat was left out after the k
    were chosen, so one fewer memory was shown (k - 1); now it is left out before, and the next one is shown."""
    user, session = "zoe", "s1"
    container.ingest.ingest_turn(tenant, TurnInput(
        user_id=user, session_id=session, speaker="user", text="I drink green tea every morning."))
    others = [container.memories.remember(tenant, RememberRequest(user_id=user, text=text, type="FACTUAL")).id
              for text in ("I take my coffee black at work.", "I bought a new glass kettle last week.")]
    k = 2
    small = container.settings.model_copy(update={"recall": container.settings.recall.model_copy(
        update={"default_k": k, "min_relative_relevance": 0.0})})  # the kettle barely relates: not cut here
    own = Container(small)
    own.__dict__["store"] = container.store
    own.__dict__["embedder"] = container.embedder
    p = own.recall.context_prompt(tenant, user, session, "What do I drink in the morning?")
    shown = [m.memory.id for m in p.memories]
    assert len(shown) == k and set(shown) <= set(others), (p.reason, [m.memory.text for m in p.memories])
    assert "1 said in the recent turns shown" in p.reason
    assert p.text.count("green tea every morning") == 1  # the turn says it; no memory line repeats it
    after = {m.id: m for m in container.memories.page(tenant, user).items}
    assert [m.recall_count for i, m in after.items() if i not in others] == [0]  # the repeat is not recalled


def test_what_barely_relates_stays_out_of_the_prompt(container: Container, tenant: str) -> None:
    """Beside a memory that clearly relates, the ones a cosine of ~0.25 brings stay out (recall's relative cut,
    0.45 of the best direct relevance: at 0.15 the coffee and the boss filled the prompt about a mother's blood
    pressure, as in a 100-turn assistant loop)."""
    user = "mei"
    texts = ["My mom lives in Shaoxing, she has high blood pressure and takes amlodipine every day",
             "Had three coffees already today, otherwise I can't keep going",
             "My boss Wang is okay, just a bit pushy sometimes", "I love hiking in the hills on weekends"]
    ids = [container.memories.remember(tenant, RememberRequest(user_id=user, text=t, type="FACTUAL")).id
           for t in texts]
    p = container.recall.context_prompt(tenant, user, "s1", "My mom's blood pressure was over 160, a bit high")
    assert [m.memory.id for m in p.memories] == [ids[0]], [(m.memory.text, m.scores) for m in p.memories]


def test_how_the_user_wants_to_be_answered_comes_first_whole_gated_or_not() -> None:
    """The reply styles head the prompt in a section of their own, gated or not; each is shown whole or not at all
    (half an instruction misleads); one the newest turns say already is left out."""
    short = memory("Please keep your answers short", MemoryType.SEMANTIC).memory
    blunt = memory("Be blunt with me", MemoryType.SEMANTIC, timedelta(days=9)).memory
    gated = RecallResult(gated=True, reason="nothing relates", memories=[])
    p = render_context(TURNS, gated, budget=500, now=NOW, styles=[short, blunt])
    assert p.text.startswith("How the user wants to be answered:\n- [SEMANTIC, 3 days ago] Please keep your answers "
                             "short\n- [SEMANTIC, 9 days ago] Be blunt with me\n\nRecent conversation:")
    assert p.reply_styles == [short, blunt] and p.gated
    relevant = render_context(TURNS, RecallResult(gated=False, reason="", memories=[memory("我住在成都")]),
                              budget=500, now=NOW, styles=[short])
    assert relevant.text.index("How the user wants") < relevant.text.index("Relevant memories:") \
        < relevant.text.index("Recent conversation:")

    long_style = memory("Always answer with " + "a lot of care and " * 12 + "detail", MemoryType.SEMANTIC).memory
    tight = render_context(TURNS, gated, budget=150, now=NOW, styles=[long_style, blunt])
    assert tight.reply_styles == [blunt] and "a lot of care" not in tight.text and len(tight.text) <= 150

    said = [turn(0, "user", "Please keep your answers short, I'm on my phone")]
    p = render_context(said, gated, budget=500, now=NOW, styles=[short, blunt])
    assert p.reply_styles == [blunt] and p.text.count("keep your answers short") == 1


@given(
    turns=st.lists(st.text(min_size=1, max_size=200), max_size=4),
    mems=st.lists(st.text(min_size=1, max_size=200), max_size=5),
    styles=st.lists(st.text(min_size=1, max_size=120), max_size=3),
    budget=st.integers(100, 1200),
)
@settings(max_examples=100, deadline=None)
def test_the_budget_holds_the_reply_styles_too(turns: list[str], mems: list[str], styles: list[str],
                                               budget: int) -> None:
    ts = [turn(i, "user", t) for i, t in enumerate(turns)]
    result = RecallResult(gated=False, reason="", memories=[memory(m) for m in mems])
    shown = [memory(s, MemoryType.SEMANTIC).memory for s in styles]
    p = render_context(ts, result, budget=budget, now=NOW, styles=shown)
    assert len(p.text) <= budget
    for m in p.reply_styles:  # whole
        assert f"- [SEMANTIC, 3 days ago] {' '.join(m.text.split())}\n" in p.text + "\n"
    assert [m.id for m in p.reply_styles] == [m.id for m in shown if m in p.reply_styles]  # newest first kept


def test_reply_styles_stand_in_every_prompt_and_are_not_recalled(container: Container, tenant: str) -> None:
    """Said once in a session, how the user wants to be answered heads the prompt of every later turn, in any
    session: chit-chat recall gates, and a request recall would answer with it (shown once, in its section,
    not among the memories). Showing it records no use of it. A style the user takes back (forgotten) goes."""
    user = "kai"
    container.ingest.ingest_turn(tenant, TurnInput(
        user_id=user, session_id="s0", speaker="user", text="Please keep your answers short, I read on my phone."))
    container.memories.remember(tenant, RememberRequest(user_id=user, text="I work as a nurse in Leeds",
                                                        type="FACTUAL"))
    [style] = [m for m in container.memories.page(tenant, user).items if "answers short" in m.text]

    chat = container.recall.context_prompt(tenant, user, "s1", "haha what a day, octopuses are so weird")
    assert chat.gated and chat.memories == [] and [m.id for m in chat.reply_styles] == [style.id]
    assert under_the_date(chat.text).startswith("How the user wants to be answered:\n") and "answers short" in chat.text

    # recall alone answers a request with the style (it asks for it); the prompt shows it apart, once
    asked = "Can you help me plan my nursing shifts in Leeds next week?"
    recalled = container.recall.recall(tenant, RecallRequest(user_id=user, query=asked))
    assert style.id in [m.memory.id for m in recalled.memories], recalled.reason
    request = container.recall.context_prompt(tenant, user, "s2", asked)
    assert [m.id for m in request.reply_styles] == [style.id]
    assert style.id not in [m.memory.id for m in request.memories]
    assert request.text.count("answers short") == 1 and "shown apart" in request.reason

    after = {m.id: m for m in container.memories.page(tenant, user).items}
    assert after[style.id].recall_count == 1  # the plain recall's use only

    container.memories.forget(tenant, user, style.id)
    gone = container.recall.context_prompt(tenant, user, "s1", "haha what a day")
    assert gone.reply_styles == [] and "How the user wants" not in gone.text


def test_context_prompt_over_http_gives_the_reply_styles(client: BmamClient) -> None:
    user = f"u-{uuid.uuid4().hex[:10]}"
    client.ingest_turn(user, "s1", "user", "你说话直接点 别老夸我", turn=0)
    p = client.context_prompt(user, "s2", "今天天气不错")
    assert [m["text"] for m in p["replyStyles"]] == ["你说话直接点 别老夸我"]
    assert under_the_date(p["text"]).startswith("How the user wants to be answered:\n- [")
    assert p["text"].endswith("你说话直接点 别老夸我")


def test_a_newer_reply_style_the_other_way_replaces_the_older(container: Container, tenant: str) -> None:
    """One length, one tone, one language at a time: "give me more detailed answers" ends "keep your answers short"
    (a conflict, the latest word wins), and the prompt shows the new one only; "be blunt with me" (another way)
    stays beside it."""
    user = "ines"
    for i, text in enumerate(["Please keep your answers short, I read on my phone.", "Be blunt with me.",
                              "Actually, give me more detailed answers from now on."]):
        container.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id=f"s{i}", speaker="user", text=text,
                                                       at=NOW + timedelta(days=i)))
    p = container.recall.context_prompt(tenant, user, "s9", "what a day")
    assert [m.text for m in p.reply_styles] == ["Actually, give me more detailed answers from now on.",
                                                "Be blunt with me."], p.text
    history = container.memories.page(tenant, user, include_history=True).items
    [short] = [m for m in history if "answers short" in m.text]
    assert short.valid_to is not None


def test_a_reply_style_the_budget_cannot_hold_whole_stays_a_memory_recall_may_choose(container: Container,
                                                                                      tenant: str) -> None:
    """The section holds each style whole or not at all: one too long for the budget is not shown apart, so recall
    may still choose it as a memory (cut to fit, as memories are), not lose it from both."""
    user = "kai"
    long_style = ("Please keep your answers short and simple, I read everything on my phone between patients on "
                  "the ward and I have no time for long text.")
    container.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id="s0", speaker="user", text=long_style))
    container.memories.remember(tenant, RememberRequest(user_id=user, text="I work as a nurse in Leeds",
                                                        type="FACTUAL"))
    asked = "Can you help me plan my nursing shifts in Leeds next week?"
    roomy = container.recall.context_prompt(tenant, user, "s1", asked, budget=2000)
    assert [m.text for m in roomy.reply_styles] == [long_style]
    tight = container.recall.context_prompt(tenant, user, "s2", asked, budget=120)
    assert tight.reply_styles == [] and "shown apart" not in tight.reason and len(tight.text) <= 120
    assert long_style[:40] in " ".join(m.memory.text for m in tight.memories) or "over the budget" in tight.reason


# ----- the date line ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("now", "zone", "expected"), [
    (datetime(2026, 12, 7, 13, 5, tzinfo=UTC), "Europe/Berlin", "Now: Monday 2026-12-07 14:05 (Europe/Berlin)"),
    # the user's day, not the server's: Sunday evening in UTC is Monday morning in Shanghai
    (datetime(2026, 12, 6, 23, 30, tzinfo=UTC), "Asia/Shanghai", "Now: Monday 2026-12-07 07:30 (Asia/Shanghai)"),
    (datetime(2026, 12, 6, 23, 30, tzinfo=UTC), "UTC", "Now: Sunday 2026-12-06 23:30 (UTC)"),
    (datetime(2026, 7, 1, 3, 0, tzinfo=UTC), "America/Los_Angeles",
     "Now: Tuesday 2026-06-30 20:00 (America/Los_Angeles)"),
])
def test_the_date_line_names_the_users_weekday_date_time_and_zone(now: datetime, zone: str, expected: str) -> None:
    assert now_line(now, ZoneInfo(zone)) == expected


def test_the_date_line_opens_the_prompt_and_counts_in_the_budget() -> None:
    """Relative ages ("3 days ago") and the user's "last month" need today's date: the prompt opens with it, before
    how the user wants to be answered, and the sections share what it leaves of the budget."""
    header = now_line(NOW, ZoneInfo("Europe/Berlin"))
    short = memory("Please keep your answers short", MemoryType.SEMANTIC).memory
    result = RecallResult(gated=False, reason="", memories=[memory("我住在成都")])
    p = render_context(TURNS, result, budget=2000, now=NOW, styles=[short], header=header)
    assert p.text.startswith("Now: Monday 2026-11-30 13:00 (Europe/Berlin)\n\nHow the user wants to be answered:")
    assert under_the_date(p.text) == render_context(TURNS, result, budget=2000, now=NOW, styles=[short]).text
    gated = render_context([], RecallResult(gated=True, reason="nothing relates", memories=[]), budget=100, now=NOW,
                           header=header)
    assert gated.text == header  # nothing else to say: the date alone
    # half of what the date leaves goes to the newest turn first (the README's rule, under the date)
    long = render_context([turn(0, "user", "y" * 1200)], RecallResult(gated=True, reason="", memories=[]),
                          budget=1000, now=NOW, header=header)
    assert len(long.text) == len(header) + 2 + (1000 - len(header) - 2) // 2


@given(
    turns=st.lists(st.text(min_size=1, max_size=200), max_size=4),
    mems=st.lists(st.text(min_size=1, max_size=200), max_size=5),
    styles=st.lists(st.text(min_size=1, max_size=120), max_size=2),
    zone=st.sampled_from(["UTC", "Europe/Berlin", "America/Argentina/ComodRivadavia", "Asia/Kathmandu"]),
    budget=st.integers(100, 1200),
)
@settings(max_examples=100, deadline=None)
def test_the_budget_holds_the_date_line_too(turns: list[str], mems: list[str], styles: list[str], zone: str,
                                            budget: int) -> None:
    ts = [turn(i, "user", t) for i, t in enumerate(turns)]
    result = RecallResult(gated=False, reason="", memories=[memory(m) for m in mems])
    shown = [memory(s, MemoryType.SEMANTIC).memory for s in styles]
    header = now_line(NOW, ZoneInfo(zone))
    p = render_context(ts, result, budget=budget, now=NOW, styles=shown, header=header)
    assert len(p.text) <= budget and p.text.partition("\n\n")[0] == header
    under_the_date(p.text, zone)


@pytest.fixture
def clocked(container: Container) -> Container:
    """A container on a fake clock (Sunday 2026-12-06 23:30 UTC) sharing the session's store and embedding model."""
    c = Container(container.settings, clock=FakeClock(datetime(2026, 12, 6, 23, 30, tzinfo=UTC)))
    c.__dict__["store"] = container.store
    c.__dict__["embedder"] = container.embedder
    return c


def test_context_prompt_opens_with_the_date_and_time_in_the_users_zone(clocked: Container, tenant: str) -> None:
    """The request's timeZone, else the setting recall.time_zone (as recall's periods count days), within the budget
    whatever the rest holds."""
    user = "mei"
    clocked.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id="s1", speaker="user",
                                                 text="We moved to Seattle last month, still unpacking boxes."))
    for i in range(4):
        clocked.memories.remember(tenant, RememberRequest(
            user_id=user, text=f"I live in Seattle near the lake, flat {i} " + "with a view " * 10, type="FACTUAL"))
    p = clocked.recall.context_prompt(tenant, user, "s1", "Where do I live?", time_zone="Asia/Shanghai")
    assert p.text.startswith("Now: Monday 2026-12-07 07:30 (Asia/Shanghai)\n\n")
    assert "last month" in p.text and "Seattle near the lake" in p.text
    setting = clocked.settings.recall.time_zone
    default = clocked.recall.context_prompt(tenant, user, "s1", "Where do I live?")
    assert default.text.split("\n")[0] == now_line(clocked.clock.now(), ZoneInfo(setting))
    tight = clocked.recall.context_prompt(tenant, user, "s2", "Where do I live?", budget=100,
                                          time_zone="America/Los_Angeles")
    assert len(tight.text) <= 100 and tight.text.startswith("Now: Sunday 2026-12-06 15:30 (America/Los_Angeles)")
    with pytest.raises(BadInput) as err:
        clocked.recall.context_prompt(tenant, user, "s1", "Where do I live?", time_zone="Mars/Olympus")
    assert err.value.field == "timeZone"


def test_every_face_gives_the_date_line(client: BmamClient, container: Container, tenant: str) -> None:
    """GraphQL (so the Python client and `bmam remote`), the CLI and MCP all read it from the one use case."""
    user = f"u-{uuid.uuid4().hex[:10]}"
    client.ingest_turn(user, "s1", "user", "I moved to Seattle last month", turn=0)
    berlin = ZoneInfo("Europe/Berlin")
    before = datetime.now(berlin)
    over_http = client.context_prompt(user, "s1", "Where do I live?", time_zone="Europe/Berlin")
    after = datetime.now(berlin)
    assert "I moved to Seattle last month" in under_the_date(over_http["text"], "Europe/Berlin")
    assert over_http["text"].split(" ")[2] in {before.date().isoformat(), after.date().isoformat()}

    container.memories.remember(tenant, RememberRequest(user_id="kim", text="I live in Seattle", type="FACTUAL"))
    by_mcp = asyncio.run(_context_prompt(container, tenant, "kim", "s1", "Where do I live?", budget=None,
                                         time_zone="Asia/Tokyo"))
    assert "I live in Seattle" in under_the_date(by_mcp["prompt"], "Asia/Tokyo")
    by_cli = CliRunner().invoke(app, ["context", "-u", "kim", "-s", "s1", "--tenant", tenant, "--time-zone",
                                      "America/New_York", "Where do I live?"])
    assert by_cli.exit_code == 0, by_cli.output
    assert "I live in Seattle" in under_the_date(by_cli.stdout.rstrip("\n"), "America/New_York")
