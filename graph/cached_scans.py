"""The exact cosine scans of ingest and conflict detection over the in-process vector cache
(graph/vector_cache.py) instead of in Neo4j: the cache ranks every memory of the user in numpy, and the
repositories (graph/episodes.py, graph/conflicts.py) read the chosen ids back from Neo4j with their
filters (live, tier, ...), so a memory deleted or superseded since the cache read it is never returned.

The scores are Neo4j's: vector.similarity.cosine answers (1 + cos) / 2 (in float32, like numpy here),
and the thresholds are compared on that scale exactly as the statements compare them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graph.model import Scope
from graph.store import Tx
from graph.vector_cache import CachedUser, UserState, VectorCache, user_state


@dataclass(frozen=True, slots=True)
class CachedScan:
    """A user's state and cached rows inside a transaction. rows is None when the cache cannot answer
    (no cache, or the user is too large for it): the caller scans in Neo4j."""

    state: UserState
    rows: CachedUser | None

    @property
    def empty(self) -> bool:
        """The user has no memory at all: every scan finds nothing."""
        return self.state.mine == 0


def scan(tx: Tx, scope: Scope, cache: VectorCache) -> CachedScan:
    """The user's memory state (recall/user_state) and the cache brought up to date with it."""
    state = user_state(tx, scope)
    rows = cache.user(tx, scope, state) if state.mine > 0 else None
    return CachedScan(state=state, rows=rows)


def scores(matrix: np.ndarray, embeddings: Sequence[Sequence[float]]) -> np.ndarray:
    """Neo4j's cosine scores, (1 + cos) / 2, of every query embedding (rows) against every cached memory
    (columns); float64 for the comparisons, from float32 products like Neo4j's."""
    raw = np.asarray(embeddings, dtype=np.float32).reshape(len(embeddings), -1)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    queries = (raw / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    if matrix.shape[0] == 0:
        return np.zeros((len(embeddings), 0), dtype=np.float64)
    if queries.shape[0] * matrix.size <= _NO_BLAS_MAX:
        # numpy's own loop, not BLAS: ingest embeds the next batch meanwhile, and a small product queued
        # behind the embedder's BLAS calls took ~30 ms instead of well under 1 ms
        products = np.einsum("ij,kj->ik", queries, matrix)
    else:
        products = queries @ matrix.T
    cosines: np.ndarray = products.astype(np.float64)
    return (1.0 + cosines) / 2.0


# Multiply-adds up to which scores() skips BLAS (~10 ms in numpy's own loop: 64 turns x 500 memories).
_NO_BLAS_MAX = 16_000_000
