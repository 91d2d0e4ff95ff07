"""Benchmark: the rule stages a user turn goes through before any model or store (salience, triple extraction,
the rule classifier) on adversarial text up to the 32 KiB limit: how the time grows with the text's length.
A pattern that backtracks from every position of a run (an unanchored `\\w+ days ago`) costs n^2: 8x the text,
64x the time; linear rules cost 8x. No Neo4j, no model.

Prints, per kind of text, the median time at each length and the ratio of the longest to the shortest (the
baseline, measured in the same run), next to the 8x a linear cost would give.

    .venv/bin/python bench/adversarial_text.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest.classify import RuleClassifier
from ingest.extract import RuleTripleExtractor
from ingest.salience import assess

LENGTHS = (4096, 8192, 16384, 32000)  # characters; 32000 ASCII characters fit the 32 KiB text limit
KINDS: dict[str, Callable[[int], str]] = {
    "digits": lambda n: "1" * n,
    "digit-letter pairs": lambda n: "1a" * (n // 2),
    "Chinese run": lambda n: ("我住在成都" * (n // 5 + 1))[:n],
    "words": lambda n: ("I went to Berlin two days ago and loved it " * (n // 44 + 1))[:n],
    # one clause-long word of capitals joined by apostrophes or hyphens: a name tried from every capital (session 48)
    "capitals joined by apostrophes": lambda n: ("NYU'" * (n // 4 + 1))[:n],
    "words joined by apostrophes": lambda n: ("LIKE'" * (n // 5 + 1))[:n],
    "capitals joined by hyphens": lambda n: ("Ab-" * (n // 3 + 1))[:n],
}


def stages() -> Callable[[str], object]:
    extractor = RuleTripleExtractor()
    classifier = RuleClassifier(extractor)

    def run(text: str) -> object:
        return assess(text, speaker="user", extractor=extractor), extractor.extract(text), classifier.classify(text)

    return run


def median_ms(fn: Callable[[str], object], text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn(text)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    run = stages()
    run("warm up the rules")
    head = " | ".join(f"{n} chars" for n in LENGTHS)
    print(f"| text | {head} | longest / shortest (linear: {LENGTHS[-1] / LENGTHS[0]:.1f}x) |")
    print("|---|" + "---|" * len(LENGTHS) + "---|")
    for kind, make in KINDS.items():
        ms = [median_ms(run, make(n), args.repeats) for n in LENGTHS]
        cells = " | ".join(f"{m:.1f} ms" for m in ms)
        print(f"| {kind} | {cells} | {ms[-1] / ms[0]:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
