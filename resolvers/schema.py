"""The Strawberry schema: every feature's Query, Mutation and Subscription parts merged into one, with the
API's limits and error policy as extensions."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import strawberry
from graphql import GraphQLError
from strawberry.extensions import AddValidationRules, DisableIntrospection, MaxTokensLimiter, SchemaExtension
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from resolvers.admin import AdminMutation, AdminQuery
from resolvers.documents import CheckedDocuments, DocumentCache
from resolvers.errors import ErrorCodes
from resolvers.export import ExportMutation, ExportQuery
from resolvers.ingest import IngestMutation, IngestQuery
from resolvers.limits import NULL_SIZES, Limits, QueryLimits
from resolvers.living import LivingMutation, LivingQuery
from resolvers.memory import MemoryMutation, MemoryQuery
from resolvers.observe import Observe
from resolvers.plain_fields import PlainFieldsExecutionContext
from resolvers.recall import RecallQuery
from resolvers.rules import OperationNameRequired, SelectionSetsNotEmpty, SubscriptionsOverWebsocket
from resolvers.subscriptions import EventsSubscription
from resolvers.users import SessionsMutation, UsersQuery

Query = merge_types("Query", (MemoryQuery, AdminQuery, IngestQuery, LivingQuery, ExportQuery, RecallQuery,
                              UsersQuery))
Mutation = merge_types("Mutation", (MemoryMutation, AdminMutation, IngestMutation, LivingMutation, ExportMutation,
                                    SessionsMutation))
Subscription = merge_types("Subscription", (EventsSubscription,))


class Schema(strawberry.Schema):
    """strawberry.Schema without its own error log: Strawberry logs every error at ERROR with a traceback,
    the caller's bad input included; resolvers/errors.py logs the unexpected ones (with their traceback)
    and the caller gets a coded error for the rest, so nothing is left for this to say."""

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        return None


def build_schema(
    *,
    max_depth: int = 10,
    max_aliases: int = 15,
    max_tokens: int = 5000,
    max_selections: int = 1000,
    max_cost: int = 50_000,
    max_page_size: int = 100,
    null_sizes: Mapping[str, int] | None = None,
    introspection: bool = True,
    documents: DocumentCache | None = None,
) -> Schema:
    """The schema with the API's limits; introspection is off in the production profile. null_sizes: the
    server's default sizes of list fields whose size argument defaults to null (resolvers/limits.py)."""
    limits = Limits(max_depth=max_depth, max_aliases=max_aliases, max_selections=max_selections,
                    max_cost=max_cost, max_page_size=max_page_size,
                    null_sizes=dict(null_sizes if null_sizes is not None else NULL_SIZES))
    # One per schema: what passed is decided by this schema's limits and rules.
    cache = documents if documents is not None else DocumentCache()
    extensions: list[type[SchemaExtension] | Callable[[], SchemaExtension]] = [
        Observe,  # first in, last out: sees the final, coded errors
        ErrorCodes,
        lambda: CheckedDocuments(cache),  # before QueryLimits: a known-valid text skips the checks
        OperationNameRequired,  # after CheckedDocuments: a kept document is checked too
        lambda: QueryLimits(limits),
        lambda: MaxTokensLimiter(max_token_count=max_tokens),
        lambda: AddValidationRules([SelectionSetsNotEmpty]),
        SubscriptionsOverWebsocket,
    ]
    if not introspection:
        extensions.append(DisableIntrospection)
    return Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=extensions,
        config=StrawberryConfig(disable_field_suggestions=True),
        execution_context_class=PlainFieldsExecutionContext,
    )


# The exported schema (`strawberry export-schema resolvers.schema:schema` writes schema.graphql).
schema = build_schema()
