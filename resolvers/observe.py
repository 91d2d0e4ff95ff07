"""Observation of every GraphQL operation: latency by operation for /metrics, error codes, and the
per-stage timings a caller may ask for (header `X-Bmam-Timings: 1` or request extensions
`{"timings": true}`), answered in `extensions.timings`:
`{totalMs, neo4jMs, neo4jQueries, embeddingMs, embeddedTexts}`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

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
        metrics.observe_operation(self.execution_context.operation_name, operation_type,
                                  time.perf_counter() - started)
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
