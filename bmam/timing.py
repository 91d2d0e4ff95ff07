"""Per-request stage timings (embedding, Neo4j) without threading them through every call.

The API sets a RequestTimings in a context variable at the start of a request; blocking work runs in
threads through asyncio.to_thread, which copies the context, so the Neo4j query listener and the
TimedEmbedder below find the same object and add to it. Outside a request nothing is recorded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ingest.embedding import Embedder


@dataclass
class RequestTimings:
    started: float = field(default_factory=time.perf_counter)
    neo4j_s: float = 0.0
    neo4j_queries: int = 0
    embedding_s: float = 0.0
    embeddings: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_neo4j(self, seconds: float) -> None:
        with self._lock:
            self.neo4j_s += seconds
            self.neo4j_queries += 1

    def add_embedding(self, seconds: float, texts: int) -> None:
        with self._lock:
            self.embedding_s += seconds
            self.embeddings += texts

    def as_extension(self) -> dict[str, float | int]:
        total = time.perf_counter() - self.started
        return {
            "totalMs": round(total * 1000, 3),
            "neo4jMs": round(self.neo4j_s * 1000, 3),
            "neo4jQueries": self.neo4j_queries,
            "embeddingMs": round(self.embedding_s * 1000, 3),
            "embeddedTexts": self.embeddings,
        }


current_timings: ContextVar[RequestTimings | None] = ContextVar("bmam_request_timings", default=None)


def record_neo4j_query(_name: str, seconds: float) -> None:
    """A graph.store QueryTimer listener: adds a statement's time to the current request, if any."""
    timings = current_timings.get()
    if timings is not None:
        timings.add_neo4j(seconds)


EmbeddingListener = Callable[[str, float, int], None]  # (kind "passages" | "query", seconds, texts)


class TimedEmbedder:
    """Wraps the embedder: same interface, and every call's time goes to the current request's
    timings and to listeners (the Prometheus histogram)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.listeners: list[EmbeddingListener] = []

    def _record(self, kind: str, seconds: float, texts: int) -> None:
        timings = current_timings.get()
        if timings is not None:
            timings.add_embedding(seconds, texts)
        for listener in self.listeners:
            listener(kind, seconds, texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.inner.embed_passages(texts)
        finally:
            self._record("passages", time.perf_counter() - started, len(texts))

    def embed_query(self, text: str) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self._record("query", time.perf_counter() - started, 1)

    def __getattr__(self, name: str) -> Any:  # anything else the concrete embedder offers
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"TimedEmbedder({self.inner!r})"
