"""Fewer statements for the stored-memory hooks of an ingest batch, the same graph: a hook may hand its part of a
segment, unrun, to the next hook (run_hooks: association forming's part goes in the statement that settles the
segment's last memory, conflict/form_settle_many), and the look-ahead of the batch's settlements (conflict/foresee)
is read once for all of them. Both ways against the ways without (real Neo4j)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import pytest

import bmam.usecases.hooks as hooks_module
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.conflicts import ConflictUseCases
from bmam.usecases.hooks import StoredMemoryContext, run_hooks
from graph.model import Scope
from tests.store_support import NumberingStore
from tests.test_hooks_batch import FIRST, SECOND, T0, InTx, canonical, ctx, turns

log = logging.getLogger(__name__)


# ----- run_hooks (pure) ---------------------------------------------------------------------------------


class Written:
    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls

    def run_in(self, tx: Any) -> object:
        self.calls.append(f"{self.name} written@{tx}")
        return None


class Deferring(InTx):
    def defer_in(self, tx: Any, contexts: Sequence[StoredMemoryContext]) -> list[Written]:
        ids = ",".join(c.memory.id for c in contexts)
        self.calls.append(f"{self.name} deferred@{tx}:{ids}")
        return [Written(f"{self.name}:{ids}", self.calls)]


class Carrying(InTx):
    def many_in_after(self, tx: Any, contexts: Sequence[StoredMemoryContext], before: Sequence[Any]
                      ) -> list[Callable[[], None]]:
        for deferred in before:
            deferred.run_in(tx)
        return self.many_in(tx, contexts)


def test_run_hooks_hands_a_deferring_hooks_part_to_the_carrying_hook_after_it(
        numbering: Callable[[list[str]], NumberingStore]) -> None:
    calls: list[str] = []
    hooks = [Deferring("assoc", calls, set()), Carrying("conflicts", calls, {"m1"})]
    run_hooks(hooks, [ctx(i) for i in range(3)], log, store=numbering(calls))
    assert calls == ["assoc deferred@tx1:m0,m1", "assoc:m0,m1 written@tx1", "conflicts@tx1:m0,m1",
                     "assoc deferred@tx1:m2", "assoc:m2 written@tx1", "conflicts@tx1:m2", "commit tx1",
                     "conflicts after commit:m0,m1", "conflicts after commit:m2"]


def test_run_hooks_runs_a_deferring_hook_itself_when_the_next_one_does_not_carry(
        numbering: Callable[[list[str]], NumberingStore]) -> None:
    calls: list[str] = []
    hooks = [Deferring("assoc", calls, set()), InTx("conflicts", calls, set()), Deferring("last", calls, set())]
    run_hooks(hooks, [ctx(0)], log, store=numbering(calls))
    assert calls == ["assoc@tx1:m0", "conflicts@tx1:m0", "last@tx1:m0", "commit tx1", "assoc after commit:m0",
                     "conflicts after commit:m0", "last after commit:m0"]


# ----- the graph, with and without (real Neo4j) -----------------------------------------------------------


@runtime_checkable
class _Nothing(Protocol):
    def _no_hook_has_this(self) -> None: ...


def test_fused_hooks_and_one_look_ahead_leave_the_graph_the_separate_statements_leave(
        settings: Settings, tenant: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same tenant and user for both (ids derive from them): the first graph is erased before the second."""
    scope = Scope(tenant, "alice")
    settings = settings.model_copy(update={"recall": settings.recall.model_copy(update={"term_link_min_memories": 3})})
    results = []
    for variant in ("fused", "separate"):
        c = Container(settings, clock=FakeClock(T0))
        ran: list[str] = []

        def listen(name: str, _: float, ran: list[str] = ran) -> None:
            ran.append(name)

        c.store.timer.listeners.append(listen)
        with monkeypatch.context() as patch:
            if variant == "separate":  # association forming runs its own statement; each settlement foresees its own
                patch.setattr(hooks_module, "TxDeferringHook", _Nothing)
                patch.setattr(ConflictUseCases, "_foresee", lambda *args, **kwargs: None)
            try:
                with caplog.at_level(logging.INFO, logger="bmam.usecases.ingest"):
                    c.ingest.ingest_indexed(tenant, turns(FIRST, 0))
                    c.ingest.ingest_indexed(tenant, turns(SECOND, len(FIRST)))
                assert "did not go through" not in caplog.text  # nothing fell back to hook by hook
                graph = canonical(c, scope)
                conflicts = c.conflicts.conflicts(tenant, "alice", status=None, first=100)
                c.erasure.forget_user(tenant, "alice", confirm=True)
            finally:
                c.close()
        assert sum(x.status.value == "RESOLVED" for x in conflicts) >= 4, variant
        results.append((graph, sorted((x.kind.value, x.status.value, x.reason) for x in conflicts), ran))
    (fused_graph, fused_conflicts, fused_ran), (separate_graph, separate_conflicts, separate_ran) = results
    assert fused_graph == separate_graph
    assert fused_conflicts == separate_conflicts
    # the script does exercise both: settlements with associations formed in their statement, fewer look-aheads
    assert fused_ran.count("conflict/form_settle_many") >= 3 and "conflict/form_settle_many" not in separate_ran
    assert fused_ran.count("association/form_many") + fused_ran.count("conflict/form_settle_many") == \
        separate_ran.count("association/form_many")
    assert fused_ran.count("conflict/foresee") < separate_ran.count("conflict/foresee")
    assert len(fused_ran) < len(separate_ran)
