"""The plan warm-up (bmam/usecases/warm_up.py) against the real Neo4j: it runs recall's and relatedSearch's real
statements, and a rehearsed recall leaves nothing behind (no usage, no strengthened association)."""

from __future__ import annotations

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from bmam.usecases.warm_up import REHEARSED_QUESTIONS
from graph.model import Memory, Scope


def _remember(c: Container, scope: Scope, text: str) -> Memory:
    return c.memories.remember(scope.tenant, RememberRequest(user_id=scope.user_id, text=text, type="FACTUAL"))


def _state(c: Container, scope: Scope, memories: list[Memory]) -> list[tuple[int, float, list[float]]]:
    """Each memory's recall count, weight and association strengths, as stored."""
    out = []
    for m in memories:
        got = c.memories.get(scope.tenant, scope.user_id, m.id)
        assert got is not None
        strengths = sorted(a.strength for a in c.memories.associations(scope.tenant, scope.user_id, m.id))
        out.append((got.recall_count, got.weight.final, strengths))
    return out


def test_rehearsals_run_the_real_statements_and_leave_no_trace(container: Container, scope: Scope) -> None:
    c = container
    memories = [_remember(c, scope, text) for text in (
        "I usually drink green tea in the morning", "My name is Lin Wei", "我平时喜欢周末去爬山",
        "Green tea tastes best without sugar")]
    c.memories.associate(scope.tenant, scope.user_id, memories[0].id, memories[3].id, 0.6)
    c.memories.associate(scope.tenant, scope.user_id, memories[0].id, memories[1].id, 0.3)
    before = _state(c, scope, memories)
    timer = c.store.timer
    ran_before = dict(timer.by_statement)

    report = c.plan_warm_up.run((scope, memories[0].id))

    assert report.user == f"{scope.tenant}/{scope.user_id}"
    assert report.recalls == 2 * len(REHEARSED_QUESTIONS) and report.related_depths == 5
    grown = {name for name, seconds in timer.by_statement.items() if seconds > ran_before.get(name, 0.0)}
    # the cached recall's read, the usage write of what it chose, and the traversal: the statements requests run
    assert {"recall/rows_checked", "related/search"} <= grown
    assert {"recall/use", "recall/touch"} & grown
    assert _state(c, scope, memories) == before  # rolled back: no recall counted, no weight or strength moved

    # the same question recalled for real is recorded (what the rehearsal would have written)
    result = c.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query="What is my name?", k=5))
    assert result.memories
    recalled = {r.memory.id for r in result.memories}
    after = _state(c, scope, memories)
    assert all(after[i][0] == 1 for i, m in enumerate(memories) if m.id in recalled)


def test_the_store_names_a_subject_with_memories(container: Container, scope: Scope) -> None:
    _remember(container, scope, "I keep bees on the roof")
    subject = container.recall.rehearsal_subject()
    assert subject is not None  # the store holds at least this memory
    named, memory_id = subject
    assert container.memories.get(named.tenant, named.user_id, memory_id) is not None
