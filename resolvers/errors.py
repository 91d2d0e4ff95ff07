"""Error policy of the GraphQL face: domain errors get their code; anything else is masked and logged.

Codes (extensions.code): BAD_USER_INPUT, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, LIMIT_EXCEEDED,
UNAVAILABLE (Neo4j down: retry later), TIMEOUT (the request ran past the transaction timeout: retry narrower), and
INTERNAL_SERVER_ERROR for what we did not expect (its text never reaches a client).
Field suggestions ("Did you mean ...") are cut from every message, so a schema hidden in production
cannot be discovered by guessing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from graphql import ArgumentNode, IntValueNode, Node, VariableDefinitionNode, VariableNode, Visitor, parse, visit
from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension

from graph.errors import BmamError
from resolvers.limits import SIZE_ARGUMENTS

log = logging.getLogger("bmam.api")

INTERNAL_MESSAGE = "Internal error; it has been logged."
_SUGGESTION = re.compile(r"\s*Did you mean\b.*$", re.DOTALL)
# The parser's own limits (graphql-core): too many tokens, nested too deeply.
_PARSER_LIMITS = ("Document contains more than", "nested too deeply")
# A positive number past GraphQL's Int (2^31 or more; graphql-core refuses it before any resolver runs). Given
# for a page size or the context budget it is over their limit, as 2^31 - 1 is (LIMIT_EXCEEDED), and the CLI and
# MCP, which have no 32-bit Int, answer it so: it answered BAD_USER_INPUT here and in `bmam remote`. For a turn, a
# polarity or a depth (BAD_USER_INPUT when out of range) it stays BAD_USER_INPUT.
_INT_OVER = re.compile(r"Int cannot represent non 32-bit signed integer value: \d")
# Python reads no integer literal of more than 4300 digits (sys.int_max_str_digits) and graphql-core passes its
# words on: said instead as the Int past 32 bits it is.
_INT_TOO_LONG = re.compile(r"Expected value of type '[^']*', but encountered error 'Exceeds the limit \(\d+ digits\)"
                           r" for integer string conversion[^']*?value has (?P<n>\d+) digits[^']*'"
                           r"(?:; found: (?P<v>-?\d{3})\d*)?\.?")
_LIMITED_INTS = frozenset((*SIZE_ARGUMENTS, "budget"))


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
    too_long = isinstance(original, ValueError) and _INT_TOO_LONG.search(error.message) is not None
    if original is None or isinstance(original, GraphQLError) or _variable_coercion(error) or too_long:
        # Parse, validation and variable-coercion errors describe the request itself: the caller's
        # fault, and their text holds nothing of ours.
        if too_long:
            error = _with(error, _INT_TOO_LONG.sub(
                lambda m: f"Int cannot represent non 32-bit signed integer value: {m['v'] or ''}… ({m['n']} digits)",
                error.message),
                dict(error.extensions or {}))
        code = (error.extensions or {}).get("code") or (
            "LIMIT_EXCEEDED" if any(m in error.message for m in _PARSER_LIMITS) or _over_a_limit(error)
            else "BAD_USER_INPUT"
        )
        return _with(error, error.message, {**(error.extensions or {}), "code": code})
    # Unexpected: no Cypher, paths or stack text reach a client; the log has all of it.
    log.error("unexpected error at %s", error.path, exc_info=original)
    return GraphQLError(
        INTERNAL_MESSAGE, nodes=error.nodes, path=error.path, positions=error.positions,
        source=error.source, extensions={"code": "INTERNAL_SERVER_ERROR"},
    )


def _same_place(a: Node, b: Node) -> bool:
    return a.loc is not None and b.loc is not None and a.loc.start == b.loc.start


class _ArgumentsGiven(Visitor):
    """The names of the field arguments whose value is the node the error points at (a literal, a variable by
    its definition, or a variable by its default: `query($n: Int = 99999999999)`)."""

    def __init__(self, at: Node) -> None:
        super().__init__()
        self._at = at
        self._defaulted: set[str] = set()  # the variables whose default the error points at
        self.names: set[str] = set()

    def enter_variable_definition(self, node: VariableDefinitionNode, *_: object) -> None:
        if node.default_value is not None and _same_place(node.default_value, self._at):
            self._defaulted.add(node.variable.name.value)

    def enter_argument(self, node: ArgumentNode, *_: object) -> None:
        value, at = node.value, self._at
        if isinstance(at, VariableDefinitionNode):
            given = isinstance(value, VariableNode) and value.name.value == at.variable.name.value
        elif isinstance(value, VariableNode):
            given = value.name.value in self._defaulted  # definitions come before the selections using them
        else:
            given = isinstance(value, IntValueNode) and _same_place(value, at)
        if given:
            self.names.add(node.name.value)


def _over_a_limit(error: GraphQLError) -> bool:
    """A too large Int for page sizes or the budget only (_INT_OVER): the document is read again (rare: a refused
    request) to find the arguments it was given for."""
    if not _INT_OVER.search(error.message) or not error.nodes or error.source is None:
        return False
    try:
        document = parse(error.source)
    except GraphQLError:
        return False
    found = _ArgumentsGiven(error.nodes[0])
    visit(document, found)
    return bool(found.names) and found.names <= _LIMITED_INTS


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
