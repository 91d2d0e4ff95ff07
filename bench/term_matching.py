"""Benchmark: a cached user's term matching (graph/vector_cache.py CachedUser.term_hits, the pair index)
against the plain scan it replaces in meaning (every lower-cased text tested for every term), in the same
run, on the eval generator's texts (bench/eval_data.py, Chinese and English) plus the recall latency
benchmark's synthetic filler ("note w0453 ..."). No Neo4j, no model.

Prints the time per question (median, p95) both ways, their ratio, the pair index's build time, and checks
that both find the same rows with the same counts for every question.

    .venv/bin/python bench/term_matching.py                        # 60 eval users + filler to 10k rows
    .venv/bin/python bench/term_matching.py --users 120 --rows 0   # real texts only
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_data import generate
from recall_latency import pct

from graph.vector_cache import CachedUser
from ingest.scoring import terms


def scanned(lowered: Sequence[str], query_terms: Sequence[str]) -> dict[int, int]:
    """The baseline: row -> how many of the terms its text holds, by testing every text."""
    counts: dict[int, int] = {}
    for term in query_terms:
        if term:
            for i, text in enumerate(lowered):
                if term in text:
                    counts[i] = counts.get(i, 0) + 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=60, help="eval users pooled into one (~150 memories each)")
    parser.add_argument("--rows", type=int, default=10_000, help="filled up to this many rows with synthetic text")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)

    data = generate(seed=args.seed, users=args.users)
    texts = [m.text for m in data.memories]
    rng = np.random.default_rng(args.seed)
    words = [f"w{i:04d}" for i in range(2000)]
    texts += ["note " + " ".join(rng.choice(words, 6)) for _ in range(max(0, args.rows - len(texts)))]
    user = CachedUser(None, 0, 4, capacity=len(texts))
    user.append([f"m{i}" for i in range(len(texts))], texts, np.ones((len(texts), 4), dtype=np.float32))
    t0 = time.perf_counter()
    user.term_hits(["x"])  # builds the pair index
    build_s = time.perf_counter() - t0
    questions = [terms(q.text) for q in data.questions]

    indexed: list[float] = []
    plain: list[float] = []
    for i, query_terms in enumerate(questions):
        ways = ((indexed, lambda q=query_terms: user.term_hits(q)),
                (plain, lambda q=query_terms: scanned(user.lowered, q)))
        found = []
        for times, way in ways if i % 2 else ways[::-1]:  # alternating which goes first
            t = time.perf_counter()
            found.append(way())
            times.append(time.perf_counter() - t)
        if found[0] != found[1]:
            raise SystemExit(f"different hits for {query_terms}")
    print(f"bench/term_matching.py: {len(texts)} rows ({len(data.memories)} real), {len(questions)} questions; "
          f"pair index built in {build_s * 1000:.0f} ms; same hits for every question")
    print("| way | p50 | p95 |\n|---|---|---|")
    print(f"| pair index (term_hits) | {pct(indexed, 0.5):.3f} ms | {pct(indexed, 0.95):.3f} ms |")
    print(f"| every text tested | {pct(plain, 0.5):.3f} ms | {pct(plain, 0.95):.3f} ms |")
    print(f"ratio pair index / scan (p50): {pct(indexed, 0.5) / pct(plain, 0.5):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
