"""Batch-aware stored-memory hooks: run_hooks keeps the per-memory order (pure; its transactions real ones),
and ingest with the batch hooks (association forming and conflict detection a segment at a time) leaves
exactly the graph the per-memory hooks leave, conflicts inside a batch and against older memories included
(real Neo4j)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.hooks import StoredMemoryContext, run_hooks
from graph.episodes import EpisodeRepository
from graph.model import ClassifierLevel, Memory, MemoryType, PresetKind, Provenance, Scope, Tier, WeightParts
from ingest.turns import TurnInput
from tests.store_support import NumberingStore

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
log = logging.getLogger(__name__)


# ----- run_hooks (pure) ---------------------------------------------------------------------------


def ctx(i: int) -> StoredMemoryContext:
    memory = Memory(id=f"m{i}", tenant="t", user_id="u", text=f"text {i}", type=MemoryType.FACTUAL,
                    tier=Tier.TEMP, weight=WeightParts(passive=0.5, active=0.5, preset=0.5, final=0.5),
                    preset_kind=PresetKind.DEFAULT, locked=False, created_at=T0, last_recalled_at=None,
                    last_mentioned_at=None, recall_count=0, mention_count=1, classified_by=ClassifierLevel.RULE,
                    confidence=1.0, provenance=Provenance(), valid_from=T0)
    return StoredMemoryContext(scope=Scope("t", "u"), memory=memory, triples=[], embedding=[])


class Batch:
    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls

    def __call__(self, context: StoredMemoryContext) -> None:
        self.calls.append(f"{self.name}:{context.memory.id}")

    def many(self, contexts: Sequence[StoredMemoryContext]) -> None:
        self.calls.append(f"{self.name}:" + ",".join(c.memory.id for c in contexts))


class Segmenting(Batch):
    """Writes something the others read when it handles one of `writes_on`."""

    def __init__(self, name: str, calls: list[str], writes_on: set[str]) -> None:
        super().__init__(name, calls)
        self.writes_on = writes_on

    def segment(self, contexts: Sequence[StoredMemoryContext]) -> int:
        return next((i + 1 for i, c in enumerate(contexts) if c.memory.id in self.writes_on), len(contexts))


def test_run_hooks_hands_segments_over_up_to_each_writing_memory() -> None:
    calls: list[str] = []
    hooks = [Batch("assoc", calls), Segmenting("conflicts", calls, {"m1", "m4"}), Batch("other", calls)]
    run_hooks(hooks, [ctx(i) for i in range(6)], log)
    assert calls == [
        "assoc:m0,m1", "conflicts:m0,m1", "other:m0,m1",
        "assoc:m2,m3,m4", "conflicts:m2,m3,m4", "other:m2,m3,m4",
        "assoc:m5", "conflicts:m5", "other:m5",
    ]


def test_run_hooks_with_a_plain_hook_keeps_the_per_memory_order() -> None:
    calls: list[str] = []

    def plain(context: StoredMemoryContext) -> None:
        calls.append(f"plain:{context.memory.id}")

    run_hooks([Batch("assoc", calls), plain, Segmenting("conflicts", calls, set())], [ctx(0), ctx(1)], log)
    assert calls == ["assoc:m0", "plain:m0", "conflicts:m0", "assoc:m1", "plain:m1", "conflicts:m1"]


def test_run_hooks_goes_on_after_a_failing_hook_and_a_failing_segment() -> None:
    calls: list[str] = []

    class Broken(Batch):
        def many(self, contexts: Sequence[StoredMemoryContext]) -> None:
            raise RuntimeError("boom")

        def segment(self, contexts: Sequence[StoredMemoryContext]) -> int:
            raise RuntimeError("boom")

    run_hooks([Broken("broken", calls), Batch("after", calls)], [ctx(0), ctx(1)], log)
    assert calls == ["after:m0", "after:m1"]  # a segment that fails: one memory at a time


class InTx(Segmenting):
    """A hook that can also run inside a given transaction: records which transaction each call ran in."""

    def __init__(self, name: str, calls: list[str], writes_on: set[str], fail_in_tx: bool = False) -> None:
        super().__init__(name, calls, writes_on)
        self.fail_in_tx = fail_in_tx

    def segment_in(self, tx: Any, contexts: Sequence[StoredMemoryContext]) -> int:
        return self.segment(contexts)

    def many_in(self, tx: Any, contexts: Sequence[StoredMemoryContext]) -> list[Callable[[], None]]:
        if self.fail_in_tx:
            raise RuntimeError("boom")
        ids = ",".join(c.memory.id for c in contexts)
        self.calls.append(f"{self.name}@{tx}:{ids}")
        return [lambda: self.calls.append(f"{self.name} after commit:{ids}")]


def test_run_hooks_given_the_store_runs_every_segment_in_one_transaction(
        numbering: Callable[[list[str]], NumberingStore]) -> None:
    calls: list[str] = []
    hooks = [InTx("assoc", calls, set()), InTx("conflicts", calls, {"m1"})]
    run_hooks(hooks, [ctx(i) for i in range(3)], log, store=numbering(calls))
    assert calls == ["assoc@tx1:m0,m1", "conflicts@tx1:m0,m1", "assoc@tx1:m2", "conflicts@tx1:m2", "commit tx1",
                     "assoc after commit:m0,m1", "conflicts after commit:m0,m1", "assoc after commit:m2",
                     "conflicts after commit:m2"]


def test_run_hooks_in_one_transaction_falls_back_to_a_transaction_per_hook_when_it_fails(
        numbering: Callable[[list[str]], NumberingStore]) -> None:
    """Rolled back (nothing after commit runs, no commit), then hook by hook: the failing hook logged, the other
    kept."""
    calls: list[str] = []
    hooks = [InTx("assoc", calls, set()), InTx("conflicts", calls, {"m0"}, fail_in_tx=True)]
    run_hooks(hooks, [ctx(0), ctx(1)], log, store=numbering(calls))
    assert calls == ["assoc@tx1:m0", "assoc:m0", "conflicts:m0", "assoc:m1", "conflicts:m1"]


def test_run_hooks_with_a_hook_that_cannot_take_a_transaction_does_not_use_one(
        numbering: Callable[[list[str]], NumberingStore]) -> None:
    calls: list[str] = []
    run_hooks([InTx("assoc", calls, set()), Segmenting("conflicts", calls, set())], [ctx(0), ctx(1)], log,
              store=numbering(calls))
    assert calls == ["assoc:m0,m1", "conflicts:m0,m1"]


# ----- the graph, batch against one by one (real Neo4j) ---------------------------------------------


def turns(texts: Sequence[str], start: int) -> list[TurnInput]:
    # seconds apart: the clock stands at T0, and a turn more than 10 minutes ahead of it is refused (a minute apart,
    # the 11th turn on was)
    return [TurnInput(user_id="alice", session_id="s1", speaker="user", text=t, turn=start + i,
                      at=T0 + timedelta(seconds=start + i)) for i, t in enumerate(texts)]


FIRST = ["I live in Berlin", "My sister's name is Anna", "I work at Siemens as an engineer", "I love sushi",
         "Anna visited me in Berlin last summer", "我住在成都，最喜欢吃火锅"]
SECOND = ["I live in London now", "I don't love sushi", "Anna works at Siemens too", "我住在北京",
          "I live in Paris", "My sister Anna loves sushi", "我在腾讯工作", "我在阿里巴巴工作",
          "Last summer I went to Tokyo with Anna", "I play the piano every day with Anna",
          "I photographed a quokka on Rottnest last year", "My favourite animal is the quokka from Rottnest",
          # rare words that name nothing the graph knows (Anna, Siemens and Berlin are entities: their memories are
          # linked through them, mentioned by name where no triple says them)
          "I started learning the theremin", "The theremin sounds spooky", "我最近在学尤克里里", "尤克里里的弦断了"]


def canonical(c: Container, scope: Scope) -> tuple[list[str], list[str]]:
    """The user's whole graph with ids, tenant and embeddings replaced by what they stand for (the user's
    memory_epoch, a random stamp for recall's vector cache, and scope_token, a random one for the full-text
    index, left out)."""
    nodes, edges = EpisodeRepository(c.store, c.vector_dimensions).dump(scope)
    parsed = [json.loads(n) for n in nodes]
    token: dict[str, str] = {scope.tenant: "<tenant>"}
    for n in parsed:
        p = n["props"]
        if "Memory" in n["labels"]:
            token[p["id"]] = f"M[{p['text']}]"
        elif "Entity" in n["labels"]:
            token[p["id"]] = f"E[{p.get('name')}|{p.get('kind')}]"
        elif "Episode" in n["labels"]:
            token[p["id"]] = f"Ep[{p.get('session_id')}/{p.get('turn')}]"

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()
                    if k not in ("embedding", "id", "memory_epoch", "scope_token")}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return token.get(value, value) if isinstance(value, str) else value

    for n in parsed:  # the other nodes (conflicts, sessions, the user) by their other properties
        p = n["props"]
        if "id" in p and p["id"] not in token:
            token[p["id"]] = json.dumps([n["labels"], plain(p)], sort_keys=True, ensure_ascii=False)
    node_lines = sorted(json.dumps([n["labels"], plain(n["props"])], sort_keys=True, ensure_ascii=False)
                        for n in parsed)
    edge_lines = sorted(json.dumps(plain(json.loads(e)), sort_keys=True, ensure_ascii=False) for e in edges)
    return node_lines, edge_lines


def test_batch_hooks_leave_the_graph_the_per_memory_hooks_leave(settings: Settings, tenant: str,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Same tenant and user for both (ids, and so the order of candidate facts, derive from them): the first
    graph is erased before the second is built. The batch hooks run in one transaction per batch."""
    graphs = []
    scope = Scope(tenant, "alice")
    # rare-term links from the third memory on (by default only from the 20th), so both statements form edges
    settings = settings.model_copy(update={"recall": settings.recall.model_copy(update={"term_link_min_memories": 3})})
    for variant in ("batch", "one by one"):
        c = Container(settings, clock=FakeClock(T0))
        try:
            hooks = list(c.stored_memory_hooks)
            if variant == "one by one":  # plain callables: run_hooks hands each memory through all hooks in turn
                c.stored_memory_hooks[:] = [lambda context, h=h: h(context) for h in hooks]
            transactions = [0]
            write_tx = c.store.write_tx

            def counted(work: Callable[[Any], Any], write_tx: Callable[..., Any] = write_tx,
                        transactions: list[int] = transactions, **options: Any) -> Any:
                transactions[0] += 1
                return write_tx(work, **options)

            c.store.write_tx = counted  # type: ignore[method-assign]
            # the remains of each loser are looked for after the settlement commits, in transactions of their own
            remains_transactions = [0]
            keep = c.remains.keep_many

            def counted_keep(*args: Any, keep: Callable[..., Any] = keep, transactions: list[int] = transactions,
                             remains_transactions: list[int] = remains_transactions, **kwargs: Any) -> Any:
                before = transactions[0]
                try:
                    return keep(*args, **kwargs)
                finally:
                    remains_transactions[0] += transactions[0] - before

            c.remains.keep_many = counted_keep  # type: ignore[method-assign]
            with caplog.at_level(logging.INFO, logger="bmam.usecases.ingest"):
                c.ingest.ingest_indexed(tenant, turns(FIRST, 0))
                c.ingest.ingest_indexed(tenant, turns(SECOND, len(FIRST)))
            if variant == "batch":  # the ingest's own and one for the hooks, per batch: nothing fell back
                assert transactions[0] - remains_transactions[0] == 4
                assert "did not go through" not in caplog.text
            else:
                assert transactions[0] > 10
            graphs.append(canonical(c, scope))
            conflicts = c.conflicts.conflicts(tenant, "alice", status=None, first=100)
            c.erasure.forget_user(tenant, "alice", confirm=True)
        finally:
            c.close()
        # the corpus does exercise both hooks: conflicts settled in a batch and across, associations
        assert sum(x.status.value == "RESOLVED" for x in conflicts) >= 4, variant
        formed_by = [e.split('"formed_by": ')[1][:9] for e in graphs[-1][1] if '"ASSOCIATED"' in e and "formed_by" in e]
        # (entity links are few: the user themself, in every "I ..." memory, links nothing)
        assert formed_by.count('"stored",') >= 1 and formed_by.count('"terms", ') >= 2, (variant, formed_by)
    (batch_nodes, batch_edges), (one_nodes, one_edges) = graphs
    assert batch_nodes == one_nodes
    assert batch_edges == one_edges


def test_term_links_through_the_full_text_index_are_the_links_of_the_scan(settings: Settings, tenant: str) -> None:
    """A user above term_link_scan_max has its rare-term partners found through the full-text index (its own
    hits, association/form_many) instead of a scan of its memories: the same edges either way."""
    scope = Scope(tenant, "alice")
    edges = {}
    for scan_max in (2000, 0):
        recall = settings.recall.model_copy(update={"term_link_min_memories": 3, "term_link_scan_max": scan_max})
        c = Container(settings.model_copy(update={"recall": recall}), clock=FakeClock(T0))
        try:
            c.ingest.ingest_indexed(tenant, turns(FIRST, 0))
            c.ingest.ingest_indexed(tenant, turns(SECOND, len(FIRST)))
            edges[scan_max] = sorted(e for e in canonical(c, scope)[1] if '"terms"' in e)
            c.erasure.forget_user(tenant, "alice", confirm=True)
        finally:
            c.close()
    assert len(edges[2000]) >= 2
    assert edges[0] == edges[2000]
