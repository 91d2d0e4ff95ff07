"""Prometheus metrics of one running API: request latency by operation, Neo4j statement latency,
embedding latency, errors by code, and live memories by tier (a cheap count, cached a few seconds)."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_OPERATION_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]{0,63}$")
MAX_OPERATION_LABELS = 200  # operation names come from clients: cap the label's cardinality
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
    ) -> None:
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "bmam_graphql_request_seconds", "GraphQL operation latency by operation name and type",
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
        self._operations: set[str] = set()
        self._lock = threading.Lock()

    def operation_label(self, name: str | None) -> str:
        if not name:
            return "anonymous"
        if not _OPERATION_NAME.match(name):
            return "other"
        with self._lock:
            if name in self._operations:
                return name
            if len(self._operations) >= MAX_OPERATION_LABELS:
                return "other"
            self._operations.add(name)
        return name

    def observe_operation(self, name: str | None, operation_type: str, seconds: float) -> None:
        self.requests.labels(self.operation_label(name), operation_type).observe(seconds)

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
