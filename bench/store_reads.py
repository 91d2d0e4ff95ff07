"""One read statement in an auto-commit transaction (GraphStore.read: one round trip) against the same
statement in a managed transaction (GraphStore.read_tx: BEGIN pipelined with the statement, then COMMIT in
a round trip of its own), alternating rounds on the same store, in process.

    .venv/bin/python bench/store_reads.py [--tenant bench-lat] [--size 10000] [--rounds 6] [--starts 200]

Statements: `meta/ping` (RETURN 1: the transaction's own cost) and `related/search` at depth 2 and 3 from the
first --starts real memories of a bench user kept by `bench/recall_latency.py --keep --tenant NAME` (the
statement relatedSearch runs, with the service's default parameters). Both ways must return the same rows
(checked first). Prints p50 / p95 of each and the ratio auto-commit / managed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_latency import add_kept_user_arguments, alternating_rounds, kept_user, pct
from bmam.container import Container
from bmam.settings import load_settings
from graph.model import Scope
from graph.related import search_params
from graph.store import Row


class Splices(TypedDict, total=False):
    """The statements' splices: related/search's traversal depth."""

    depth: int


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_kept_user_arguments(parser, rounds=6)
    parser.add_argument("--starts", type=int, default=200)
    args = parser.parse_args(argv)
    user, real = kept_user(args.tenant, args.size)
    container = Container(load_settings())
    store = container.store
    r = container.settings.recall

    def related(memory_id: str) -> dict[str, Any]:
        return search_params(Scope(args.tenant, user), memory_id, limit=r.related_limit,
                             min_strength=r.related_min_strength, traversal=container.recall.traversal,
                             width=min(r.related_limit, r.related_width))

    cases: dict[str, list[tuple[str, dict[str, Any], Splices]]] = {
        "meta/ping": [("meta/ping", {}, {})] * args.starts,
        "related/search d2": [("related/search", related(m), {"depth": 2}) for m in real[: args.starts]],
        "related/search d3": [("related/search", related(m), {"depth": 3}) for m in real[: args.starts]],
    }

    def auto(name: str, params: dict[str, Any], splices: Splices) -> list[Row]:
        return store.read(name, params, **splices)

    def managed(name: str, params: dict[str, Any], splices: Splices) -> list[Row]:
        return store.read_tx(lambda tx: tx.run(name, params, **splices))

    try:
        for label, calls in cases.items():
            for call in calls:
                if auto(*call) != managed(*call):
                    raise SystemExit(f"{label}: the two ways returned different rows for {call[1]}")
        print(f"same rows both ways for every call; {args.rounds} alternating rounds of {args.starts} calls each")
        for label, calls in cases.items():
            times = alternating_rounds([("auto", lambda call: auto(*call)), ("managed", lambda call: managed(*call))],
                                       calls, args.rounds)
            a, m = times["auto"], times["managed"]
            print(f"{label}: auto-commit p50 / p95 {pct(a, 0.5):.2f} / {pct(a, 0.95):.2f} ms, managed "
                  f"{pct(m, 0.5):.2f} / {pct(m, 0.95):.2f} ms; ratio p50 {pct(a, 0.5) / pct(m, 0.5):.2f}, "
                  f"p95 {pct(a, 0.95) / pct(m, 0.95):.2f}", flush=True)
    finally:
        container.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
