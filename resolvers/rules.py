"""Rules the schema adds to its own: what the GraphQL spec has and graphql-core 3.3 no longer enforces, and
which operations plain HTTP may carry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode, SelectionSetNode, ValidationRule
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType


class SelectionSetsNotEmpty(ValidationRule):
    """`{ }` selects nothing: the spec's grammar refuses it, graphql-core 3.3's parser takes it (so
    `mutation { remember(...) { } }` wrote a memory and answered {}). Refused before anything runs."""

    def enter_selection_set(self, node: SelectionSetNode, *_args: Any) -> None:
        if not node.selections:
            self.report_error(GraphQLError("a selection set must select at least one field", node))


class SubscriptionsOverWebsocket(SchemaExtension):
    """A subscription sent over plain HTTP is the caller's mistake (BAD_USER_INPUT), not an internal error:
    strawberry takes subscription documents over POST and GET for its multipart protocol, and memoryEvents
    then answered null for a non-null field (INTERNAL_SERVER_ERROR, a traceback in the log)."""

    def on_validate(self) -> Iterator[None]:
        ec = self.execution_context
        request = getattr(ec.context, "request", None)
        over_websocket = getattr(request, "scope", {}).get("type") == "websocket"
        # [] too: a text kept by CheckedDocuments passed the checks over a websocket, perhaps; the transport is
        # this request's, so it is checked every time
        if not ec.pre_execution_errors and ec.operation_type is OperationType.SUBSCRIPTION and not over_websocket:
            ec.pre_execution_errors = [GraphQLError(
                "subscriptions run over graphql-transport-ws (a websocket to /graphql), not plain HTTP",
                extensions={"code": "BAD_USER_INPUT"})]
        yield


class OperationNameRequired(SchemaExtension):
    """A document with several operations and no operationName is refused (the GraphQL spec, "GetOperation":
    "Must provide operation name if query contains multiple operations"), BAD_USER_INPUT, before anything
    runs: strawberry picks the first operation instead, so `mutation B {...} query A {...}` sent without a
    name ran the mutation. Checked on every request, a document kept by CheckedDocuments included (the
    operation name comes with the request, not the text)."""

    def on_validate(self) -> Iterator[None]:
        ec = self.execution_context
        document = ec.graphql_document
        # strawberry keeps the request's own operationName here and answers the first operation's name
        # from ExecutionContext.operation_name when the request gave none
        given = getattr(ec, "_provided_operation_name", None)
        if document is not None and given is None and not ec.pre_execution_errors:
            operations = sum(1 for d in document.definitions if isinstance(d, OperationDefinitionNode))
            if operations > 1:
                ec.pre_execution_errors = [GraphQLError(
                    "Must provide operation name if query contains multiple operations.",
                    extensions={"code": "BAD_USER_INPUT"})]
        yield
