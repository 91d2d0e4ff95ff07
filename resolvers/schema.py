"""The Strawberry schema: every feature's Query and Mutation parts merged into one."""

from __future__ import annotations

import strawberry
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.tools import merge_types

from resolvers.errors import ErrorCodes
from resolvers.memory import MemoryMutation, MemoryQuery

Query = merge_types("Query", (MemoryQuery,))
Mutation = merge_types("Mutation", (MemoryMutation,))


def build_schema(*, max_depth: int = 10, max_aliases: int = 15, max_tokens: int = 5000) -> strawberry.Schema:
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        extensions=[
            ErrorCodes,
            lambda: QueryDepthLimiter(max_depth=max_depth),
            lambda: MaxAliasesLimiter(max_alias_count=max_aliases),
            lambda: MaxTokensLimiter(max_token_count=max_tokens),
        ],
    )


# The exported schema (`strawberry export-schema resolvers.schema:schema` writes schema.graphql).
schema = build_schema()
