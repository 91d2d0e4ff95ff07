"""DataLoaders of one request: nested fields of many memories load in one query per field, not one
per memory (Memory.triples, Memory.associated). Keys carry the user id; the tenant is the caller's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from strawberry.dataloader import DataLoader

from bmam.container import Container
from graph.model import Memory, Triple
from resolvers.context import call

V = TypeVar("V")
MAX_BATCH = 500

TripleKey = tuple[str, str]  # (user_id, memory_id)
AssociatedKey = tuple[str, str, int]  # (user_id, memory_id, limit)


def _grouped(
    keys: Sequence[tuple[str, ...]],
    fetch: Callable[[tuple[str, ...], list[str]], Awaitable[dict[str, list[V]]]],
) -> Callable[[], Awaitable[list[list[V] | Exception]]]:
    """Group keys by everything but the memory id (user, options), fetch each group once, and answer in
    key order. A group that fails (a bad user id or `first`, Neo4j down) answers its exception for its own
    keys only: the DataLoader raises it in those fields, and the batch's other fields still get data."""

    async def run() -> list[list[V] | Exception]:
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for key in keys:
            groups[key[:1] + key[2:]].append(key[1])
        found: dict[tuple[str, ...], dict[str, list[V]] | Exception] = {}
        for group, ids in groups.items():
            try:
                found[group] = await fetch(group, list(dict.fromkeys(ids)))
            except Exception as exc:  # answered per key; resolvers/errors.py codes it per field
                found[group] = exc
        answers: list[list[V] | Exception] = []
        for key in keys:
            got = found[key[:1] + key[2:]]
            answers.append(got if isinstance(got, Exception) else got.get(key[1], []))
        return answers

    return run


class Loaders:
    def __init__(self, container: Container, tenant: str) -> None:
        self._container = container
        self._tenant = tenant
        self.triples: DataLoader[TripleKey, list[Triple]] = DataLoader(self._load_triples, max_batch_size=MAX_BATCH)
        self.associated: DataLoader[AssociatedKey, list[tuple[Memory, float]]] = DataLoader(
            self._load_associated, max_batch_size=MAX_BATCH
        )

    async def _load_triples(self, keys: list[TripleKey]) -> list[list[Triple] | Exception]:
        async def fetch(group: tuple[str, ...], ids: list[str]) -> dict[str, list[Triple]]:
            return await call(self._container.nested.triples, self._tenant, group[0], ids)

        return await _grouped(keys, fetch)()

    async def _load_associated(self, keys: list[AssociatedKey]) -> list[list[tuple[Memory, float]] | Exception]:
        async def fetch(group: tuple[str, ...], ids: list[str]) -> dict[str, list[tuple[Memory, float]]]:
            user_id, limit = group[0], int(group[1])
            return await call(self._container.nested.associated, self._tenant, user_id, ids, limit=limit)

        str_keys = [(u, m, str(limit)) for u, m, limit in keys]
        return await _grouped(str_keys, fetch)()
