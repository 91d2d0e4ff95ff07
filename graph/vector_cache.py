"""Recall's in-process copy of each user's memory embeddings and texts: the exact cosine scan in numpy
instead of in Neo4j, kept in step with the store by the user's memory sequence and epoch.

Why: at 1M memories Neo4j scans a user's embeddings at ~0.05 ms a memory (470 ms for 10k, BENCHMARKS.md
"Recall latency") and its global vector index, filtered to one user, needs thousands of candidates;
numpy does 10k cosines in about a millisecond.

How it stays right without being told of every write:
- every memory the service creates takes the user's next sequence number (u.memory_seq, m.seq; see
  cypher/memory/remember.cypher), so a cached user catches up by reading the memories with m.seq above
  the one it holds;
- a memory deleted since is harmless: the cache only ranks, and the ranked ids are read back from Neo4j
  with recall's filters (cypher/recall/rows.cypher), where a deleted memory is simply not found;
- whatever the sequence cannot tell (an undo re-creating memories under their old numbers, a user
  erased and written anew, memories written by older code) changes the user's memory_epoch or leaves
  more memories than cached rows: the user is read anew.
Entries are evicted least recently used first, to stay within max_bytes.

Erased users: forgetUser's hook (forget) drops the user's entry in the process that served it; so does the
forget of one memory (bmam/usecases/memories.py), so that no copy of its text stays here. Another
worker is not told: its entry goes as soon as the store says the user has no memories or another epoch
(user() and current(), at the user's next recall or cached scan). A read that began before the erasure
committed (a catch-up, a full read, a background load) may still hold the erased rows: forget and those
drops mark every entry of the user being read, and put() keeps no marked entry.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController

from graph.model import Scope
from graph.store import GraphStore, Tx
from graph.text_key import text_key

T = TypeVar("T")
log = logging.getLogger("bmam.vector_cache")


@dataclass(frozen=True, slots=True)
class UserState:
    """A user's memory counts and sequence as recall/user_state reads them."""

    mine: int  # the user's memories (HAS_MEMORY edges)
    total: int  # memories in the whole store
    seq: int  # the user's memory sequence (0 before the first memory numbered)
    epoch: str | None


def user_state(tx: Tx, scope: Scope) -> UserState:
    """The user's memory counts, sequence and epoch (cypher/recall/user_state)."""
    [row] = tx.run("recall/user_state", {"tenant": scope.tenant, "user_id": scope.user_id})
    return user_state_of(row)


def user_state_of(row: Mapping[str, Any]) -> UserState:
    """A UserState from a row holding recall/user_state's columns (mine, total, seq, epoch)."""
    return UserState(mine=int(row["mine"]), total=int(row["total"]), seq=int(row["seq"]), epoch=row["epoch"])


def _holds_rows_for(n: int, mine: int) -> bool:
    """Whether n cached rows can stand for a user with mine memories: not fewer (memories the sequence
    cannot tell, written by older code) and not mostly deleted ones (then the user is read anew)."""
    return mine <= n <= 2 * mine + 64


class CachedUser:
    """One user's cached rows: ids, lower-cased texts, text keys (graph/text_key.py) and unit-length
    embeddings, in the order read. Rows are only appended (under the cache's lock); a reader works on a
    snapshot of the first n."""

    __slots__ = ("_pairs", "_row_of", "_rows_of_key", "_text_bytes", "epoch", "erased", "ids", "lowered", "matrix",
                 "n", "projection", "seq", "state")

    def __init__(self, epoch: str | None, seq: int, dimensions: int, capacity: int) -> None:
        self.epoch = epoch
        self.seq = seq
        # The user's state when these rows were last found current (VectorCache.user): what the next
        # recall guesses it still is (graph/recall.py checks the guess in the statement reading the rows).
        self.state: UserState | None = None
        # Set (under the cache's lock) when the user was erased or found without memories while these rows
        # were held or being read: VectorCache.put keeps them no more.
        self.erased = False
        self.ids: list[str] = []
        self.lowered: list[str] = []
        self.matrix = np.zeros((max(capacity, 16), dimensions), dtype=np.float32)
        self.n = 0
        self._row_of: dict[str, int] = {}
        self._rows_of_key: dict[str, list[int]] = {}
        self._text_bytes = 0
        # Where each pair of adjacent characters occurs (built when first searched, then extended): a term
        # is looked for only in the rows holding its rarest pair, not in every text.
        self._pairs = _PairIndex()
        # A large user's rows on a smaller basis, for the first dense stage (None: every query is exact).
        self.projection: Projection | None = None

    @property
    def nbytes(self) -> int:
        projected = self.projection.nbytes if self.projection is not None else 0
        # per row: its id and _row_of's entry ~100 bytes, its key and _rows_of_key's entry ~250
        return int(self.matrix.nbytes) + projected + self._text_bytes + 350 * len(self.ids) + self._pairs.nbytes

    def append(self, ids: Sequence[str], texts: Sequence[str], vectors: np.ndarray,
               keys: Sequence[str | None] | None = None) -> None:
        """Add rows not held yet (a memory read twice, by two catching-up readers, is kept once). keys: the
        stored text keys, None where a memory has none (computed here from its text)."""
        fresh = [i for i, memory_id in enumerate(ids) if memory_id not in self._row_of]
        if not fresh:
            return
        needed = self.n + len(fresh)
        if needed > self.matrix.shape[0]:
            grown = np.zeros((max(needed, 2 * self.matrix.shape[0]), self.matrix.shape[1]), dtype=np.float32)
            grown[: self.n] = self.matrix[: self.n]
            self.matrix = grown  # readers holding the old array keep a consistent snapshot
        block = vectors[fresh]
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        self.matrix[self.n: needed] = block / np.where(norms > 0, norms, 1.0)
        for i in fresh:
            self._row_of[ids[i]] = len(self.ids)
            self.ids.append(ids[i])
            self.lowered.append(texts[i].lower())
            self._text_bytes += 2 * len(texts[i])
            key = keys[i] if keys is not None else None
            self._rows_of_key.setdefault(key or text_key(texts[i]), []).append(len(self.ids) - 1)
        if self.projection is not None:
            self.projection.extend(self.matrix, needed)  # before n moves: a reader never sees rows it lacks
        self.n = needed

    def snapshot(self) -> tuple[list[str], np.ndarray]:
        n = self.n
        return self.ids[:n], self.matrix[:n]

    def rows_of_key(self, key: str) -> list[int]:
        """The rows (of the first n) whose text has the text key key."""
        n = self.n
        return [row for row in self._rows_of_key.get(key, ()) if row < n]

    def ranked_as(self) -> tuple[str | None, int, int]:
        """(epoch, seq, n) for VectorCache.current: the sequence read before the row count, so every
        memory numbered up to seq is among the first n rows (a catch-up appends, then moves seq)."""
        epoch, seq = self.epoch, self.seq
        return epoch, seq, self.n

    def view(self) -> tuple[list[str], np.ndarray]:
        """The ids and the matrix of the first n rows without copying the ids (0.7 ms for 100k): rows below
        n never change (append only adds; a grown matrix keeps them), so ids[i] for a row i of the matrix
        stays right while others append."""
        n = self.n
        return self.ids, self.matrix[:n]

    def cosines(self, ids: Sequence[str], embedding: Sequence[float]) -> dict[str, float]:
        """The cosine to the query of each of ids held here (the others are left out)."""
        rows = [(memory_id, row) for memory_id in ids if (row := self._row_of.get(memory_id)) is not None
                and row < self.n]
        if not rows:
            return {}
        values = _cosines(self.matrix[[row for _, row in rows]], embedding)
        return {memory_id: float(v) for (memory_id, _), v in zip(rows, values, strict=True)}

    def term_hits(self, terms: Sequence[str]) -> dict[int, int]:
        """Row -> how many of terms its lower-cased text holds (as substrings), for rows holding any."""
        n, lowered = self.n, self.lowered
        self._pairs.extend(lowered, n)
        counts: dict[int, int] = {}
        for term in terms:
            if len(term) < 2:  # no pair to look up (terms() makes none this short): every text
                rows = [i for i in range(n) if term and term in lowered[i]]
            else:
                rarest = self._pairs.rarest({term[i: i + 2] for i in range(len(term) - 1)})
                rows = [i for i in rarest if i < n and term in lowered[i]]
            for i in rows:  # once per row and term
                counts[i] = counts.get(i, 0) + 1
        return counts


class _PairIndex:
    """Pair of adjacent characters -> the rows whose lower-cased text holds it, ascending. A text holding a
    term holds each of the term's pairs, so the rows of its rarest pair are the only ones to test (a 10k-row
    user: ~0.4 ms of C-speed scans per recall before, BENCHMARKS.md). Rows are indexed in order, under a lock
    (readers extend it); a reader ignores rows past the n it saw."""

    __slots__ = ("_lock", "covered", "entries", "rows")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.covered = 0
        self.entries = 0
        self.rows: dict[str, list[int]] = {}

    @property
    def nbytes(self) -> int:
        return 8 * self.entries + 100 * len(self.rows)

    def extend(self, lowered: Sequence[str], n: int) -> None:
        """Index rows covered..n-1 of lowered."""
        if self.covered >= n:
            return
        with self._lock:
            for row in range(self.covered, n):
                text = lowered[row]
                for pair in {text[i: i + 2] for i in range(len(text) - 1)}:
                    held = self.rows.get(pair)
                    if held is None:
                        self.rows[pair] = [row]
                    else:
                        held.append(row)
                    self.entries += 1
            self.covered = max(self.covered, n)

    def rarest(self, pairs: set[str]) -> list[int]:
        """The rows of whichever of pairs is held by fewest rows (none: no row holds them all)."""
        return min((self.rows.get(pair, []) for pair in pairs), key=len)


# A user with this many cached rows or more gets a projection (VectorCache projection_min_rows, from the
# settings) of PROJECTION_DIMS dimensions: the principal directions of a sample of its rows plus their
# mean (sentence embeddings share a large mean component); the rows best on it (the shortlist) are
# ranked by their exact cosines, and so are the outliers: rows added since the basis was computed that
# have more of their length off it than 98 % of the rows it was computed from (a new topic, which a basis
# of the user's older directions misses). Scoring the worst-represented rows of the sample time exactly
# too made no difference (measured).
# The exact float32 product over 100,000 x 512 rows takes 5.7 ms (memory bandwidth); on 128 dimensions
# ~2 ms. BENCHMARKS.md "Recall latency" has the measurements: how much of the exact ranking it keeps, and
# what was tried (a larger shortlist; re-checking rows by a bound on their cosine).
PROJECTION_DIMS = 128
PROJECTION_SAMPLE = 16_384  # rows the basis is computed from (an SVD of 16k x 512: ~1.3 s on one core)
SHORTLIST = 1000  # rows scored exactly, at least (4 x the ranking's limit if more)
OUTLIER_SHARE = 0.02  # the share of the rows at build time a later row must be worse represented than
# A projection is computed again (in the background) once its outliers are more than this share of the
# user's rows: the user's later memories have drifted off the basis (new topics), and each outlier costs an
# exact cosine. Rows like the ones it came from make ~OUTLIER_SHARE of outliers: no rebuild for them.
REBUILD_OUTLIER_SHARE = 0.05


class Projection:
    """A user's first m rows on an orthonormal basis (dimensions x d), stored as int8 with a scale per row
    (Estimates), and the outliers among the rows added since the basis was computed (row numbers,
    ascending). Rows are only appended, like the CachedUser's; a reader reads m, then the first m rows (a
    grown array keeps them) and outliers (replaced whole when rows are added)."""

    __slots__ = ("basis", "cutoff", "estimates", "m", "outliers")

    def __init__(self, basis: np.ndarray, rows: np.ndarray) -> None:
        self.basis = basis
        self.m = rows.shape[0]
        # The part off the basis from which a later row is an outlier.
        self.cutoff = float(np.quantile(_off_basis(rows), 1.0 - OUTLIER_SHARE)) if self.m else 0.0
        self.outliers = np.zeros(0, dtype=np.int64)
        self.estimates = Estimates(rows)

    @property
    def nbytes(self) -> int:
        return int(self.basis.nbytes + self.estimates.nbytes + self.outliers.nbytes)

    def extend(self, matrix: np.ndarray, n: int) -> None:
        """Project the rows m..n of matrix (the CachedUser's, appended since)."""
        if n <= self.m:
            return
        with _one_blas_thread():
            projected = matrix[self.m: n] @ self.basis
        self.estimates.extend(projected, self.m)
        added = self.m + np.flatnonzero(_off_basis(projected) >= self.cutoff)
        if added.shape[0]:
            self.outliers = np.concatenate((self.outliers, added))
        self.m = n

    def products(self, query: np.ndarray, m: int) -> np.ndarray:
        """The first m projected rows' estimated products with the unit query (their cosines' first-stage
        estimates)."""
        with _one_blas_thread():
            on_basis = self.basis.T @ query
        return self.estimates.products(on_basis, m)


class Estimates:
    """Projected rows as int8 with one float scale per row (the row's largest magnitude / 127): a quarter of
    float32's bytes, and the first stage is memory-bound (100k x 128 rows: 2.1 -> ~1 ms inside a recall,
    BENCHMARKS.md). Products with a query go through torch's int8 x bfloat16 kernel; they differ from the
    float32 product by ~0.005 at most (rounding), well inside what the shortlist's exact rescoring absorbs.
    The kernel needs a width that is a multiple of 16 (it crashes or returns garbage otherwise, measured):
    rows and query are padded with zeros to one. It runs on torch's intra-op pool, which the service sizes
    with embedding.threads (1: two threads on two busy cores lengthen the tail, as for BLAS below)."""

    __slots__ = ("_rows", "_scales", "width")

    def __init__(self, rows: np.ndarray) -> None:
        torch = _torch()
        self.width = rows.shape[1]
        self._rows = np.zeros((0, -(-max(self.width, 1) // 16) * 16), dtype=np.int8)
        self._scales = torch.zeros(0, dtype=torch.bfloat16)  # in the kernel's input dtype
        self.extend(rows, 0)

    @property
    def nbytes(self) -> int:
        return int(self._rows.nbytes + 2 * self._scales.shape[0])

    def extend(self, rows: np.ndarray, at: int) -> None:
        """Store rows (float32, projected) as rows at.. (the ones before stay where they are: a reader of the
        first m <= at keeps reading them, from the old arrays or the grown ones)."""
        torch = _torch()
        end = at + rows.shape[0]
        if end > self._rows.shape[0]:
            grown = np.zeros((max(end, 2 * self._rows.shape[0]), self._rows.shape[1]), dtype=np.int8)
            grown[:at] = self._rows[:at]
            scales = torch.ones(grown.shape[0], dtype=torch.bfloat16)
            scales[:at] = self._scales[:at]
            self._rows, self._scales = grown, scales
        scale = (np.abs(rows).max(axis=1) if rows.shape[0] else np.zeros(0, dtype=np.float32)) / np.float32(127.0)
        scale[scale == 0] = 1.0
        self._rows[at:end, : self.width] = np.rint(rows / scale[:, None])
        self._scales[at:end] = torch.from_numpy(scale).to(torch.bfloat16)

    def products(self, vector: np.ndarray, m: int) -> np.ndarray:
        """The products of the first m rows with vector (float32, of the rows' width)."""
        global _KERNEL_MISSING
        padded = np.zeros(self._rows.shape[1], dtype=np.float32)
        padded[: self.width] = vector
        rows, scales = self._rows[:m], self._scales[:m]
        if not _KERNEL_MISSING:
            torch = _torch()
            x = torch.from_numpy(padded)[None, :].to(torch.bfloat16)
            try:
                return np.asarray(_int8_kernel()(x, torch.from_numpy(rows), scales)[0].float().numpy())
            except (AttributeError, NotImplementedError, RuntimeError):
                # A torch without the (private) kernel, or without it for this CPU: numpy from now on, slower
                # (100k x 128: ~5 ms) but the same estimates.
                log.warning("torch's int8 kernel is missing: the projection's first stage runs in numpy")
                _KERNEL_MISSING = True
        with _one_blas_thread():
            return np.asarray((rows @ padded) * scales.float().numpy(), dtype=np.float32)


_KERNEL_MISSING = False


def _int8_kernel() -> Any:
    return _torch().ops.aten._weight_int8pack_mm


def _torch() -> Any:
    """torch, imported on first use (a second of start-up the service pays anyway: the embedder loads it)."""
    import torch

    return torch


def _off_basis(projected: np.ndarray) -> np.ndarray:
    """How much of each unit row's squared length lies off the basis: 1 - |its projection|^2."""
    return 1.0 - np.einsum("ij,ij->i", projected, projected)


def build_projection(matrix: np.ndarray, dims: int = PROJECTION_DIMS, seed: int = 0) -> Projection:
    """The projection of matrix's rows (unit length) on their mean and their dims - 1 principal directions,
    computed from a fixed-seed sample (the same rows give the same basis)."""
    n, width = matrix.shape
    dims = min(dims, width)
    rng = np.random.default_rng(seed)
    sample = matrix[np.sort(rng.choice(n, PROJECTION_SAMPLE, replace=False))] if n > PROJECTION_SAMPLE else matrix
    mean = sample.mean(axis=0)
    with _one_blas_thread():
        _, _, vt = np.linalg.svd(sample - mean, full_matrices=False)
        basis, _ = np.linalg.qr(np.column_stack([mean, vt[: dims - 1].T]).astype(np.float64))
        basis32 = np.ascontiguousarray(basis, dtype=np.float32)
        rows = np.ascontiguousarray(matrix @ basis32)
    return Projection(basis32, rows)


@dataclass(frozen=True, slots=True)
class Ranked:
    """Cached memories ranked best first: ids with their cosine to the query and their rank score (the
    cosine for dense, the number of query terms held for text); complete when no other memory qualifies."""

    ids: list[str]
    cosines: dict[str, float]
    scores: list[float]
    complete: bool


class VectorCache:
    """Per-user embedding matrices, least recently used evicted first beyond max_bytes."""

    # A full read goes in pages of this many memories, each its own read transaction (a 100k-memory user
    # takes seconds: it must not hold, or time out, the caller's transaction).
    PAGE = 4096
    # A catch-up of more memories than this is a full read instead.
    CATCH_UP_MAX = 4096

    def __init__(self, dimensions: int, max_bytes: int, store: GraphStore | None = None,
                 background_min: int = 0, projection_min_rows: int = 0) -> None:
        """store: where full reads run in their own transactions; without one they run in the caller's.
        background_min: a user with at least this many memories (and more than 0) is read in the background
        when not cached, and user() answers None (the caller's Neo4j path) until the read is done; needs a
        store. projection_min_rows: a user with at least this many rows (and more than 0) gets a projection
        (Projection) for its first dense stage: built with the full read, or in the background (with a
        store) when a catch-up takes the user past it; every query is exact until then."""
        self.dimensions = dimensions
        self.max_bytes = max_bytes
        self._store = store
        self.background_min = background_min
        self.projection_min_rows = projection_min_rows
        self._users: OrderedDict[tuple[str, str], CachedUser] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[tuple[str, ...], threading.Thread] = {}  # (tenant, user) or ("projection", ...)
        # The entries being read from the store and not put yet, by user: what forget() marks as erased.
        self._reading: dict[tuple[str, str], list[CachedUser]] = {}
        self.loads = 0  # full reads of a user (for tests and metrics)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(u.nbytes for u in self._users.values())

    def user(self, tx: Tx, scope: Scope, state: UserState) -> CachedUser | None:
        """The user's rows, brought up to date with the store inside tx; None when the user cannot be
        cached (empty, or larger than the whole cache)."""
        key = (scope.tenant, scope.user_id)
        if state.mine == 0:  # erased (perhaps through another worker), or never had a memory
            self._drop(key)
            return None
        if self.max_bytes <= 0 or state.mine * self.dimensions * 4 > self.max_bytes:
            return None
        with self._lock:
            cached = self._users.get(key)
            if cached is not None:
                self._users.move_to_end(key)
        if cached is not None and cached.epoch != state.epoch:
            self._drop(key, cached)  # an undo, or the user erased and written anew: these rows are not the user's
            cached = None
        if cached is not None and cached.seq > state.seq:
            cached = None  # an undo, or read in a transaction older than a catch-up's: read anew
        if cached is not None and cached.seq < state.seq:
            if state.seq - cached.seq > self.CATCH_UP_MAX:
                cached = None
            else:
                self._read(tx, scope, cached, "recall/user_vectors", (cached.seq, None), state.seq - cached.seq)
                with self._lock:
                    cached.seq = max(cached.seq, state.seq)
        if cached is None or not _holds_rows_for(cached.n, state.mine):
            if self._store is not None and 0 < self.background_min <= state.mine:
                self._load_in_background(key, scope, state)
                return None
            cached = CachedUser(state.epoch, state.seq, self.dimensions, capacity=state.mine + 16)
            with self._being_read(key, cached):
                self._read_all(tx, scope, cached)
                self._project(cached)
                self.loads += 1
                cached.state = state
                self.put(key, cached)
        else:
            if self._wants_projection(cached):
                self._project_in_background(key, cached)
            cached.state = state
            self.put(key, cached)
        return None if cached.erased else cached  # erased while read: not kept, and not used

    def _wants_projection(self, cached: CachedUser) -> bool:
        """A user past projection_min_rows without a projection, or whose projection has gone stale."""
        if not 0 < self.projection_min_rows <= cached.n:
            return False
        projection = cached.projection
        return projection is None or projection.outliers.shape[0] > REBUILD_OUTLIER_SHARE * cached.n

    def _project(self, cached: CachedUser) -> None:
        """Give a user with enough rows its projection, or a new one for a stale one (an SVD of a sample:
        ~1.3 s for 100k rows). A query that took the old one keeps it."""
        if not self._wants_projection(cached):
            return
        _, matrix = cached.view()
        projection = build_projection(matrix)
        with self._lock:  # rows appended meanwhile are projected too, before the projection is seen
            projection.extend(cached.matrix, cached.n)
            cached.projection = projection

    def _project_in_background(self, key: tuple[str, str], cached: CachedUser) -> None:
        """Build the projection of a user that grew past projection_min_rows (or again, for a stale one) in
        a daemon thread (inline without a store); its queries stay exact (or on the old one) until it is
        done."""
        if self._store is None:
            self._project(cached)
            return
        self._in_background(("projection", *key), f"bmam-projection-{key[1]}", lambda: self._project(cached),
                            f"building the projection of {key[0]}/{key[1]} failed")

    def _in_background(self, name: tuple[str, ...], label: str, work: Callable[[], None], failure: str) -> None:
        """Run work in a daemon thread, one at a time per name (asked again while it runs: nothing)."""
        with self._lock:
            running = self._loading.get(name)
            if running is not None and running.is_alive():
                return

            def run() -> None:
                try:
                    work()
                except Exception:  # the store went away (shutdown, restart): the next recall tries again
                    log.warning(failure, exc_info=True)
                finally:
                    with self._lock:
                        self._loading.pop(name, None)

            thread = threading.Thread(target=run, name=label[:60], daemon=True)
            self._loading[name] = thread
            thread.start()

    def current(self, scope: Scope, cached: CachedUser, state: UserState, ranked_as: tuple[str | None, int, int],
                ) -> bool:
        """Whether cached, ranked when it was at ranked_as (epoch, seq, n: read in that order, before the
        ranking, with CachedUser.ranked_as), held all of the user's memories of state (what user() would
        use as it is), marking the user recently used if so. Another thread may have caught the rows up
        since: what counts is what the ranking saw."""
        epoch, seq, n = ranked_as
        if state.mine == 0 or cached.epoch != state.epoch:
            # erased (perhaps through another worker), or erased and written anew, or an undo: these rows are
            # not the user's any more (user() would read the user anew)
            self._drop((scope.tenant, scope.user_id), cached)
            return False
        if epoch != state.epoch or seq != state.seq:
            return False
        if not _holds_rows_for(n, state.mine):
            return False
        key = (scope.tenant, scope.user_id)
        with self._lock:
            if self._users.get(key) is not cached:
                return False
            self._users.move_to_end(key)
        cached.state = state
        return True

    def _load_in_background(self, key: tuple[str, str], scope: Scope, state: UserState) -> None:
        """Read a large user in a daemon thread (one at a time per user); the next user() after it is done
        finds the rows and catches up on what was written meanwhile."""
        def load() -> None:
            cached = CachedUser(state.epoch, state.seq, self.dimensions, capacity=state.mine + 16)
            with self._being_read(key, cached):
                self._read_all(None, scope, cached)
                self._project(cached)
                self.loads += 1
                self.put(key, cached)

        self._in_background(key, f"bmam-cache-{scope.user_id}", load,
                            f"background read of {key[0]}/{key[1]} into the vector cache failed")

    def wait_for_loads(self, timeout_s: float = 60.0) -> None:
        """Until the background reads running now are done (tests, benchmarks)."""
        with self._lock:
            running = list(self._loading.values())
        for thread in running:
            thread.join(timeout_s)

    @contextmanager
    def _being_read(self, key: tuple[str, str], cached: CachedUser) -> Iterator[None]:
        """Around a read of the user's rows into a new entry (registered before the first row is read): an
        erasure committed meanwhile marks it (forget, _drop), and put() then leaves it out."""
        with self._lock:
            self._reading.setdefault(key, []).append(cached)
        try:
            yield
        finally:
            with self._lock:
                held = self._reading.get(key, [])
                if cached in held:
                    held.remove(cached)
                if not held:
                    self._reading.pop(key, None)

    def put(self, key: tuple[str, str], cached: CachedUser) -> None:
        """Keep a user's rows as the most recently used, evicting the least recently used beyond max_bytes;
        rows marked erased (the user erased, or found without memories, while they were read) are not kept."""
        with self._lock:
            if cached.erased:
                return
            self._users[key] = cached
            self._users.move_to_end(key)
            total = sum(u.nbytes for u in self._users.values())
            while total > self.max_bytes and len(self._users) > 1:
                _, dropped = self._users.popitem(last=False)
                total -= dropped.nbytes

    def keys(self) -> list[tuple[str, str]]:
        """The cached users, least recently used first."""
        with self._lock:
            return list(self._users)

    def _read_all(self, tx: Tx | None, scope: Scope, cached: CachedUser) -> None:
        """Every memory of the user: the numbered ones page by page in sequence order, then any without
        a number page by page in id order; each page in its own read transaction when there is a store."""
        def run(work: Callable[[Tx], T]) -> T:
            if self._store is not None:
                return self._store.read_tx(work)
            assert tx is not None, "without a store the caller's transaction reads"
            return work(tx)

        if self._store is not None:
            def state(own: Tx) -> None:
                # The user's sequence as these reads see it (the caller's may count memories its own
                # transaction wrote and these cannot see): what is numbered later is caught up.
                seen = user_state(own, scope)
                cached.seq, cached.epoch = seen.seq, seen.epoch
                # What the next recall guesses (graph/recall.py _speculate, then current()): a user read in
                # the background is checked against the store at its next recall, and dropped there once
                # erased through another worker, like the others.
                cached.state = seen
            run(state)
        for name, start in (("recall/user_vectors", (0, None)), ("recall/user_vectors_unnumbered", None)):
            after: Any = start
            while True:
                def page(own: Tx, name: str = name, after: Any = after) -> Any:
                    return self._read(own, scope, cached, name, after, self.PAGE)

                after = run(page)
                if after is None:
                    break

    def _read(self, tx: Tx, scope: Scope, cached: CachedUser, name: str, after: Any, limit: int) -> Any:
        """One page of rows into cached (embeddings of another size skipped); the page's last key ((seq,
        id) or id) when the page was full and there may be more, else None."""
        ids: list[str] = []
        texts: list[str] = []
        keys: list[str | None] = []
        vectors: list[list[float]] = []
        last: Any = None
        count = 0
        params = {"tenant": scope.tenant, "user_id": scope.user_id, "limit": limit}
        if isinstance(after, tuple):  # numbered rows: keyset (seq, id)
            params["after_seq"], params["after_id"] = after
        else:
            params["after"] = after
        for row in tx.stream(name, params):
            count += 1
            last = (row["seq"], row["id"]) if "seq" in row else row["id"]
            vector = row["embedding"]
            if vector is None or len(vector) != self.dimensions:
                continue
            ids.append(row["id"])
            texts.append(row["text"] or "")
            keys.append(row["text_key"])
            vectors.append(vector)
        if ids:
            with self._lock:
                cached.append(ids, texts, np.asarray(vectors, dtype=np.float32), keys)
        return last if count >= limit else None

    def peek(self, scope: Scope) -> CachedUser | None:
        """The user's rows as last brought up to date (by user() earlier in the same recall), unchecked."""
        with self._lock:
            return self._users.get((scope.tenant, scope.user_id))

    def forget(self, scope: Scope) -> None:
        """forgetUser's hook: drop the user's rows, and mark the ones being read (put() leaves them out)."""
        self._drop((scope.tenant, scope.user_id))

    def _drop(self, key: tuple[str, str], only: CachedUser | None = None) -> None:
        """Drop the user's entry (only: when it is still that one) and mark it and every entry of the user
        being read as erased. A read marked by mistake (the user written anew meanwhile) is only read again."""
        with self._lock:
            held = self._users.get(key)
            if held is not None and (only is None or held is only):
                del self._users[key]
                held.erased = True
            if only is not None:
                only.erased = True
            for reading in self._reading.get(key, ()):
                reading.erased = True


def _unit(embedding: Sequence[float] | np.ndarray) -> np.ndarray:
    query = np.asarray(embedding, dtype=np.float32)
    norm = float(np.linalg.norm(query))
    return query / norm if norm > 0 else query


def _cosines(matrix: np.ndarray, embedding: Sequence[float] | np.ndarray) -> np.ndarray:
    with _one_blas_thread():
        return np.asarray(matrix @ _unit(embedding))


def _one_blas_thread() -> Any:
    """One BLAS thread for the block: a matrix-vector product is memory-bound, and two threads on two busy
    cores made its p95 16 ms instead of 5 ms for 10k rows (bench/results/recall_latency.md). Splitting a 100k
    matrix over two Python threads gained nothing either (5.6 ms both: ~36 GB/s, the memory's limit)."""
    global _BLAS
    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


_BLAS: ThreadpoolController | None = None


class QueryCosines:
    """One query's cosines to a cached user's rows, each row's computed once: the rankings of one recall
    (dense, terms, a second round, again after a catch-up) share them, and a catch-up costs only the rows
    it appended (the rows of a CachedUser are only ever appended).

    A user with a projection is ranked in two stages: every row the projection holds is scored on it, and
    only the best of those (the shortlist), its outliers and the rows it does not hold yet get their exact
    cosine."""

    __slots__ = ("_approx", "_exact", "_outliers", "_query", "_values", "cached")

    def __init__(self, cached: CachedUser, embedding: Sequence[float]) -> None:
        self.cached = cached
        self._query = _unit(embedding)
        self._values = np.zeros(0, dtype=np.float32)  # exact cosines of rows 0.. (no projection)
        self._approx: np.ndarray | None = None  # estimates of the cosines of the projection's rows
        self._outliers = np.zeros(0, dtype=np.int64)  # the projection's outliers among those rows
        self._exact = np.zeros(0, dtype=np.float32)  # with a projection: each row's exact cosine, NaN until computed

    def _all(self) -> tuple[list[str], np.ndarray]:
        """The ids and the exact cosines of the user's first n cached rows as of now (ids[i] for cosine i)."""
        ids, matrix = self.cached.view()
        n, have = matrix.shape[0], self._values.shape[0]
        if n > have:
            fresh = _cosines(matrix[have:], self._query)
            self._values = fresh if have == 0 else np.concatenate((self._values, fresh))
        return ids, self._values[:n]

    def _projected(self) -> np.ndarray | None:
        """The estimate of its cosine to the query (the product on the projection) of every row the
        projection held when this query first looked; None without a projection (or when this query
        started exact)."""
        if self._approx is None and not self._values.shape[0]:
            projection = self.cached.projection
            if projection is not None:
                m, outliers = projection.m, projection.outliers
                self._approx = projection.products(self._query, m)
                self._outliers = outliers[outliers < m]
        return self._approx

    def of_rows(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """The exact cosines of some rows (row numbers of the cached user)."""
        if self._projected() is None:
            _, values = self._all()
            return values[np.asarray(rows, dtype=np.int64)]
        wanted = np.asarray(rows, dtype=np.int64)
        _, matrix = self.cached.view()
        if self._exact.shape[0] < matrix.shape[0]:  # rows appended since: not computed yet (NaN)
            grown = np.full(matrix.shape[0], np.nan, dtype=np.float32)
            grown[: self._exact.shape[0]] = self._exact
            self._exact = grown
        # Not deduplicated (sorting 1000 rows cost ~0.15 ms at 100k): a row asked twice is computed twice,
        # to the same value.
        missing = wanted[np.isnan(self._exact[wanted])]
        if missing.shape[0]:
            self._exact[missing] = _cosines(matrix[missing], self._query)
        return self._exact[wanted]

    def top(self, limit: int) -> tuple[list[str], np.ndarray, np.ndarray, bool]:
        """(ids, rows, cosines, complete): the rows of the best at most limit exact cosines, unordered;
        complete when no other row remains. With a projection, the best by exact cosine among the
        shortlist and the rows it does not hold."""
        projected = self._projected()
        if projected is None:
            ids, cosines = self._all()
            n = cosines.shape[0]
            rows = np.argpartition(-cosines, limit - 1)[:limit] if limit < n else np.arange(n)
            return ids, rows, cosines[rows], limit >= n
        estimates = projected
        ids, matrix = self.cached.view()
        n, m = matrix.shape[0], estimates.shape[0]
        wanted = max(SHORTLIST, 4 * limit)
        if wanted < m:
            picked = np.zeros(m, dtype=bool)
            picked[np.argpartition(estimates, m - wanted)[m - wanted:]] = True  # the best wanted (no negated copy)
            picked[self._outliers] = True
            shortlist = np.flatnonzero(picked)
        else:
            shortlist = np.arange(m)
        rows = np.concatenate((shortlist, np.arange(m, n)))  # and the rows appended since: exact
        cosines = self.of_rows(rows)
        best = np.argpartition(-cosines, limit - 1)[:limit] if limit < rows.shape[0] else np.arange(rows.shape[0])
        return ids, rows[best], cosines[best], limit >= n


def rank_dense(query: QueryCosines, limit: int) -> Ranked:
    """The cached memories nearest the query, at most limit, best first (ties by id, as the Neo4j scan
    orders them). Exact below a user's projection; with one, exact among its shortlist."""
    ids, rows, cosines, complete = query.top(limit)
    order = sorted(range(rows.shape[0]), key=lambda j: (-float(cosines[j]), ids[int(rows[j])]))
    ranked = [ids[int(rows[j])] for j in order]
    values = [float(cosines[j]) for j in order]
    return Ranked(ids=ranked, cosines=dict(zip(ranked, values, strict=True)), scores=values, complete=complete)


def rank_terms(query: QueryCosines, terms: Sequence[str]) -> Ranked:
    """Every cached memory holding any of the query's terms (lower-cased substrings, as the Neo4j scan
    matches them), most terms first, ties by id; with their cosines to the query."""
    ids, matrix = query.cached.view()
    found = sorted(((h, i) for i, h in query.cached.term_hits(terms).items() if i < matrix.shape[0]),
                   key=lambda hi: (-hi[0], ids[hi[1]]))
    rows = [i for _, i in found]
    cosines = query.of_rows(rows).tolist()
    return Ranked(ids=[ids[i] for i in rows], cosines={ids[i]: c for i, c in zip(rows, cosines, strict=True)},
                  scores=[float(h) for h, _ in found], complete=True)
