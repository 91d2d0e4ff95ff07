"""Prometheus metrics of one running API: request latency by operation, Neo4j statement latency,
embedding latency, errors by code, and live memories by tier (a cheap count, cached a few seconds).

An operation is labelled by the root field it selected (`recall`, `remember`), one of the schema's, never by
the operation name the client wrote: that name is a tenant's text (`query Alice_is_pregnant_0`) shown to
whoever reads /metrics, and any client could fill a label with as many names as it liked."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Root fields every schema has (introspection); the others come from the schema the app serves.
INTROSPECTION_FIELDS = frozenset({"__schema", "__type", "__typename"})
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class _TierCollector(Collector):
    def __init__(self, count: Callable[[], dict[str, int]], cache_s: float, monotonic: Callable[[], float]) -> None:
        self._count = count
        self._cache_s = cache_s
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._cached: tuple[float, dict[str, int]] | None = None

    def _counts(self) -> dict[str, int] | None:
        now = self._monotonic()
        with self._lock:
            if self._cached and now - self._cached[0] < self._cache_s:
                return self._cached[1]
        try:
            counts = self._count()
        except Exception as exc:  # Neo4j away: report what we can, never fail the scrape
            log.warning("memories by tier unavailable: %s", exc)
            return None
        with self._lock:
            self._cached = (now, counts)
        return counts

    def collect(self) -> Iterator[Metric]:
        counts = self._counts()
        up = GaugeMetricFamily("bmam_neo4j_up", "1 when the memories-by-tier count could be read from Neo4j")
        up.add_metric([], 0.0 if counts is None else 1.0)
        yield up
        if counts is None:
            return
        family = GaugeMetricFamily("bmam_memories", "Live memories by tier, all tenants", labels=["tier"])
        for tier in sorted(set(counts) | {"temp", "mid", "core"}):
            family.add_metric([tier], float(counts.get(tier, 0)))
        yield family


class Metrics:
    def __init__(
        self,
        *,
        tier_counts: Callable[[], dict[str, int]],
        tier_cache_s: float = 5.0,
        monotonic: Callable[[], float] = time.monotonic,
        root_fields: Collection[str] = (),
    ) -> None:
        """root_fields: the served schema's root field names (Query, Mutation, Subscription), the only
        operation labels besides `multiple`, `other` and `invalid`."""
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "bmam_graphql_request_seconds", "GraphQL operation latency by root field selected and operation type",
            ["operation", "type"], registry=self.registry, buckets=_LATENCY_BUCKETS,
        )
        self.errors = Counter(
            "bmam_graphql_errors", "GraphQL errors answered, by extensions.code", ["code"], registry=self.registry,
        )
        self.rejections = Counter(
            "bmam_http_rejections", "Requests refused before GraphQL ran, by HTTP status", ["status"],
            registry=self.registry,
        )
        self.neo4j = Histogram(
            "bmam_neo4j_query_seconds", "Neo4j statement latency by named statement (cypher/<name>.cypher)",
            ["statement"], registry=self.registry, buckets=_LATENCY_BUCKETS,
        )
        self.embedding = Histogram(
            "bmam_embedding_seconds", "Embedding model latency per call", ["kind"], registry=self.registry,
            buckets=_LATENCY_BUCKETS,
        )
        self.registry.register(_TierCollector(tier_counts, tier_cache_s, monotonic))
        self._root_fields = frozenset(root_fields) | INTROSPECTION_FIELDS

    def operation_label(self, root_fields: Collection[str]) -> str:
        """The root field the operation selected; `multiple` for several, `invalid` for none (the document did
        not parse, or names no operation), `other` for a name the schema lacks (a document that failed
        validation): the label's values are bounded by the schema, whatever clients send."""
        names = set(root_fields)
        if not names:
            return "invalid"
        if len(names) > 1:
            return "multiple"
        [name] = names
        return name if name in self._root_fields else "other"

    def observe_operation(self, root_fields: Collection[str], operation_type: str, seconds: float) -> None:
        self.requests.labels(self.operation_label(root_fields), operation_type).observe(seconds)

    def observe_error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def observe_rejection(self, status: int) -> None:
        self.rejections.labels(str(status)).inc()

    def observe_query(self, statement: str, seconds: float) -> None:
        self.neo4j.labels(statement).observe(seconds)

    def observe_embedding(self, kind: str, seconds: float, _texts: int) -> None:
        self.embedding.labels(kind).observe(seconds)

    def render(self) -> bytes:
        """The exposition text (blocking: the tier count may ask Neo4j; call it off the event loop)."""
        return generate_latest(self.registry)
