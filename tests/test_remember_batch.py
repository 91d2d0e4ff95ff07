"""remember_many_in (graph/memories.py) writes a batch of memories of mixed types with ONE memory/remember
statement (issue #3, ingest throughput), against the real Neo4j: each memory gets its own type label and no
other, a repeat changes nothing, an id of another user refuses the whole batch, and only new memories take
the user's next sequence numbers (graph/vector_cache.py catches up by them)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from bmam.container import Container
from graph.errors import NotFound
from graph.ids import new_memory_id
from graph.memories import StoredMemory
from graph.model import STORED_TYPES, MemoryType, NewMemory, Provenance, Scope, Tier
from graph.vector_cache import UserState, user_state

TYPE_LABELS = {t.label for t in MemoryType}


def unit(rng: np.random.Generator, dims: int) -> list[float]:
    v = rng.standard_normal(dims)
    return [float(x) for x in v / np.linalg.norm(v)]


def mixed_batch(c: Container, types: Sequence[MemoryType], seed: int) -> list[NewMemory]:
    rng = np.random.default_rng(seed)
    return [NewMemory(id=new_memory_id(), text=f"memory {i} of type {t.value.lower()}", type=t,
                      embedding=unit(rng, c.vector_dimensions), tier=Tier.CORE if i == 0 else Tier.TEMP,
                      provenance=Provenance(session_id="s1", turn=i, device_id="d1"))
            for i, t in enumerate(types)]


def remember(c: Container, scope: Scope, batch: Sequence[NewMemory]) -> list[StoredMemory]:
    """As ingest does: the batch inside the caller's write transaction, each memory with its own time."""
    start = c.clock.now()
    times = [start + timedelta(seconds=i) for i in range(len(batch))]
    return c.store.write_tx(lambda tx: c.memory_repository.remember_many_in(
        tx, scope, batch, now=times, passive=0.2, active=0.5))


@contextmanager
def statements_run(c: Container) -> Iterator[list[str]]:
    """The names of the statements the store runs meanwhile (the store's timer tells each one)."""
    names: list[str] = []

    def listen(name: str, _seconds: float) -> None:
        names.append(name)

    c.store.timer.listeners.append(listen)
    try:
        yield names
    finally:
        c.store.timer.listeners.remove(listen)


def snapshot(c: Container, scope: Scope) -> list[str]:
    """Every node of the user with its labels and properties (embeddings included), comparable as text."""
    rows = c.store.read("maintenance/snapshot", {"tenant": scope.tenant, "user_id": scope.user_id})[0]["nodes"]
    return sorted(json.dumps({"labels": sorted(r["labels"]), "props": r["props"]}, sort_keys=True, default=str)
                  for r in rows)


def memory_nodes(c: Container, scope: Scope) -> dict[str, dict[str, Any]]:
    """The user's Memory nodes by id: their labels and properties."""
    rows = c.store.read("maintenance/snapshot", {"tenant": scope.tenant, "user_id": scope.user_id})[0]["nodes"]
    return {r["props"]["id"]: {"labels": set(r["labels"]), **r["props"]} for r in rows if "Memory" in r["labels"]}


def state(c: Container, scope: Scope) -> UserState:
    """The user's state without the store-wide memory count (other tests may be writing meanwhile)."""
    return dataclasses.replace(c.store.read_tx(lambda tx: user_state(tx, scope)), total=0)


def test_a_mixed_batch_is_one_statement_with_one_label_per_memory(container: Container, scope: Scope) -> None:
    types = [MemoryType.SEMANTIC, MemoryType.FACTUAL, MemoryType.EMOTIONAL, MemoryType.FACTUAL,
             MemoryType.PROCEDURAL, MemoryType.EPISODIC, MemoryType.SEMANTIC]
    assert set(types) == set(STORED_TYPES)
    batch = mixed_batch(container, types, seed=1)
    with statements_run(container) as names:
        stored = remember(container, scope, batch)
    # before issue #3: one statement per type in the batch (5 here); now one for the batch
    assert names.count("memory/remember") == 1
    assert [s.memory.id for s in stored] == [n.id for n in batch]  # in input order
    assert all(s.created for s in stored)
    assert [s.memory.type for s in stored] == types
    assert [s.memory.text for s in stored] == [n.text for n in batch]
    assert stored[0].memory.locked and not any(s.memory.locked for s in stored[1:])
    assert [s.memory.provenance.turn for s in stored] == list(range(len(batch)))

    nodes = memory_nodes(container, scope)
    assert set(nodes) == {n.id for n in batch}
    for new in batch:
        node = nodes[new.id]
        # exactly its own type label, and only that one
        assert node["labels"] & TYPE_LABELS == {new.type.label}, node["labels"]
        assert node["labels"] == {"Memory", new.type.label}
        assert node["type"] == new.type.value
        assert node["embedding"] == pytest.approx(new.embedding, abs=1e-6)
        # and read back through the repository as the memory it is
        got = container.memory_repository.get(scope, new.id)
        assert got is not None and got.type is new.type and got.text == new.text
    # each type's label finds exactly that type's memories
    for t in STORED_TYPES:
        page = container.memory_repository.page(scope, types=[t], limit=50)
        assert {m.id for m in page.items} == {n.id for n in batch if n.type is t}


def test_a_repeat_changes_nothing(container: Container, scope: Scope) -> None:
    batch = mixed_batch(container, [MemoryType.FACTUAL, MemoryType.EPISODIC, MemoryType.SEMANTIC], seed=2)
    first = remember(container, scope, batch)
    before, seq_before = snapshot(container, scope), state(container, scope)
    with statements_run(container) as names:
        again = remember(container, scope, batch)  # a later time, the same ids
    assert names.count("memory/remember") == 1
    assert [s.created for s in again] == [False] * len(batch)
    assert [s.memory for s in again] == [s.memory for s in first]
    assert snapshot(container, scope) == before
    assert state(container, scope) == seq_before


def test_a_repeat_with_another_type_keeps_the_memorys_type_and_label(container: Container, scope: Scope) -> None:
    [new] = mixed_batch(container, [MemoryType.FACTUAL], seed=4)
    remember(container, scope, [new])
    again = dataclasses.replace(new, type=MemoryType.EMOTIONAL)
    [stored] = remember(container, scope, [again])
    assert not stored.created and stored.memory.type is MemoryType.FACTUAL
    assert memory_nodes(container, scope)[new.id]["labels"] == {"Memory", "Factual"}


def test_an_id_given_twice_in_one_batch_is_created_once(container: Container, scope: Scope) -> None:
    [new] = mixed_batch(container, [MemoryType.FACTUAL], seed=3)
    stored = remember(container, scope, [new, new])
    assert [s.created for s in stored] == [True, False]
    assert stored[0].memory.id == stored[1].memory.id == new.id
    assert state(container, scope).mine == 1 and state(container, scope).seq == 1


def test_a_foreign_id_refuses_the_whole_batch(container: Container, tenant: str) -> None:
    alice, bob, other_app = Scope(tenant, "alice"), Scope(tenant, "bob"), Scope(tenant + "-x", "alice")
    [bobs] = remember(container, bob, mixed_batch(container, [MemoryType.EMOTIONAL], seed=4))
    [others] = remember(container, other_app, mixed_batch(container, [MemoryType.PROCEDURAL], seed=5))
    bob_before, other_before = snapshot(container, bob), snapshot(container, other_app)
    for foreign in (bobs.memory, others.memory):
        mine = mixed_batch(container, [MemoryType.FACTUAL, MemoryType.SEMANTIC, MemoryType.EPISODIC], seed=6)
        # alice's own memories around an id of bob's (or of the same user id in another app), typed otherwise
        batch = [mine[0], NewMemory(id=foreign.id, text="taken over", type=MemoryType.FACTUAL,
                                    embedding=mine[1].embedding), mine[2]]
        with statements_run(container) as names, pytest.raises(NotFound) as refused:
            remember(container, alice, batch)
        assert names.count("memory/remember") == 1
        assert foreign.id in str(refused.value) and "bob" not in str(refused.value)
        # nothing of the batch was written: no memory, no User node, no sequence number
        assert snapshot(container, alice) == []
        assert state(container, alice) == UserState(mine=0, total=state(container, alice).total, seq=0, epoch=None)
        for new in mine:
            assert container.memory_repository.get(alice, new.id) is None
    # the foreign memories are untouched (no Factual label added, no text, no edge to alice)
    assert snapshot(container, bob) == bob_before
    assert snapshot(container, other_app) == other_before
    assert memory_nodes(container, bob)[bobs.memory.id]["labels"] == {"Memory", "Emotional"}


def test_only_new_memories_take_sequence_numbers(container: Container, scope: Scope) -> None:
    first = mixed_batch(container, [MemoryType.FACTUAL, MemoryType.SEMANTIC, MemoryType.EMOTIONAL], seed=7)
    remember(container, scope, first)
    after_first = state(container, scope)
    seqs = {i: n["seq"] for i, n in memory_nodes(container, scope).items()}
    assert after_first.mine == 3 and after_first.epoch is not None
    assert set(seqs) == {n.id for n in first}
    assert all(isinstance(s, int) and 1 <= s <= after_first.seq for s in seqs.values())

    fresh = mixed_batch(container, [MemoryType.PROCEDURAL, MemoryType.FACTUAL], seed=8)
    # repeats and new memories interleaved, of mixed types: one statement still
    batch = [first[0], fresh[0], first[2], fresh[1]]
    with statements_run(container) as names:
        stored = remember(container, scope, batch)
    assert names.count("memory/remember") == 1
    assert [s.created for s in stored] == [False, True, False, True]
    after = state(container, scope)
    assert after.epoch == after_first.epoch and after.mine == 5
    assert after_first.seq < after.seq <= after_first.seq + len(fresh)
    nodes = memory_nodes(container, scope)
    # the repeats keep their numbers; the new ones are numbered above everything held before
    assert {i: nodes[i]["seq"] for i in seqs} == seqs
    for new in fresh:
        assert after_first.seq < nodes[new.id]["seq"] <= after.seq
    # what the vector cache reads to catch up from after_first.seq is exactly the new memories
    rows = container.store.read("recall/user_vectors", {
        "tenant": scope.tenant, "user_id": scope.user_id, "after_seq": after_first.seq, "after_id": None,
        "limit": 100})
    assert {r["id"] for r in rows} == {n.id for n in fresh}
