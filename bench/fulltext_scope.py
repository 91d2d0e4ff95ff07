"""Benchmark: a large user's full-text candidates, scoped to the user inside Lucene (the scope token,
graph/scope_token.py, as recall asks now) against the store-wide query filtered to the user afterwards (as
the index without tokens answered), in the same run, on whatever store NEO4J_URI names (the bench store of
bench/scale_load.py and bench/recall_latency.py: ~1.1M memories).

For each question (the eval generator's, bench/eval_data.py) and each user named: the user's best k hits
(the scoped query: Lucene's own ranking of the user's memories) and how many of them the store-wide query
found when asked for what recall asked it for (k * all / the user's * 1.5, at most 2000: the old plan), and
the time of each query (median, p95) with their ratio.

    NEO4J_URI=bolt://127.0.0.1:7697 .venv/bin/python bench/fulltext_scope.py --tenant bench-lat \\
        --users user-10000 user-100000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_data import generate
from recall_latency import pct

from bmam.container import Container
from bmam.settings import load_settings
from graph.model import Scope
from graph.recall import RetrievalLimits
from graph.scope_token import scoped_query
from ingest.scoring import lucene_query, terms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tenant", default="bench-lat")
    parser.add_argument("--users", nargs="+", default=["user-10000", "user-100000"])
    parser.add_argument("--questions", type=int, default=240)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)

    container = Container(load_settings())
    store = container.store
    r = container.settings.recall
    k, oversample, cap = r.text_candidates, r.oversample, r.max_index_candidates
    limits = RetrievalLimits(k_text=k, oversample=oversample, max_candidates=cap)
    questions = [q.text for q in generate(seed=args.seed, users=2).questions][: args.questions]
    queries = [q for q in (lucene_query(terms(text)) for text in questions) if q]
    try:
        for user in args.users:
            scope = Scope(args.tenant, user)
            state = store.read("recall/user_state", {"tenant": args.tenant, "user_id": user})[0]
            mine, total = int(state["mine"]), int(state["total"])
            # what recall asks the index for now, and what it asked before the tokens (the vector index's rule)
            new_limit = limits.plan(mine, total).index_text
            old_limit = int(min(max(k * total / max(mine, 1) * oversample, k), cap))

            def hits(lucene: str | None, limit: int, scope: Scope = scope) -> tuple[list[str], float]:
                started = time.perf_counter()
                ids = store.read("bench/fulltext_hits", {"tenant": scope.tenant, "user_id": scope.user_id,
                                                         "lucene": lucene, "limit": limit})[0]["ids"]
                return list(ids), time.perf_counter() - started

            for q in queries[:20]:  # warm both
                hits(scoped_query(scope, q), new_limit)
                hits(f"text:({q})", old_limit)
            found = best = 0
            new_s: list[float] = []
            old_s: list[float] = []
            for q in queries:
                mine_best, t_new = hits(scoped_query(scope, q), new_limit)
                old_ids, t_old = hits(f"text:({q})", old_limit)
                new_s.append(t_new)
                old_s.append(t_old)
                top = mine_best[:k]
                best += len(top)
                found += len(set(top) & set(old_ids[:k]))
            print(f"{user}: {mine:,} of {total:,} memories, {len(queries)} questions; the user's best {k} hits: "
                  f"{best / len(queries):.2f} per question; the store-wide query asked for {old_limit} found "
                  f"{found / max(best, 1):.3f} of them (scoped, asked for {new_limit}: all)")
            print(f"  time per query: scoped p50 {pct(new_s, 0.5):.2f} / p95 {pct(new_s, 0.95):.2f} ms, "
                  f"store-wide p50 {pct(old_s, 0.5):.2f} / p95 {pct(old_s, 0.95):.2f} ms; ratio "
                  f"p50 {pct(new_s, 0.5) / pct(old_s, 0.5):.2f}, p95 {pct(new_s, 0.95) / pct(old_s, 0.95):.2f}")
    finally:
        container.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
