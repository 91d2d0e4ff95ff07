"""The first requests after Neo4j's plan cache empties (a restart), with and without the plan warm-up
(bmam/usecases/warm_up.py), in process, alternating rounds.

    .venv/bin/python bench/plan_warm_up.py [--tenant bench-lat] [--size 10000] [--rounds 3]

Each round empties the plan cache (`db.clearQueryCaches()`, what a restart leaves), then either times the
first recall of a question the warm-up does not rehearse and the first relatedSearch at each depth 1-5 from a
memory of the user (cold), or first runs the warm-up on the same user (timed) and then the same requests
(warmed). The bench user is one kept by `bench/recall_latency.py --keep --tenant NAME`; the user is read into
the vector cache before the first round, so the rounds time Neo4j's planning, not the cache's load.
With --rehearse-size N the warm-up rehearses another kept user (of N memories) instead: whether its plans serve a
user whose id is of another length (Neo4j files a plan under its string parameters' size classes too: README
"Restarting bmam"); with --store-subjects it rehearses the users the store names, as `bmam serve` does (the biggest
user of each size class of tenant and user id).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_latency import add_kept_user_arguments, kept_user
from bmam.container import Container
from bmam.settings import load_settings
from bmam.usecases.recall import RecallRequest
from bmam.usecases.warm_up import MAX_SUBJECTS
from graph.model import Scope

QUESTION = "Where did I travel last year?"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_kept_user_arguments(parser, rounds=3)
    parser.add_argument("--rehearse-size", type=int, default=None,
                        help="the warm-up rehearses the kept user of this many memories (default: the measured one)")
    parser.add_argument("--store-subjects", action="store_true",
                        help="the warm-up rehearses the users the store names, as `bmam serve` does")
    args = parser.parse_args(argv)
    user, real = kept_user(args.tenant, args.size)
    rehearsed, rehearsed_real = kept_user(args.tenant, args.rehearse_size) if args.rehearse_size else (user, real)
    subjects = None if args.store_subjects else [(Scope(tenant=args.tenant, user_id=rehearsed), rehearsed_real[0])]
    container = Container(load_settings())
    recall = container.recall

    def first_requests() -> tuple[float, float]:
        started = time.perf_counter()
        recall.recall(args.tenant, RecallRequest(user_id=user, query=QUESTION, k=5))
        recalled = time.perf_counter() - started
        started = time.perf_counter()
        for depth in range(1, 6):
            recall.related(args.tenant, user, real[0], depth=depth)
        return recalled, time.perf_counter() - started

    try:
        named = recall.rehearsal_subjects(MAX_SUBJECTS) if args.store_subjects else []
        cached = {(args.tenant, user), (args.tenant, rehearsed), *((s.tenant, s.user_id) for s, _ in named)}
        for tenant, user_id in cached:  # each read into the vector cache before the rounds
            recall.recall(tenant, RecallRequest(user_id=user_id, query=QUESTION, k=5))
        container.vector_cache.wait_for_loads()
        times: dict[str, list[tuple[float, float]]] = {"cold": [], "warmed": []}
        warm_up_s: list[float] = []
        rehearsing = ""
        for round_ in range(args.rounds):
            for way in ("cold", "warmed") if round_ % 2 == 0 else ("warmed", "cold"):
                container.store.clear_plans()
                if way == "warmed":
                    report = container.plan_warm_up.run(subjects)
                    warm_up_s.append(report.seconds)
                    rehearsing = ", ".join(name.split("/", 1)[1] for name in report.users)
                times[way].append(first_requests())
        print(f"bench/plan_warm_up.py, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; {user} of "
              f"{args.tenant} (the warm-up rehearsing {rehearsing}); {args.rounds} rounds; the warm-up itself took "
              f"median {statistics.median(warm_up_s):.1f} s")
        for label, index in (("first recall", 0), ("first relatedSearch at depths 1-5 (sum)", 1)):
            cold = statistics.median(t[index] for t in times["cold"]) * 1000
            warmed = statistics.median(t[index] for t in times["warmed"]) * 1000
            print(f"{label}: cold {cold:.0f} ms, after the warm-up {warmed:.0f} ms; ratio {warmed / cold:.3f}")
    finally:
        container.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
