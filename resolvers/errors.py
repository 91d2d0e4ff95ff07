"""Error policy of the GraphQL face: domain errors get their code; anything else is masked and logged."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension

from graph.errors import BmamError

log = logging.getLogger("bmam.api")

INTERNAL_MESSAGE = "Internal error; it has been logged."


def _coded(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    if isinstance(original, BmamError):
        extensions = {"code": original.code}
        if original.field:
            extensions["field"] = original.field
        return GraphQLError(
            original.message, nodes=error.nodes, path=error.path, positions=error.positions,
            source=error.source, extensions=extensions,
        )
    if original is None or (error.path is None and isinstance(original, (GraphQLError, KeyError, ValueError))):
        # Parse, validation and variable-coercion errors describe the request itself: the caller's
        # fault, and their text holds nothing of ours.
        code = (error.extensions or {}).get("code") or "BAD_USER_INPUT"
        return GraphQLError(
            error.message, nodes=error.nodes, path=error.path, positions=error.positions,
            source=error.source, extensions={**(error.extensions or {}), "code": code},
        )
    # Unexpected: no Cypher, paths or stack text reach a client; the log has all of it.
    log.error("unexpected error at %s", error.path, exc_info=original)
    return GraphQLError(
        INTERNAL_MESSAGE, nodes=error.nodes, path=error.path, positions=error.positions,
        source=error.source, extensions={"code": "INTERNAL_SERVER_ERROR"},
    )


class ErrorCodes(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            result.errors = [_coded(e) for e in errors]
        pre = self.execution_context.pre_execution_errors
        if pre:
            self.execution_context.pre_execution_errors = [_coded(e) for e in pre]
