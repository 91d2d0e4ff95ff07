"""Batched reads for nested fields of a memory (its triples, its associated memories), one query for
many memories of one user: what the GraphQL DataLoaders call."""

from __future__ import annotations

from collections.abc import Sequence

from bmam import validate
from graph.model import Memory, Scope, Triple
from graph.nested import NestedReads

MAX_ASSOCIATED = 50


class NestedUseCases:
    def __init__(self, reads: NestedReads) -> None:
        self._reads = reads

    def triples(self, tenant: str, user_id: str, memory_ids: Sequence[str]) -> dict[str, list[Triple]]:
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        return self._reads.triples(scope, memory_ids)

    def associated(
        self, tenant: str, user_id: str, memory_ids: Sequence[str], *, limit: int
    ) -> dict[str, list[tuple[Memory, float]]]:
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        limit = validate.page_size(limit, maximum=MAX_ASSOCIATED)
        return self._reads.associated(scope, memory_ids, limit=limit)
