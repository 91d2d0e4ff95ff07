"""Benchmark: `maintenance --full` on one user with 10k memories (synthetic vectors), against the real Neo4j.

Each repetition seeds two identical users in a fresh tenant: 8,000 distinct memories, 1,000 near-duplicates
of some of them (cosine ~0.99), 500 faint ones (weight < 0.1, to purge), 500 locked core ones, and 1,000
associations. A week later it runs, on the first user, the full maintenance (decay, cluster and merge,
purge, index check; one transaction for the user, a changeset entry per changed memory), its dry run and
its undo; on the second user, as the baseline, a DECAY run (the pass over every memory that any run pays).
Prints the medians and the ratio to the baseline, peak Python memory (tracemalloc) and the process's peak
RSS, and writes bench/results/maintenance.md.

    .venv/bin/python bench/maintenance_full.py            # 3 repetitions, writes the results file
    .venv/bin/python bench/maintenance_full.py --reps 1 --memories 2000 --no-write
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.clock import FakeClock
from bmam.container import Container, ensure_neo4j
from bmam.settings import load_settings
from graph.associations import AssociationRepository
from graph.ids import new_memory_id
from graph.memories import StoredMemory
from graph.model import MemoryType, NewMemory, PresetKind, Scope, Tier
from graph.store import Tx

RESULTS = Path(__file__).resolve().parent / "results" / "maintenance.md"
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def seed(c: Container, scope: Scope, vectors: np.ndarray, plan: list[tuple[str, float, float, Tier, PresetKind]],
         links: list[tuple[int, int, float]]) -> list[str]:
    """Write the memories in batches of 500 (one transaction each), grouped by their weight parts."""
    ids = [new_memory_id() for _ in plan]
    groups: dict[tuple[float, float], list[int]] = {}
    for i, (_, passive, active, _, _) in enumerate(plan):
        groups.setdefault((passive, active), []).append(i)
    for (passive, active), members in groups.items():
        for start in range(0, len(members), 500):
            batch = [NewMemory(id=ids[i], text=plan[i][0], type=MemoryType.SEMANTIC,
                               embedding=[float(x) for x in vectors[i]], tier=plan[i][3], preset_kind=plan[i][4],
                               preset=0.3 if plan[i][4] is PresetKind.TEMPORARY else 0.5)
                     for i in members[start:start + 500]]

            def remember(tx: Tx, b: list[NewMemory] = batch, p: float = passive,
                         a: float = active) -> list[StoredMemory]:
                return c.memory_repository.remember_many_in(tx, scope, b, now=c.clock.now(), passive=p, active=a)

            c.store.write_tx(remember)
    assoc = AssociationRepository(c.store)
    for a, b, strength in links:
        assoc.associate(scope, ids[a], ids[b], strength, now=c.clock.now())
    return ids


def build(n: int, dims: int, rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[str, float, float, Tier,
                                                                                         PresetKind]]]:
    distinct, dups, faint = int(n * 0.8), int(n * 0.1), int(n * 0.05)  # the rest (5 %) locked core
    vectors = rng.normal(size=(n, dims))
    sources = rng.choice(distinct, size=dups, replace=False)
    vectors[distinct:distinct + dups] = vectors[sources] + rng.normal(size=(dups, dims)) * 0.005
    vectors /= np.linalg.norm(vectors, axis=1)[:, None]
    plan: list[tuple[str, float, float, Tier, PresetKind]] = []
    for i in range(n):
        if i < distinct:
            plan.append((f"synthetic memory {i}", 0.3, 0.5, Tier.TEMP, PresetKind.DEFAULT))
        elif i < distinct + dups:
            plan.append((f"synthetic memory {sources[i - distinct]} again", 0.2, 0.5, Tier.TEMP, PresetKind.DEFAULT))
        elif i < distinct + dups + faint:
            plan.append((f"faint memory {i}", 0.0, 0.0, Tier.TEMP, PresetKind.TEMPORARY))
        else:
            plan.append((f"core memory {i}", 0.5, 0.5, Tier.CORE, PresetKind.DEFAULT))
    return vectors.astype(np.float32), plan


def timed(fn, *, trace: bool = False):  # type: ignore[no-untyped-def]
    """(result, seconds, peak Python bytes or 0). Tracing slows allocation-heavy code, so only the
    memory-measuring run traces."""
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - started
    peak = 0
    if trace:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return result, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    settings = load_settings()
    ensure_neo4j(settings)
    clock = FakeClock(START)
    c = Container(settings, clock=clock)
    dims = c.vector_dimensions
    rows: dict[str, list[float]] = {k: [] for k in ("seed", "dry", "full", "decay", "undo", "peak_full")}
    outcome = ""
    for rep in range(args.reps):
        clock = FakeClock(START)
        c.clock = clock
        for prop in ("maintenance", "feedback", "conflicts"):
            c.__dict__.pop(prop, None)
        tenant = f"bench-maint-{uuid.uuid4().hex[:10]}"
        rng = np.random.default_rng(rep)
        vectors, plan = build(args.memories, dims, rng)
        links = [(int(a), int(b), 0.5) for a, b in rng.integers(0, int(args.memories * 0.8), size=(1000, 2)) if a != b]
        started = time.perf_counter()
        full_user, base_user = Scope(tenant, "u-full"), Scope(tenant, "u-base")
        seed(c, full_user, vectors, plan, links)
        seed(c, base_user, vectors, plan, links)
        rows["seed"].append(time.perf_counter() - started)
        clock.advance(timedelta(days=7))

        m = c.maintenance
        dry, t_dry, _ = timed(lambda m=m, t=tenant: m.run(t, "FULL", dry_run=True, user_id="u-full"))
        full, t_full, _ = timed(lambda m=m, t=tenant: m.run(t, "FULL", user_id="u-full"))
        _, t_decay, _ = timed(lambda m=m, t=tenant: m.run(t, "DECAY", user_id="u-base"))
        cs = full.changeset
        assert cs is not None and dry.changeset is not None
        assert [x.merged_ids for x in cs.merged] == [x.merged_ids for x in dry.changeset.merged]
        _, t_undo, _ = timed(lambda m=m, t=tenant, i=cs.id: m.undo(t, i))
        # The undo put the graph back exactly, so a traced dry run now does the full run's work again.
        _, _, peak_full = timed(lambda m=m, t=tenant: m.run(t, "FULL", dry_run=True, user_id="u-full"), trace=True)
        rows["dry"].append(t_dry)
        rows["full"].append(t_full)
        rows["decay"].append(t_decay)
        rows["undo"].append(t_undo)
        rows["peak_full"].append(peak_full / 2**20)
        merged = sum(len(m.merged_ids) for m in cs.merged)
        outcome = (f"{cs.decayed} decayed, {merged} merged into {len(cs.merged)} survivors, "
                   f"{len(cs.purged)} purged, locked untouched")
        print(f"rep {rep + 1}: seed {rows['seed'][-1]:.1f} s, dry {t_dry:.1f} s, full {t_full:.1f} s, "
              f"decay {t_decay:.1f} s, undo {t_undo:.1f} s, peak {peak_full / 2**20:.0f} MiB; {outcome}", flush=True)
        for user in ("u-full", "u-base"):  # leave the shared database as it was
            c.erasure.forget_user(tenant, user, confirm=True)
    c.close()

    med = {k: statistics.median(v) for k, v in rows.items()}
    load = os.getloadavg()[1]  # the machine is shared: say how busy it was
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ratio = med["full"] / med["decay"]
    table = [
        "| measure | median |",
        "|---|---|",
        f"| full maintenance, 1 user, {args.memories:,} memories | {med['full']:.2f} s |",
        f"| its dry run (same transaction, rolled back) | {med['dry']:.2f} s |",
        f"| baseline: DECAY run over the same memories | {med['decay']:.2f} s |",
        f"| ratio full / baseline | {ratio:.1f}x |",
        f"| undo of the full run | {med['undo']:.2f} s |",
        f"| peak Python memory of the run (tracemalloc, on its dry run) | {med['peak_full']:.0f} MiB |",
        f"| peak RSS of the whole process (embedding model not loaded) | {rss:.0f} MiB |",
        f"| machine load average (5 min) at the end, 2 cores | {load:.1f} |",
    ]
    print("\n".join(table))
    print(f"outcome per run: {outcome}")
    if args.no_write:
        return
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        "# maintenance --full on 10k memories\n\n"
        f"Command: `.venv/bin/python bench/maintenance_full.py --memories {args.memories} --reps {args.reps}`"
        f" (date 2026-11-30; 2 shared cores; local Neo4j 5.26, heap 1g, page cache 512m; {args.reps} repetitions,"
        " medians).\n\n"
        f"One user with {args.memories:,} memories of {dims}-d synthetic unit vectors: 80 % distinct, 10 % "
        "near-duplicates of some of them (cosine ~0.99), 5 % faint (weight < 0.1), 5 % locked core; 1,000 "
        "associations. Run a week after seeding (so every unlocked memory decays). The baseline is a DECAY run on "
        "an identical second user: the pass over every memory that any maintenance run pays.\n\n"
        + "\n".join(table) + f"\n\nEach full run: {outcome}.\n",
        encoding="utf-8",
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
