"""Benchmark: how long a CLI command that embeds nothing takes, now that the embedding model loads at its first
use (ingest/embedding.py LazyEmbedder), against the same command with the model loaded at start, as every
command did before (the baseline, same run, rounds alternating). Each run is a process of its own:
`bmam memories -u USER --tenant TENANT` on the running Neo4j. Prints the medians and the ratio.

    .venv/bin/python bench/cli_startup.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The command as it ran before: the embedder loaded its model when the container built it.
EAGER = """
import sys
from ingest import embedding
lazy_init = embedding.LazyEmbedder.__init__
def eager_init(self, *args, **kwargs):
    lazy_init(self, *args, **kwargs)
    self.load()
embedding.LazyEmbedder.__init__ = eager_init
from bmam.cli import main
sys.argv = ["bmam", *sys.argv[1:]]
main()
"""


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    command = ["memories", "-u", "bench-cli", "--tenant", f"bench-cli-{uuid.uuid4().hex[:8]}"]
    lazy: list[float] = []
    eager: list[float] = []
    for r in range(args.rounds):
        runs = [(lazy, [sys.executable, "-m", "bmam.cli", *command]), (eager, [sys.executable, "-c", EAGER, *command])]
        for into, argv in (runs if r % 2 == 0 else runs[::-1]):
            into.append(timed(argv))
    a, b = statistics.median(lazy), statistics.median(eager)
    print(f"bmam memories, {args.rounds} runs each: model at first use {a:.2f} s (median; "
          f"{min(lazy):.2f}-{max(lazy):.2f}), model at start (baseline) {b:.2f} s ({min(eager):.2f}-{max(eager):.2f}); "
          f"ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
