"""relatedSearch on a user whose memories are all associated with each other (what one RDF import can build:
250 memories, 31,125 ASSOCIATED edges), against the unbounded statement it replaced
(cypher/bench/related_unbounded.cypher) in the same run; and on a normal user (bench/recall_latency.py's
filler: two random associations and two Zipf-distributed entity mentions a memory), where both must answer the same.

    .venv/bin/python bench/related_dense.py [--tenant rel49] [--memories 250] [--normal 2000] [--depths 2 3]
                                            [--limit 20] [--repeats 5] [--starts 3] [--keep] [--out FILE]

Both statements run through GraphStore.read with the same parameters (graph/related.py search_params with the
service's defaults: limit 20, minStrength 0.05, width min(limit, recall.related_width)), taking turns. Prints
the median per depth of each and the ratio unbounded / bounded, and whether their results match. The
unbounded statement may not finish on the dense user: past the transaction timeout (TIMEOUT) or out of Neo4j's
transaction memory (UNAVAILABLE once the store's retries gave up, as the service answered it); its figure is then
the time it took to fail, a lower bound, measured once (it fails the same way every time).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_latency import load_filler
from bmam.container import Container
from bmam.settings import load_settings
from graph.bench_load import BenchLoader
from graph.errors import StoreUnavailable
from graph.model import Scope
from graph.related import TraversalParams, search_params
from graph.store import GraphStore, Row

BOUNDED = "related/search"
UNBOUNDED = "bench/related_unbounded"


def load_dense(store: GraphStore, scope: Scope, count: int, dimensions: int, *,
               seed: int = 7) -> tuple[list[str], dict[tuple[str, str], float]]:
    """count memories of one user, every two of them associated (a random strength in 0.05..1), loaded in
    batches (graph/bench_load.py): their ids (ids are unique across tenants: the tenant is in them), and the
    strengths by (smaller id, larger id)."""
    loader = BenchLoader(store)
    now = datetime.now(UTC)
    rng = np.random.default_rng(seed)
    ids = [f"m_{scope.tenant}_{scope.user_id}_{i:04d}" for i in range(count)]
    vectors = rng.standard_normal((count, dimensions)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for lo in range(0, count, 500):
        loader.memories(scope, [{"id": ids[i], "text": f"dense memory {i}", "created_at": now, "session_id": None,
                                 "embedding": vectors[i].tolist()} for i in range(lo, min(count, lo + 500))], now=now)
    draw = random.Random(seed)
    strengths = {(a, b): draw.uniform(0.05, 1.0) for i, a in enumerate(ids) for b in ids[i + 1:]}
    pairs = [{"low": a, "high": b, "strength": s} for (a, b), s in strengths.items()]
    for lo in range(0, len(pairs), 5000):
        loader.links(scope, [], pairs[lo: lo + 5000], now=now)
    return ids, strengths


def _results(rows: list[Row]) -> list[tuple[str, float, int]]:
    """(memory id, score, hops) of each result, best first: what the two statements must agree on."""
    found = rows[0]["results"] if rows else []
    return [(r["memory"]["id"], round(float(r["score"]), 12), len(r["path"])) for r in found]


def _timed(call: Callable[[], list[Row]]) -> tuple[float, list[Row] | str]:
    started = time.perf_counter()
    try:
        rows: list[Row] | str = call()
    except StoreUnavailable as exc:  # StoreTimeout (TIMEOUT) too
        rows = exc.code
    return time.perf_counter() - started, rows


def compare(store: GraphStore, scope: Scope, starts: Sequence[str], depth: int, params: Callable[[str], dict[str, Any]],
            repeats: int) -> dict[str, Any]:
    """Each start's search with both statements, taking turns, repeats times; the unbounded one only once
    after it failed."""
    walls: dict[str, list[float]] = {BOUNDED: [], UNBOUNDED: []}
    failed: dict[str, str] = {}
    same = True
    for start in starts:
        for round_ in range(repeats):
            answers: dict[str, list[Row] | str] = {}
            for name in (BOUNDED, UNBOUNDED) if round_ % 2 == 0 else (UNBOUNDED, BOUNDED):
                if name in failed:
                    continue
                seconds, answer = _timed(partial(store.read, name, params(start), depth=depth))
                walls[name].append(seconds)
                answers[name] = answer
                if isinstance(answer, str):
                    failed[name] = answer
            a, b = answers.get(BOUNDED), answers.get(UNBOUNDED)
            if isinstance(a, list) and isinstance(b, list) and _results(a) != _results(b):
                same = False
    return {"walls": walls, "failed": failed, "same": same}


def line(what: str, depth: int, found: dict[str, Any]) -> str:
    walls, failed = found["walls"], found["failed"]
    bounded = statistics.median(walls[BOUNDED]) * 1000.0
    unbounded = statistics.median(walls[UNBOUNDED]) * 1000.0
    if UNBOUNDED in failed:
        theirs = f"failed ({failed[UNBOUNDED]}) after {unbounded:.0f} ms"
        ratio = f">= {unbounded / bounded:.0f}x"
    else:
        theirs = f"{unbounded:.1f} ms"
        ratio = f"{unbounded / bounded:.2f}x"
    agree = "n/a" if UNBOUNDED in failed else ("same results" if found["same"] else "RESULTS DIFFER")
    return (f"- {what}, depth {depth}: bounded median {bounded:.1f} ms ({len(walls[BOUNDED])} runs), unbounded "
            f"{theirs}; unbounded / bounded {ratio}; {agree}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tenant", default="rel49")
    parser.add_argument("--memories", type=int, default=250, help="memories of the dense user")
    parser.add_argument("--normal", type=int, default=2000, help="memories of the normal user")
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--limit", type=int, default=None, help="default: recall.related_limit")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--starts", type=int, default=3, help="start memories per user")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the two users (default: delete them)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    settings = load_settings()
    container = Container(settings)
    r = settings.recall
    limit = r.related_limit if args.limit is None else args.limit
    width = min(limit, r.related_width)
    store = container.store  # as the service runs it: its timeout, its retries
    loader = BenchLoader(store)
    dense = Scope(args.tenant, f"dense-{args.memories}")
    normal = Scope(args.tenant, f"normal-{args.normal}")
    traversal = TraversalParams(entity_base=r.entity_strength, max_degree=r.max_entity_degree)
    report = [f"bench/related_dense.py, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: limit {limit}, minStrength "
              f"{r.related_min_strength}, width {width}, tx timeout {store.config.tx_timeout_s:g} s; median of "
              f"{args.repeats} runs from each of {args.starts} start memories"]
    try:
        for scope in (dense, normal):
            loader.delete_user(scope)
        started = time.perf_counter()
        dense_ids, _ = load_dense(store, dense, args.memories, container.vector_dimensions, seed=args.seed)
        normal_ids = load_filler(container, normal, args.normal, rng=np.random.default_rng(args.seed))
        report.append(f"- users: dense {args.memories} memories, {args.memories * (args.memories - 1) // 2} "
                      f"associations; normal {args.normal} memories; loaded in {time.perf_counter() - started:.1f} s")
        dense_starts = dense_ids[: args.starts]
        normal_starts = normal_ids[:: max(1, len(normal_ids) // args.starts)][: args.starts]

        def params(scope: Scope) -> Callable[[str], dict[str, Any]]:
            return lambda start: search_params(scope, start, limit=limit, min_strength=r.related_min_strength,
                                               traversal=traversal, width=width)

        for depth in args.depths:  # both plans compiled before anything is timed (on the normal user: the
            for name in (BOUNDED, UNBOUNDED):  # unbounded one would fail on the dense one)
                store.read(name, params(normal)(normal_starts[0]), depth=depth)
        for what, scope, starts in (("dense", dense, dense_starts), ("normal", normal, normal_starts)):
            for depth in args.depths:
                report.append(line(what, depth, compare(store, scope, starts, depth, params(scope), args.repeats)))
                print(report[-1], flush=True)
    finally:
        if not args.keep:
            for scope in (dense, normal):
                loader.delete_user(scope)
        container.close()
    text = "\n".join(report) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
