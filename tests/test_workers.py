"""More than one process (issue 8): 2 uvicorn workers against one Neo4j, and session state shared through it.

The choice (README "Operations"): session state is SHARED, read from Neo4j on every access
(settings.deployment.session_state = "shared", the default), not sticky. Working memory is the session's
last episodes, which ingest writes in the same transaction as the turn, so reading them is always
current; anti-repetition keeps what each recall surfaced on a (:SessionRecall) node. Sticky sessions
would need a load balancer that reads the session id out of the GraphQL body (uvicorn's own workers
share one socket and cannot be sticky at all), and a restarted or added process would still start
empty. The price is one small indexed read per access (and one small write per recall with a session).

Tested over HTTP against 2 workers: both answer; after each turn, whichever worker ingested it, every
worker returns the same working memory; an erasure through one worker is seen by the other; a memory one
worker's recall surfaced is damped by the other's. In process, with two containers as two workers: the
same, and the control: with session_state = "local" the two disagree.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import AsyncBmamClient, BmamClient, ClientConfig
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.model import Scope
from ingest.repetition import RepetitionParams, RepetitionTracker, SessionKey, SurfacedTurn
from ingest.shared_session import SharedRepetitionTracker
from ingest.turns import TurnInput
from tests.ops_support import BmamProcess, conversation, start_bmam, unsubscribe


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BmamProcess]:
    bmam = start_bmam(tmp_path_factory.mktemp("workers") / "bmam.log", workers=2)
    yield bmam
    bmam.stop()


@pytest.fixture(scope="module")
def key(container: Container) -> tuple[str, str]:
    tenant = f"test-workers-{uuid.uuid4().hex[:8]}"
    return tenant, container.keys.create(tenant, "workers").secret


def each_worker(url: str, key: str, fn: Callable[[BmamClient], Any], *, within_s: float = 60.0) -> dict[str, Any]:
    """Ask on fresh connections until both workers have answered: worker pid -> its answer. Bounded by time,
    not tries: which worker accepts a connection is the kernel's choice, and a busy machine can hand one
    worker many in a row."""
    answers: dict[str, Any] = {}
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        client = BmamClient(ClientConfig(url=url, api_key=key))
        try:
            result = fn(client)
            worker = client.served_by()
        finally:
            client.close()
        assert worker is not None
        answers.setdefault(worker, result)
        if len(answers) == 2:
            break
    return answers


def test_both_workers_answer(workers: BmamProcess, key: tuple[str, str]) -> None:
    answers = each_worker(workers.url, key[1], lambda c: c.viewer()["tenant"])
    assert len(answers) == 2 and set(answers.values()) == {key[0]}


def test_every_worker_sees_the_same_working_memory_after_every_turn(workers: BmamProcess,
                                                                    key: tuple[str, str]) -> None:
    writes = conversation("w-alice", "s1", 8, seed=3)
    writers: set[str] = set()
    for i, w in enumerate(writes):
        client = BmamClient(ClientConfig(url=workers.url, api_key=key[1]))
        try:
            assert w.send(client)["stored"]
            writers.add(client.served_by() or "")
        finally:
            client.close()
        expected = [(x.turn, x.text) for x in writes[: i + 1]][-5:]
        answers = each_worker(workers.url, key[1], lambda c: [
            (t["turn"], t["text"]) for t in c.working_memory("w-alice", "s1")["turns"]])
        assert len(answers) == 2
        assert all(turns == expected for turns in answers.values()), answers
    print(f"\nturns ingested through workers {sorted(writers)}")


def test_an_erasure_through_one_worker_is_seen_by_the_other(workers: BmamProcess, key: tuple[str, str]) -> None:
    client = BmamClient(ClientConfig(url=workers.url, api_key=key[1]))
    try:
        for w in conversation("w-bob", "s1", 4):
            w.send(client)
        # Every worker holds (has read) the session before the erasure (both of them: each_worker gives up after
        # a while, and one answer alone would leave the other worker's state untested).
        held = each_worker(workers.url, key[1], lambda c: c.working_memory("w-bob", "s1")["turns"])
        assert len(held) == 2 and all(len(t) == 4 for t in held.values())
        assert client.forget_user("w-bob", confirm=True)["verified"]
    finally:
        client.close()
    answers = each_worker(workers.url, key[1], lambda c: (c.working_memory("w-bob", "s1")["turns"],
                                                          c.memories("w-bob")["edges"]))
    assert len(answers) == 2 and all(a == ([], []) for a in answers.values())


def test_what_one_worker_surfaced_is_damped_by_the_other(workers: BmamProcess, key: tuple[str, str]) -> None:
    client = BmamClient(ClientConfig(url=workers.url, api_key=key[1]))
    try:
        for text in ("I live in Chengdu and love spicy hotpot", "My sister Anna works as a nurse in Berlin",
                     "I play tennis every Saturday morning"):
            client.remember("w-dave", text)
    finally:
        client.close()
    # naming no place or person: a memory holding a name the input says is not damped (ingest/repetition.py)
    ask = "where can I eat spicy hotpot tonight?"
    first_worker, top = None, None
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:  # recall in one session on fresh connections until both workers answered
        c = BmamClient(ClientConfig(url=workers.url, api_key=key[1]))
        try:
            answer = c.recall("w-dave", ask, session_id="s1")
            worker = c.served_by()
        finally:
            c.close()
        scores = {m["memory"]["id"]: m["scores"]["damping"] for m in answer["memories"]}
        if first_worker is None:
            first_worker, top = worker, answer["memories"][0]["memory"]["id"]
            assert scores[top] == 1.0  # nothing surfaced before in this session
        elif worker != first_worker:
            assert top is not None and scores[top] < 1.0  # the other worker knows what the first surfaced
            return
    pytest.fail("the second worker never answered")


# ----- two processes' worth of state, in-process: anti-repetition and the local-mode control ---------------


def _with_mode(settings: Settings, mode: str) -> Settings:
    return settings.model_copy(update={"deployment": settings.deployment.model_copy(update={"session_state": mode})})


@pytest.fixture
def pair(container: Container, request: pytest.FixtureRequest) -> Iterator[tuple[Container, Container]]:
    """Two containers on the same Neo4j: what two workers (or machines) are."""
    mode = request.param
    a, b = Container(_with_mode(container.settings, mode)), Container(_with_mode(container.settings, mode))
    yield a, b
    a.close()
    b.close()


def _recall_twice(container: Container, pair: tuple[Container, Container], tenant: str) -> tuple[float, float]:
    for text in ("I live in Chengdu and love spicy hotpot", "My sister Anna works as a nurse in Berlin",
                 "I play tennis every Saturday morning"):
        container.memories.remember(tenant, RememberRequest(user_id="alice", text=text, type="FACTUAL"))
    # naming no place or person: a memory holding a name the input says is not damped (ingest/repetition.py)
    ask = RecallRequest(user_id="alice", query="where can I eat spicy hotpot tonight?", session_id="s1")
    first = pair[0].recall.recall(tenant, ask)
    assert first.memories and first.memories[0].scores.damping == 1.0
    top = first.memories[0].memory.id
    second = pair[1].recall.recall(tenant, ask)
    return first.memories[0].scores.damping, next(m.scores.damping for m in second.memories if m.memory.id == top)


@pytest.mark.parametrize("pair", ["shared"], indirect=True)
def test_what_one_process_surfaced_is_damped_in_another(container: Container, pair: tuple[Container, Container],
                                                        tenant: str) -> None:
    first, second = _recall_twice(container, pair, tenant)
    assert first == 1.0 and second == pytest.approx(container.settings.recall.repeat_damping)


@pytest.mark.parametrize("pair", ["local"], indirect=True)
def test_control_local_state_is_not_shared(container: Container, pair: tuple[Container, Container],
                                           tenant: str) -> None:
    """Why shared: held in the process, two workers disagree on the same session."""
    first, second = _recall_twice(container, pair, tenant)
    assert first == 1.0 and second == 1.0  # the second process never saw the first recall
    a, b = pair
    scope = Scope(tenant, "carol")
    a.ingest.ingest_turn(tenant, TurnInput(user_id="carol", session_id="s1", speaker="user", text="I like tea"))
    assert [t.text for t in a.working_memory.recent(scope, "s1")] == ["I like tea"]
    b.ingest.ingest_turn(tenant, TurnInput(user_id="carol", session_id="s1", speaker="user", text="I like coffee"))
    assert [t.text for t in a.working_memory.recent(scope, "s1")] == ["I like tea"]  # stale in process a


@pytest.mark.parametrize("pair", ["shared"], indirect=True)
def test_shared_working_memory_is_current_in_both_processes(pair: tuple[Container, Container], tenant: str) -> None:
    a, b = pair
    scope = Scope(tenant, "carol")
    a.ingest.ingest_turn(tenant, TurnInput(user_id="carol", session_id="s1", speaker="user", text="I like tea"))
    assert [t.text for t in a.working_memory.recent(scope, "s1")] == ["I like tea"]
    b.ingest.ingest_turn(tenant, TurnInput(user_id="carol", session_id="s1", speaker="user", text="I like coffee"))
    assert [t.text for t in a.working_memory.recent(scope, "s1")] == ["I like tea", "I like coffee"]
    assert a.working_memory.stats().sessions == 0  # nothing held in the process


# ----- the shared tracker damps exactly like the in-process one (pure, with an in-memory history) ----------


class _History:
    """skip_leading_empty: as the store does (cypher/session/surfaced_extend.cypher), an empty turn never starts a
    history, so a recall for a user with nothing stored writes nothing; damping must not change for it."""

    def __init__(self, skip_leading_empty: bool = False) -> None:
        self.turns: dict[SessionKey, list[SurfacedTurn]] = {}
        self.skip_leading_empty = skip_leading_empty

    def load(self, key: SessionKey) -> list[SurfacedTurn]:
        return list(self.turns.get(key, []))

    def append(self, key: SessionKey, turn: SurfacedTurn, keep: int) -> None:
        if self.skip_leading_empty and not turn.ids and key not in self.turns:
            return
        self.turns[key] = [*self.turns.get(key, []), turn][-keep:]


_MEMORIES = [(f"m{i}", text) for i, text in enumerate(
    ["hotpot in Chengdu", "spicy hotpot again", "tennis on Saturday", "my sister in Berlin", "hotpot with friends"])]


@pytest.mark.parametrize("skip_leading_empty", [False, True])
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2"]), st.lists(st.integers(0, 4), max_size=3, unique=True),
                          st.sampled_from(["hotpot", "tennis", "Berlin"])), max_size=12))
def test_shared_tracker_damps_like_the_local_one(skip_leading_empty: bool,
                                                steps: list[tuple[str, list[int], str]]) -> None:
    params = RepetitionParams(window_turns=3, memory_damping=0.5, term_run=2, term_damping=0.7, dominance=0.5)
    local = RepetitionTracker(params)
    shared = SharedRepetitionTracker(params, _History(skip_leading_empty))
    for session, picked, query in steps:
        key = ("t", "alice", session)
        assert shared.damping(key, _MEMORIES, query) == local.damping(key, _MEMORIES, query)
        surfaced = [_MEMORIES[i] for i in picked]
        assert shared.record(key, surfaced) == local.record(key, surfaced)


def test_tracker_history_round_trips_through_neo4j(container: Container, tenant: str) -> None:
    from graph.session_state import SessionStateRepository
    from ingest.shared_session import StoreSurfacedHistory

    history = StoreSurfacedHistory(SessionStateRepository(container.store), container.clock.now)
    key = (tenant, "alice", "s1")
    turns = [SurfacedTurn(ids=frozenset({f"m{i}", "m9"}), dominant_terms=frozenset({"火锅", f"t{i}"}))
             for i in range(5)]
    for t in turns:
        history.append(key, t, keep=3)
    assert history.load(key) == turns[-3:]
    assert history.load((tenant, "alice", "other")) == [] and history.load((tenant, "bob", "s1")) == []
    container.erasure.forget_user(tenant, "alice", confirm=True)
    assert history.load(key) == []



def test_a_subscription_hears_the_changes_every_worker_makes(workers: BmamProcess, key: tuple[str, str]) -> None:
    """settings.deployment.events = "shared" (the default): a subscriber connected to one worker hears the memories
    stored through either, and through the CLI (bmam/event_relay.py). Before the relay it heard only its own
    worker's."""
    user = f"w-events-{uuid.uuid4().hex[:6]}"

    def remember(text: str) -> tuple[str, str]:
        client = BmamClient(ClientConfig(url=workers.url, api_key=key[1]))  # a fresh connection: either worker
        try:
            stored = client.remember(user, text)["id"]
            worker = client.served_by()
        finally:
            client.close()
        assert worker is not None
        return stored, worker

    async def run() -> tuple[dict[str, str], set[str]]:
        subscriber = AsyncBmamClient(ClientConfig(url=workers.url, api_key=key[1]))
        stream = subscriber.memory_events(user)
        heard: set[str] = set()
        waiting = asyncio.ensure_future(stream.__anext__())
        # The subscription registers asynchronously: probe until one probe is heard (from either worker).
        for i in range(100):
            await asyncio.to_thread(remember, f"probe number {i} about the weather")
            done, _ = await asyncio.wait({waiting}, timeout=0.5)
            if done:
                break
        assert waiting.done(), "the subscription never started"
        stored: dict[str, str] = {}  # memory id -> the worker that stored it
        deadline = time.monotonic() + 60
        while (len(set(stored.values())) < 2 or len(stored) < 4) and time.monotonic() < deadline:
            memory_id, worker = await asyncio.to_thread(remember, f"My friend number {len(stored)} lives in Lyon")
            stored[memory_id] = worker
        # and a change made by another process altogether: the CLI's, appended to the log when it ends
        printed = await asyncio.to_thread(CliRunner().invoke, app, ["remember", "-u", user, "--tenant", key[0],
                                                                    "My cousin teaches piano in Porto"])
        assert printed.exit_code == 0, printed.output
        stored[json.loads(printed.stdout)["id"]] = "the CLI"
        try:
            while not set(stored) <= heard:
                event = await asyncio.wait_for(stream.__anext__(), 20)
                heard.add(event["memoryId"])
        except TimeoutError:
            pass
        await unsubscribe(stream)
        await subscriber.close()
        return stored, heard

    stored, heard = asyncio.run(run())
    assert len(set(stored.values())) == 3, "one worker served every write: the test proves nothing"
    assert set(stored) <= heard, {memory_id: worker for memory_id, worker in stored.items() if memory_id not in heard}
