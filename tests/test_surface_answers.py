"""The answers each memory operation gives on every surface (GraphQL, CLI, `bmam remote`, MCP): what a read
leaves in the store, no-ops named as such, input checked before the memory's state, one code per kind of bad
input. Found by the surface audit (defects D6-D13); storage on the real Neo4j."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.erasure import ErasureRepository
from graph.model import Scope
from graph.session_state import SessionStateRepository
from ingest.repetition import RepetitionParams, RepetitionTracker, SessionKey, SurfacedTurn
from ingest.shared_session import SharedRepetitionTracker

# ----- D6: a read for a user with nothing stored writes nothing ---------------------------------------------


def test_a_recall_or_context_prompt_with_a_session_for_an_unknown_user_writes_nothing(container: Container,
                                                                                    tenant: str) -> None:
    scope = Scope(tenant, "phantom")
    result = container.recall.recall(tenant, RecallRequest(user_id="phantom", query="tea", session_id="x"))
    assert result.gated and not result.memories
    container.recall.context_prompt(tenant, "phantom", "x", "Tell me about my family")
    assert ErasureRepository(container.store).remaining(scope) == (0, 0)


def test_a_session_that_surfaced_something_keeps_every_later_turn(container: Container, tenant: str) -> None:
    """The control: once a recall surfaced a memory, the session's history exists and a later turn that
    surfaced nothing is still one turn of it (it pushes the older turns towards the window's end)."""
    container.memories.remember(tenant, RememberRequest(user_id="alice", text="I love spicy hotpot in Chengdu",
                                                        type="FACTUAL"))
    first = container.recall.recall(tenant, RecallRequest(user_id="alice", query="spicy hotpot", session_id="s1"))
    assert first.memories
    gated = container.recall.recall(tenant, RecallRequest(user_id="alice", query="quantum chromodynamics lecture",
                                                          session_id="s1"))
    assert not gated.memories
    turns = SessionStateRepository(container.store).surfaced(Scope(tenant, "alice"), "s1")
    assert [ids for ids, _ in turns] == [[first.memories[0].memory.id], []]


class _HistorySkippingLeadingEmptyTurns:
    """What the store does (cypher/session/surfaced_extend.cypher): an empty turn never starts a history."""

    def __init__(self) -> None:
        self.turns: dict[SessionKey, list[SurfacedTurn]] = {}

    def load(self, key: SessionKey) -> list[SurfacedTurn]:
        return list(self.turns.get(key, []))

    def append(self, key: SessionKey, turn: SurfacedTurn, keep: int) -> None:
        if turn.ids or key in self.turns:
            self.turns[key] = [*self.turns.get(key, []), turn][-keep:]


_MEMORIES = [(f"m{i}", text) for i, text in enumerate(
    ["hotpot in Chengdu", "spicy hotpot again", "tennis on Saturday", "my sister in Berlin", "hotpot with friends"])]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2"]), st.lists(st.integers(0, 4), max_size=3, unique=True),
                          st.sampled_from(["hotpot", "tennis", "Berlin"])), max_size=12))
def test_skipping_a_leading_empty_turn_damps_exactly_the_same(steps: list[tuple[str, list[int], str]]) -> None:
    params = RepetitionParams(window_turns=3, memory_damping=0.5, term_run=2, term_damping=0.7, dominance=0.5)
    local, shared = RepetitionTracker(params), SharedRepetitionTracker(params, _HistorySkippingLeadingEmptyTurns())
    for session, picked, query in steps:
        key = ("t", "alice", session)
        assert shared.damping(key, _MEMORIES, query) == local.damping(key, _MEMORIES, query)
        surfaced = [_MEMORIES[i] for i in picked]
        shared.record(key, surfaced)
        local.record(key, surfaced)
