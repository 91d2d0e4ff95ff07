"""contextPrompt: the rendering within a character budget (pure) and the whole path over HTTP (ingested
turns from working memory plus the gated relevant memories)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bmam.client import BmamClient, BmamClientError
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import (
    ContextTurn,
    RecalledMemory,
    RecallRequest,
    RecallResult,
    humanize_age,
    render_context,
)
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
    assert chat.text.startswith("How the user wants to be answered:\n") and "answers short" in chat.text

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
    assert p["text"].startswith("How the user wants to be answered:\n- [")
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
