"""Hooks run after a memory is stored (conflict detection, association forming), so the ingest
pipeline does not need to know every feature that reacts to a new memory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from graph.model import Memory, Scope, Triple


@dataclass(frozen=True, slots=True)
class StoredMemoryContext:
    """What a hook may look at: the new memory, its triples, its embedding and the episode it came from."""

    scope: Scope
    memory: Memory
    triples: list[Triple]
    embedding: list[float]
    episode_id: str | None = None


class StoredMemoryHook(Protocol):
    def __call__(self, context: StoredMemoryContext) -> None: ...
