"""Benchmark: forgetUser on a store of any size, against the real Neo4j.

Each repetition writes one small user (a few memories with their triples and an association) in a fresh
tenant, then times forgetUser on it, and, as the baseline in the same run, the proof alone: the re-query
counting every node and relationship of the store stamped with a user (`cypher/erasure/remaining`), which
scans the whole store whatever the user's size. An erasure of a small user costs about one proof when
nothing is scanned twice. Prints the medians and their ratio.

    .venv/bin/python bench/erasure.py                                        # the dev Neo4j
    NEO4J_URI=bolt://127.0.0.1:7697 .venv/bin/python bench/erasure.py        # the scale store (bench/scale_load.py)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.container import Container, ensure_neo4j
from bmam.settings import load_settings
from bmam.usecases.memories import RememberRequest
from graph.erasure import ErasureRepository
from graph.model import Scope


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--memories", type=int, default=5, help="memories of the erased user")
    args = parser.parse_args(argv)

    os.environ.setdefault("BMAM_NEO4J__TX_TIMEOUT_S", "300")  # the proof alone scans the whole store
    settings = load_settings()
    ensure_neo4j(settings)
    c = Container(settings)
    proof = ErasureRepository(c.store)
    erase_s: list[float] = []
    proof_s: list[float] = []
    size = c.store.read("bench/store_size")[0]
    try:
        for _ in range(args.reps):
            tenant = f"bench-erase-{uuid.uuid4().hex[:8]}"
            for i in range(args.memories):
                c.memories.remember(tenant, RememberRequest(user_id="eve", text=f"I keep note {i} about bees",
                                                            type="FACTUAL"))
            started = time.perf_counter()
            proof.remaining(Scope(tenant, "eve"))
            proof_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            receipt = c.erasure.forget_user(tenant, "eve", confirm=True)
            erase_s.append(time.perf_counter() - started)
            assert receipt.verified, receipt
    finally:
        c.close()
    erase, check = statistics.median(erase_s), statistics.median(proof_s)
    print(f"bench/erasure.py: a store of {size['nodes']:,} nodes and {size['relationships']:,} relationships; "
          f"{args.reps} users of {args.memories} memories each")
    print(f"forgetUser median {erase:.2f} s ({', '.join(f'{s:.2f}' for s in erase_s)}); the proof alone "
          f"{check:.2f} s ({', '.join(f'{s:.2f}' for s in proof_s)}); ratio {erase / check:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
