"""Properties of maintenance against the real store, over generated graphs (duplicates, locked and safety
memories, emotional ones, associations, triples, time passing): a run never removes or changes a locked
memory, and undoing it restores the user's graph exactly (nodes, edges, properties, embeddings)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bmam.clock import FakeClock
from bmam.container import Container
from graph.changesets import encode_props
from graph.ids import new_memory_id
from graph.model import MemoryType, NewMemory, PresetKind, Scope, Tier
from graph.store import Row
from tests.test_maintenance import canonical, user_graph

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

memory_spec = st.fixed_dictionaries({
    "dup_of": st.one_of(st.none(), st.just(0), st.just(1), st.integers(0, 7)),
    "same_kind": st.sampled_from([True, True, True, False]),  # a duplicate of the same type and preset kind
    "locked": st.sampled_from([False, False, True]),
    "passive": st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]),
    "active": st.sampled_from([0.0, 0.1, 0.5, 0.7, 1.0]),
    "type": st.sampled_from([MemoryType.FACTUAL, MemoryType.FACTUAL, MemoryType.EMOTIONAL]),
    "preset": st.sampled_from([PresetKind.DEFAULT, PresetKind.DEFAULT, PresetKind.SAFETY, PresetKind.TEMPORARY]),
    "likes": st.one_of(st.none(), st.tuples(st.sampled_from(["tea", "cats", "jazz"]), st.sampled_from([1, -1]))),
})
graphs = st.fixed_dictionaries({
    "memories": st.lists(memory_spec, min_size=2, max_size=8),
    "links": st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from([0.3, 0.6, 0.9])), max_size=6),
    "days": st.integers(0, 60),
    "kind": st.sampled_from(["FULL", "REBALANCE", "DECAY"]),
    "seed": st.integers(0, 2**16),
})


def locked_nodes(graph: Row) -> dict[str, str]:
    return {r["props"]["id"]: json.dumps([sorted(r["labels"]), encode_props(r["props"])], sort_keys=True)
            for r in graph["nodes"] if "Memory" in r["labels"] and r["props"].get("locked")}


def build(c: Container, scope: Scope, graph: dict[str, Any]) -> None:
    rng = np.random.default_rng(graph["seed"])
    dims = c.vector_dimensions
    vectors: list[np.ndarray] = []
    ids: list[str] = []
    specs = graph["memories"]
    for i, spec in enumerate(specs):
        source = spec["dup_of"]
        if source is not None and source < i and spec["same_kind"]:
            spec = {**spec, "type": specs[source]["type"], "preset": specs[source]["preset"]}
        if source is not None and source < i:
            v = vectors[source] + rng.normal(size=dims) * 0.005  # a near-duplicate (cosine ~0.99)
        else:
            v = rng.normal(size=dims)
        v = v / np.linalg.norm(v)
        vectors.append(v)
        preset = {PresetKind.SAFETY: 1.0, PresetKind.TEMPORARY: 0.3}.get(spec["preset"], 0.5)
        text = f"memory {source if source is not None and source < i else i}" + (" again" if i else "")
        new = NewMemory(id=new_memory_id(), text=text, type=spec["type"], embedding=[float(x) for x in v],
                        tier=Tier.CORE if spec["locked"] else Tier.TEMP, preset_kind=spec["preset"], preset=preset)
        m = c.memory_repository.remember(scope, new, now=c.clock.now(), passive=spec["passive"],
                                         active=spec["active"]).memory
        ids.append(m.id)
        if spec["likes"]:
            obj, polarity = spec["likes"]
            c.memories.add_triple(scope.tenant, scope.user_id, memory_id=m.id, subject="user", predicate="likes",
                                  object_=obj, polarity=polarity)
    # links among live memories only: one a later "likes" superseded is history, which associate refuses
    live = {m.id for m in c.memories.page(scope.tenant, scope.user_id, first=100).items}
    for a, b, strength in graph["links"]:
        if a < len(ids) and b < len(ids) and a != b and ids[a] in live and ids[b] in live:
            c.memories.associate(scope.tenant, scope.user_id, ids[a], ids[b], strength)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs)
def test_locked_memories_are_never_touched_and_undo_restores_exactly(container: Container,
                                                                      graph: dict[str, Any]) -> None:
    clock = FakeClock(START)
    c = Container(container.settings, clock=clock)
    c.__dict__["store"] = container.store
    c.__dict__["embedder"] = container.embedder
    c.__dict__["maintenance_store"] = container.maintenance_store
    scope = Scope(f"test-{uuid.uuid4().hex[:12]}", "prop")
    build(c, scope, graph)
    clock.advance(timedelta(days=graph["days"]))
    graph_before = user_graph(c, scope)
    before = canonical(graph_before)
    locked_before = locked_nodes(graph_before)

    result = c.maintenance.run(scope.tenant, graph["kind"], user_id=scope.user_id)
    assert result.changeset is not None
    assert locked_nodes(user_graph(c, scope)) == locked_before  # never removed, never changed
    touched = {mid for m in result.changeset.merged for mid in (m.survivor_id, *m.merged_ids)}
    touched |= set(result.changeset.purged) | set(result.changeset.damped) | set(result.changeset.lifted)
    assert not touched & set(locked_before)
    event(f"merged: {bool(result.changeset.merged)}, purged: {bool(result.changeset.purged)}, "
          f"damped or lifted: {bool(result.changeset.damped or result.changeset.lifted)}")

    c.maintenance.undo(scope.tenant, result.changeset.id)
    assert canonical(user_graph(c, scope)) == before
