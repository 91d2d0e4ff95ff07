"""Error policy of the GraphQL face: domain errors get their code; anything else is masked and logged.

Codes (extensions.code): BAD_USER_INPUT, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, LIMIT_EXCEEDED,
UNAVAILABLE, and INTERNAL_SERVER_ERROR for what we did not expect (its text never reaches a client).
Field suggestions ("Did you mean ...") are cut from every message, so a schema hidden in production
cannot be discovered by guessing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension

from graph.errors import BmamError

log = logging.getLogger("bmam.api")

INTERNAL_MESSAGE = "Internal error; it has been logged."
_SUGGESTION = re.compile(r"\s*Did you mean\b.*$", re.DOTALL)
# The parser's own limits (graphql-core): too many tokens, nested too deeply.
_PARSER_LIMITS = ("Document contains more than", "nested too deeply")


def without_suggestions(message: str) -> str:
    return _SUGGESTION.sub("", message)


def _with(error: GraphQLError, message: str, extensions: dict[str, object]) -> GraphQLError:
    return GraphQLError(
        without_suggestions(message), nodes=error.nodes, path=error.path, positions=error.positions,
        source=error.source, extensions=extensions,
    )


def coded(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    if isinstance(original, BmamError):
        extensions: dict[str, object] = {"code": original.code}
        if original.field:
            extensions["field"] = original.field
        return _with(error, original.message, extensions)
    if isinstance(original, RecursionError):
        return _with(error, "the document is nested too deeply", {"code": "LIMIT_EXCEEDED"})
    if original is None or isinstance(original, GraphQLError) or _variable_coercion(error):
        # Parse, validation and variable-coercion errors describe the request itself: the caller's
        # fault, and their text holds nothing of ours.
        code = (error.extensions or {}).get("code") or (
            "LIMIT_EXCEEDED" if any(m in error.message for m in _PARSER_LIMITS) else "BAD_USER_INPUT"
        )
        return _with(error, error.message, {**(error.extensions or {}), "code": code})
    # Unexpected: no Cypher, paths or stack text reach a client; the log has all of it.
    log.error("unexpected error at %s", error.path, exc_info=original)
    return GraphQLError(
        INTERNAL_MESSAGE, nodes=error.nodes, path=error.path, positions=error.positions,
        source=error.source, extensions={"code": "INTERNAL_SERVER_ERROR"},
    )


def _variable_coercion(error: GraphQLError) -> bool:
    """A caller's variable that its type refused (a scalar's parser raised): graphql-core names the variable.
    Any other KeyError / ValueError outside a field is ours, and goes the unexpected way (logged, masked)."""
    return (error.path is None and isinstance(error.original_error, (KeyError, ValueError))
            and error.message.startswith("Variable '$"))


class ErrorCodes(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            result.errors = [coded(e) for e in errors]
        pre = self.execution_context.pre_execution_errors
        if pre:
            self.execution_context.pre_execution_errors = [coded(e) for e in pre]

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """Subscription results are sent one by one, before on_operation ends: code each as it goes."""
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = [coded(e) for e in errors]
        yield
