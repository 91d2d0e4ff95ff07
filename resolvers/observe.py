"""Observation of every GraphQL operation: latency by root field for /metrics, error codes, and the
per-stage timings a caller may ask for (header `X-Bmam-Timings: 1` or request extensions
`{"timings": true}`), answered in `extensions.timings`:
`{totalMs, neo4jMs, neo4jQueries, embeddingMs, embeddedTexts}`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    SelectionSetNode,
)
from graphql.utilities import get_operation_ast
from strawberry.extensions import SchemaExtension

from resolvers.context import RequestContext


class Observe(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        ctx = self.execution_context.context
        metrics = getattr(ctx, "metrics", None)
        if metrics is None:
            return
        try:
            operation_type = self.execution_context.operation_type.value
        except Exception:  # no parsable operation: it failed before we could tell
            operation_type = "invalid"
        metrics.observe_operation(
            root_fields(self.execution_context.graphql_document, self.execution_context.operation_name),
            operation_type, time.perf_counter() - started)
        result = self.execution_context.result
        errors = list(getattr(result, "errors", None) or self.execution_context.pre_execution_errors or [])
        for error in errors:
            metrics.observe_error(str((error.extensions or {}).get("code", "UNKNOWN")))

    def get_results(self) -> dict[str, Any]:
        ctx = self.execution_context.context
        if not isinstance(ctx, RequestContext):
            return {}
        asked = ctx.want_timings or bool((self.execution_context.operation_extensions or {}).get("timings"))
        return {"timings": ctx.timings.as_extension()} if asked else {}


def root_fields(document: DocumentNode | None, operation_name: str | None) -> set[str]:
    """The names (not aliases) of the root fields the named operation selects, through fragments; none when the
    document did not parse or has no such operation. What /metrics labels an operation by: the client's own
    operation name is its text, not the schema's."""
    if document is None:
        return set()
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return set()
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    names: set[str] = set()
    seen: set[str] = set()  # a cycle of fragments fails validation, but this runs on invalid documents too

    def walk(selections: SelectionSetNode) -> None:
        for selection in selections.selections:
            if isinstance(selection, FieldNode):
                names.add(selection.name.value)
            elif isinstance(selection, InlineFragmentNode):
                walk(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in seen:
                seen.add(selection.name.value)
                fragment = fragments.get(selection.name.value)
                if fragment is not None:
                    walk(fragment.selection_set)

    walk(operation.selection_set)
    return names
