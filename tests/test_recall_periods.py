"""Questions about a past period ("What did I do yesterday?", 上周末我去了哪里？) against the real Neo4j: only
the memories said (or said again) then are recalled, in the user's time zone; nothing said then is a gated
answer that says so; through the use-case (a fake clock), GraphQL, and the CLI."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest, RecallResult
from graph.errors import BadInput
from graph.model import MemoryType
from ingest.turns import TurnInput
from tests.test_cli_commands import refused
from tests.test_maintenance import living

__all__ = ["living"]  # the fixture, used by name

# Saturday 2026-03-07, noon UTC: "yesterday" is Friday the 6th
ASKED = datetime(2026, 3, 7, 12, 0, tzinfo=UTC)


def say(c: Container, tenant: str, user: str, session: str, said: list[tuple[datetime, str]]) -> None:
    c.ingest.ingest_indexed(tenant, [TurnInput(user_id=user, session_id=session, speaker="user", text=text, at=at,
                                               turn=i) for i, (at, text) in enumerate(said)])


def a_week(c: Container, clock: FakeClock, tenant: str, user: str) -> None:
    """Monday's facts and meals, Friday's day out; the clock then at ASKED."""
    clock.advance(ASKED - clock.now())
    say(c, tenant, user, "mon", [
        (datetime(2026, 3, 2, 18, 0, tzinfo=UTC), "I live in Portland and work as a nurse."),
        (datetime(2026, 3, 2, 18, 5, tzinfo=UTC), "Had pho with my coworkers for lunch, it was great."),
    ])
    say(c, tenant, user, "fri", [
        (datetime(2026, 3, 6, 9, 0, tzinfo=UTC), "Went to the farmers market this morning and bought way too many "
                                                 "apples."),
        (datetime(2026, 3, 6, 13, 0, tzinfo=UTC), "Then I had lunch with my sister Jenny at a Thai place."),
        (datetime(2026, 3, 6, 21, 0, tzinfo=UTC), "Watched Dune in the evening, loved it."),
    ])


def recall(c: Container, tenant: str, user: str, query: str, **extra: object) -> RecallResult:
    return c.recall.recall(tenant, RecallRequest(user_id=user, query=query, **extra))  # type: ignore[arg-type]


def texts(r: RecallResult) -> list[str]:
    return [m.memory.text for m in r.memories]


FRIDAY = {"Went to the farmers market this morning and bought way too many apples.",
          "Then I had lunch with my sister Jenny at a Thai place.", "Watched Dune in the evening, loved it."}


def test_what_did_i_do_yesterday_answers_with_what_was_said_yesterday(living: tuple[Container, FakeClock],
                                                                     tenant: str) -> None:
    c, clock = living
    a_week(c, clock, tenant, "ann")
    for question in ("What did I do yesterday?", "昨天我做了什么？"):
        r = recall(c, tenant, "ann", question)
        assert r.gated is False, r.reason
        assert set(texts(r)) == FRIDAY, question
        assert r.period is not None and r.period.open_question
        assert r.period.start == datetime(2026, 3, 6, tzinfo=UTC) and r.period.end == datetime(2026, 3, 7, tzinfo=UTC)
        assert "2026-03-06" in r.reason
        assert all("said in the period the input asks about" in m.why for m in r.memories)


def test_without_the_period_the_same_question_is_gated(living: tuple[Container, FakeClock], tenant: str) -> None:
    """What the period stage adds: the question shares no meaning with what was done (cosines ~0.1)."""
    c, clock = living
    a_week(c, clock, tenant, "ann")
    assert recall(c, tenant, "ann", "What did I do?").gated is True


def test_a_question_about_something_in_the_period_ranks_what_was_said_then_first(
        living: tuple[Container, FakeClock], tenant: str) -> None:
    """The other days' memories stay candidates (a lunch told the morning after was said another day), behind."""
    c, clock = living
    a_week(c, clock, tenant, "ann")
    friday, monday = "Then I had lunch with my sister Jenny at a Thai place.", \
        "Had pho with my coworkers for lunch, it was great."
    r = recall(c, tenant, "ann", "What did I eat for lunch yesterday?")
    assert r.period is not None and not r.period.open_question
    assert texts(r)[0] == friday
    assert "said yesterday (2026-03-06) ranked ahead" in r.reason
    asked_monday = recall(c, tenant, "ann", "What did I eat for lunch on Monday?")
    assert texts(asked_monday)[0] == monday
    assert texts(asked_monday).index(monday) < texts(asked_monday).index(friday) \
        if friday in texts(asked_monday) else True


def test_nothing_said_in_the_period_is_gated_and_says_so(living: tuple[Container, FakeClock], tenant: str) -> None:
    c, clock = living
    a_week(c, clock, tenant, "ann")
    r = recall(c, tenant, "ann", "What did I do the day before yesterday?")
    assert r.gated is True and r.memories == []
    assert r.reason == "nothing was said the day before yesterday (2026-03-05)"


def test_a_memory_said_again_in_the_period_belongs_to_it(living: tuple[Container, FakeClock], tenant: str) -> None:
    c, clock = living
    a_week(c, clock, tenant, "ann")
    say(c, tenant, "ann", "thu", [(datetime(2026, 3, 5, 20, 0, tzinfo=UTC), "I live in Portland and work as a nurse.")])
    r = recall(c, tenant, "ann", "What did I talk about the day before yesterday?")
    assert texts(r) == ["I live in Portland and work as a nurse."]


def test_a_memory_remembered_without_a_turn_belongs_to_the_day_it_was_stored(living: tuple[Container, FakeClock],
                                                                            tenant: str) -> None:
    c, clock = living
    clock.advance(ASKED - timedelta(days=1) - clock.now())
    c.memories.remember(tenant, RememberRequest(user_id="bo", text="Fixed the leaking kitchen tap myself",
                                                type=MemoryType.EPISODIC))
    clock.advance(timedelta(days=1))
    assert texts(recall(c, tenant, "bo", "What did I do yesterday?")) == ["Fixed the leaking kitchen tap myself"]
    assert recall(c, tenant, "bo", "What did I do today?").gated is True


def test_the_users_time_zone_decides_which_day_was_yesterday(living: tuple[Container, FakeClock],
                                                            tenant: str) -> None:
    """Said at 03:00 UTC on Friday: Friday in UTC, still Thursday evening in Los Angeles."""
    c, clock = living
    clock.advance(ASKED - clock.now())
    say(c, tenant, "cy", "s", [(datetime(2026, 3, 6, 3, 0, tzinfo=UTC), "Went bowling with the team tonight.")])
    assert texts(recall(c, tenant, "cy", "What did I do yesterday?")) == ["Went bowling with the team tonight."]
    la = recall(c, tenant, "cy", "What did I do yesterday?", time_zone="America/Los_Angeles")
    assert la.gated is True and "2026-03-06" in la.reason
    assert texts(recall(c, tenant, "cy", "What did I do the day before yesterday?",
                        time_zone="America/Los_Angeles")) == ["Went bowling with the team tonight."]


def test_a_statement_with_time_words_is_not_a_question_about_a_period(living: tuple[Container, FakeClock],
                                                                      tenant: str) -> None:
    c, clock = living
    a_week(c, clock, tenant, "ann")
    r = recall(c, tenant, "ann", "I want to go back to that Thai place I went to yesterday, what was it called?")
    assert r.period is None or not r.period.open_question
    r = recall(c, tenant, "ann", "I'm a nurse in Portland, I told you yesterday.")
    assert r.period is None and "I live in Portland and work as a nurse." in texts(r)


def test_an_unknown_time_zone_is_refused(living: tuple[Container, FakeClock], tenant: str) -> None:
    c, _ = living
    for zone in ("Mars/Olympus", "../../etc/passwd", "", "Europe/Berlin\x00"):
        with pytest.raises(BadInput, match="time zone") as err:
            recall(c, tenant, "ann", "What did I do yesterday?", time_zone=zone)
        assert err.value.field == "timeZone"


# ----- GraphQL and the CLI ------------------------------------------------------------------------------------


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def test_graphql_recall_and_context_prompt_name_the_period(client: BmamClient, user: str) -> None:
    now = datetime.now(UTC)
    client.ingest_conversation([
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "Adopted a kitten from the shelter today!",
         "at": (now - timedelta(days=1)).isoformat()},
        {"userId": user, "sessionId": "s1", "speaker": "user", "text": "I work as a data engineer at a bank.",
         "at": (now - timedelta(days=9)).isoformat()},
    ])
    r = client.recall(user, "What did I do yesterday?", timeZone="UTC")
    assert [m["memory"]["text"] for m in r["memories"]] == ["Adopted a kitten from the shelter today!"]
    assert r["period"]["words"] == "yesterday" and r["period"]["openQuestion"] is True
    assert datetime.fromisoformat(r["period"]["end"]) == datetime.combine(now.date(), datetime.min.time(), UTC)
    p = client.context_prompt(user, "s2", "What did I do yesterday?", time_zone="UTC")
    assert "Adopted a kitten" in p["text"] and "data engineer" not in p["text"]
    assert p["period"]["words"] == "yesterday"
    assert client.recall(user, "Where do I work?")["period"] is None


def test_graphql_refuses_an_unknown_time_zone_with_a_code(client: BmamClient, user: str) -> None:
    with pytest.raises(BmamClientError) as err:
        client.recall(user, "What did I do yesterday?", timeZone="Mars/Olympus")
    assert err.value.code == "BAD_USER_INPUT" and "time zone" in str(err.value)
    with pytest.raises(BmamClientError) as err:
        client.context_prompt(user, "s1", "What did I do yesterday?", time_zone="Nowhere")
    assert err.value.code == "BAD_USER_INPUT"


def test_the_cli_refuses_an_unknown_time_zone(tenant: str) -> None:
    line = refused(2, "recall", "-u", "ann", "--tenant", tenant, "--time-zone", "Mars/Olympus",
                   "What did I do yesterday?")
    assert "time zone" in line
