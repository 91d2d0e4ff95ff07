"""The cyclic garbage collector's full pass in a serving bmam process, with and without the start-up heap
frozen (settings.api.freeze_startup_heap, resolvers/app.py lifespan).

    .venv/bin/python bench/gc_pause.py [--memories 100] [--recalls 50] [--passes 7]

A full pass (generation 2) holds the GIL, so every request of the process waits for it; Python starts one
by itself once enough objects have survived into the oldest generation. The bench builds what `bmam serve`
holds (the container, the embedding model, a user with memories, a few recalls run), times `gc.collect()`
`--passes` times as the heap is, each after `--recalls` more recalls (the baseline), then freezes it as the
app does after start-up and times the same passes again. Prints the medians and the ratio. Needs Neo4j
(`bmam neo4j start`); the bench user is erased at the end.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import uuid
from collections.abc import Callable

from bmam.container import Container
from bmam.settings import load_settings
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest

QUESTIONS = ["what do I like with tea", "周末去哪里", "hotpot in Chengdu", "where did I park", "公园"]


def full_passes(passes: int, serve: Callable[[], None]) -> list[float]:
    """Milliseconds of each of `passes` full collections, each after a round of serving (what requests leave
    behind is what a pass finds besides the start-up heap)."""
    out = []
    for _ in range(passes):
        serve()
        started = time.perf_counter()
        gc.collect()
        out.append((time.perf_counter() - started) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100)
    parser.add_argument("--recalls", type=int, default=50)
    parser.add_argument("--passes", type=int, default=7)
    args = parser.parse_args()

    container = Container(load_settings())
    container.migrate()
    tenant, user = "bench-gc", f"gc-{uuid.uuid4().hex[:8]}"
    try:
        for i in range(args.memories):
            text = f"I like item {i} with tea and hotpot in Chengdu" if i % 3 else f"我周末喜欢去{i}号公园散步"
            container.memories.remember(tenant, RememberRequest(user_id=user, text=text, type="FACTUAL"))

        def serve() -> None:
            for i in range(args.recalls):
                container.recall.recall(tenant, RecallRequest(user_id=user, query=QUESTIONS[i % len(QUESTIONS)]))

        serve()
        tracked = len(gc.get_objects())
        before = full_passes(args.passes, serve)
        gc.collect()
        gc.freeze()
        frozen = gc.get_freeze_count()
        after = full_passes(args.passes, serve)
        gc.unfreeze()
        b, a = statistics.median(before), statistics.median(after)
        print(f"objects the collector tracks: {tracked:,}; frozen: {frozen:,}")
        print(f"full pass, heap as it is (baseline): median {b:.1f} ms (min {min(before):.1f}, max {max(before):.1f})")
        print(f"full pass, start-up heap frozen:     median {a:.2f} ms (min {min(after):.2f}, max {max(after):.2f})")
        print(f"ratio frozen / baseline: {a / b:.4f}")
    finally:
        container.erasure.forget_user(tenant, user, confirm=True)
        container.close()


if __name__ == "__main__":
    main()
