"""Can the embedding tell "the newer says the same thing differently"? Over the recalls of bench/dialogue_cases.py
(its --dump files, which hold each probe's recalled texts), the cosine between the two memories of a change (the
probe's answer and its stale memory, both recalled) against the cosine of every other pair recalled together.

    python bench/dialogue_cases.py --cases bench/data/dialogues_blind1.jsonl --dump /tmp/b1.jsonl
    python bench/change_pairs.py --cases bench/data/dialogues_blind1.jsonl --dump /tmp/b1.jsonl [--split tune]

(--cases and --dump in pairs, several allowed.) Prints every change pair's cosine and, for cosine lines 0.5-0.8,
how many change pairs and other pairs reach it: a line that keeps most change pairs and few others would let recall
put the newer of two such memories first without a rule for the words of the change."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.dialogue_cases import Probe, holds, read_cases
from bmam.settings import load_settings
from ingest.embedding import SentenceTransformerEmbedder, build_sentence_transformer

LINES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def _is_change_pair(probe: Probe, a: str, b: str) -> bool:
    """a and b are the probe's answer and its stale memory (either way round), neither holding both."""
    if probe.kind != "change" or not probe.stale:
        return False
    answer_a, answer_b = holds(a, probe.answer), holds(b, probe.answer)
    stale_a, stale_b = holds(a, probe.stale), holds(b, probe.stale)
    return (answer_a and stale_b and not answer_b) or (answer_b and stale_a and not answer_a)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, action="append", required=True)
    parser.add_argument("--dump", type=Path, action="append", required=True)
    parser.add_argument("--split", choices=("tune", "check", "all"), default="tune")
    args = parser.parse_args(argv)
    if len(args.cases) != len(args.dump):
        parser.error("give --cases and --dump in pairs")
    model = load_settings().embedding.model
    embedder = SentenceTransformerEmbedder(model, build_sentence_transformer(model))
    vectors: dict[str, np.ndarray] = {}

    def cosine(a: str, b: str) -> float:
        for t in (a, b):
            if t not in vectors:
                vectors[t] = embedder.embed_passages([t])[0]
        return float(np.dot(vectors[a], vectors[b]))

    change: list[tuple[float, str, str, str]] = []
    other: list[float] = []
    for cases, dump in zip(args.cases, args.dump, strict=True):
        probes = {(s.id, p.kind, p.ask): (s, p) for s in read_cases(cases) for p in s.probes}
        for line in dump.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            scenario, probe = probes[(row["id"], row["kind"], row["ask"])]
            if args.split != "all" and scenario.split != args.split:
                continue
            top: list[str] = row.get("top") or []
            for i, a in enumerate(top):
                for b in top[i + 1:]:
                    if _is_change_pair(probe, a, b):
                        change.append((cosine(a, b), scenario.id, a[:60], b[:60]))
                    else:
                        other.append(cosine(a, b))
    for c, scenario_id, a, b in sorted(change, reverse=True):
        print(f"{c:.3f} {scenario_id} | {a!r} | {b!r}")
    others = np.array(other)
    print(f"\n{len(change)} change pairs (median cosine {np.median([c for c, *_ in change]):.3f}), {len(other)} other "
          f"pairs recalled together (median {np.median(others):.3f}) ({args.split} split)")
    print("| cosine line | change pairs at or above | other pairs at or above |\n|---|---|---|")
    for line in LINES:
        print(f"| {line} | {sum(1 for c, *_ in change if c >= line)} | {int((others >= line).sum())} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
