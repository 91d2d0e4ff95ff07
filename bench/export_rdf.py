"""Benchmark: RDF export of one user holding 100k knowledge triples, time and peak RSS.

Loads a synthetic user (cypher/bench/export_load.cypher: memories each asserting a few triples between
shared entities, with HAS_MEMORY and MENTIONS edges, no embeddings), then measures in fresh child
processes (so each peak RSS is that run's own):
- stream <fmt>: the real export (`bmam export`'s path: keyset pages -> chunk writer) to a file;
- read: the same pages read from Neo4j and turned into records, nothing serialized (the baseline:
  what the export costs beyond reading);
- naive: everything in one rdflib Graph, serialized by rdflib as N-Triples (the non-streaming way:
  the baseline for memory);
- idle: the process with bmam imported and connected, nothing read (the floor of RSS).
Prints the figures and ratios and writes bench/results/export.md (median of --repeats runs).

    .venv/bin/python bench/export_rdf.py                      # 100k triples, all formats
    .venv/bin/python bench/export_rdf.py --triples 20000 --no-write --formats nt
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RESULTS = Path(__file__).resolve().parent / "results" / "export.md"
TRIPLES_PER_MEMORY = 5
ENTITIES = 2000
PREDICATES = ("likes", "住在", "works at", "去过", "eats", "knows", "喜欢吃", "visited")


def _container():  # type: ignore[no-untyped-def]
    from bmam.container import Container, ensure_neo4j
    from bmam.settings import load_settings

    settings = load_settings()
    ensure_neo4j(settings)
    return Container(settings)


def load(tenant: str, user: str, triples: int) -> float:
    from graph.ids import derived_id, entity_id
    from graph.model import Scope
    from graph.scope_token import scope_token
    from graph.text_key import text_key

    c = _container()
    scope = Scope(tenant, user)
    now = dt.datetime.now(dt.UTC)
    memories = triples // TRIPLES_PER_MEMORY
    started = time.perf_counter()
    batch: list[dict[str, object]] = []
    for i in range(memories):
        rows = []
        for j in range(TRIPLES_PER_MEMORY):
            s, o = (i * 7 + j) % ENTITIES, (i * 13 + j * 3 + 1) % ENTITIES
            s_name, o_name = f"实体{s}", f"entity {o}"
            rows.append({"s_id": entity_id(scope, "thing", s_name), "s_name": s_name,
                         "o_id": entity_id(scope, "thing", o_name), "o_name": o_name,
                         "id": derived_id("t", scope, str(i), str(j)), "p": PREDICATES[(i + j) % len(PREDICATES)],
                         "polarity": -1 if (i + j) % 11 == 0 else 1})
        text = f"记忆 {i}: the user said something about {PREDICATES[i % len(PREDICATES)]}"
        batch.append({"id": derived_id("m", scope, "bench", str(i)), "turn": i, "text": text,
                      "text_key": text_key(text), "triples": rows})
        if len(batch) == 500 or i == memories - 1:
            c.store.write("bench/export_load", {"tenant": tenant, "user_id": user, "now": now, "rows": batch,
                                                "scope_token": scope_token(tenant, user)})
            batch = []
    c.close()
    return time.perf_counter() - started


def delete(tenant: str, user: str) -> None:
    c = _container()
    while c.store.write("bench/export_delete", {"tenant": tenant, "user_id": user, "batch": 5000})[0]["deleted"]:
        pass
    c.close()


def child(mode: str, fmt: str, tenant: str, user: str, page_size: int) -> dict[str, object]:
    """One measured run in this (fresh) process."""
    from graph.knowledge_io import KnowledgeRepository
    from graph.model import Scope
    from graph.rdf_records import chunk_triples
    from graph.rdf_writers import RdfFormat, serialize

    c = _container()
    repo = KnowledgeRepository(c.store, page_size=page_size)
    scope = Scope(tenant, user)
    out = Path(tempfile.gettempdir()) / f"bmam-bench-export-{os.getpid()}.{fmt}"
    started = time.perf_counter()
    size = triples = 0
    if mode == "stream":
        with open(out, "wb") as f:  # what ExportUseCases.export_rdf does, with this page size
            for piece in serialize(repo.chunks(scope), RdfFormat(fmt)):
                f.write(piece.encode("utf-8"))
        size = out.stat().st_size
    elif mode == "read":
        for chunk in repo.chunks(scope):
            triples += len(chunk.nodes) + len(chunk.rels) + len(chunk.triples)
    elif mode == "naive":
        from rdflib import Graph

        g = Graph()
        for chunk in repo.chunks(scope):
            for t in chunk_triples(chunk):
                g.add(t)
        triples = len(g)
        g.serialize(destination=str(out), format="nt")
        size = out.stat().st_size
    seconds = time.perf_counter() - started
    out.unlink(missing_ok=True)
    c.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"mode": mode, "format": fmt, "seconds": seconds, "bytes": size, "records": triples,
            "peak_rss_mb": peak_mb}


def run_child(mode: str, fmt: str, tenant: str, user: str, page_size: int) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--child", mode, "--format", fmt, "--tenant", tenant, "--user", user,
           "--page-size", str(page_size)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--triples", type=int, default=100_000)
    ap.add_argument("--formats", default="nt,ttl,jsonld,rdf")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--page-size", type=int, default=1000)
    ap.add_argument("--no-naive", action="store_true", help="skip the in-memory rdflib baseline")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the synthetic user afterwards")
    ap.add_argument("--child")
    ap.add_argument("--format", default="nt")
    ap.add_argument("--tenant")
    ap.add_argument("--user", default="bench-export")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.format, args.tenant, args.user, args.page_size)))
        return

    tenant = args.tenant or f"bench-export-{uuid.uuid4().hex[:8]}"
    load_s = load(tenant, args.user, args.triples) if not args.tenant else 0.0
    print(f"loaded {args.triples} triples for {args.user}@{tenant} in {load_s:.1f}s", flush=True)
    plan = [("idle", "nt"), ("read", "nt")] + [("stream", f) for f in args.formats.split(",")]
    if not args.no_naive:
        plan.append(("naive", "nt"))
    runs: dict[tuple[str, str], list[dict[str, object]]] = {}
    try:
        for _ in range(args.repeats):
            for mode, fmt in plan:
                r = run_child(mode, fmt, tenant, args.user, args.page_size)
                runs.setdefault((mode, fmt), []).append(r)
                print(f"  {mode:6} {fmt:6} {r['seconds']:7.2f}s  peak {r['peak_rss_mb']:7.1f} MB  "
                      f"{r['bytes']} bytes", flush=True)
    finally:
        if not args.keep:
            delete(tenant, args.user)

    def med(key: tuple[str, str], field: str) -> float:
        return statistics.median(float(r[field]) for r in runs[key])  # type: ignore[arg-type]

    idle_rss, read_s = med(("idle", "nt"), "peak_rss_mb"), med(("read", "nt"), "seconds")
    read_rss = med(("read", "nt"), "peak_rss_mb")
    rows = []
    for mode, fmt in plan:
        if mode == "idle":
            continue
        s, rss = med((mode, fmt), "seconds"), med((mode, fmt), "peak_rss_mb")
        size = med((mode, fmt), "bytes")
        label = {"stream": f"stream {fmt}", "read": "read only (baseline)", "naive": "rdflib Graph, nt (naive)"}[mode]
        rows.append(f"| {label} | {s:.1f} | {args.triples / s:,.0f} | {s / read_s:.2f} | {rss:.0f} | "
                    f"{rss - idle_rss:.0f} | {size / 1e6:.1f} |")
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    table = "\n".join([
        "| run | seconds | triples/s | x read-only | peak RSS MB | over idle MB | output MB |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ])
    text = f"""# RDF export (bench/export_rdf.py)

Date: 2026-11-30. Command: `.venv/bin/python bench/export_rdf.py --triples {args.triples} --repeats {args.repeats}`.
Machine: {os.cpu_count()} CPUs shared with other work (load average {load_avg} at the end), local Neo4j 5.26.
Data: one user with {args.triples:,} knowledge triples asserted by {args.triples // TRIPLES_PER_MEMORY:,} memories
({TRIPLES_PER_MEMORY} each) between {ENTITIES:,} entities, plus HAS_MEMORY and MENTIONS edges; loaded in
{load_s:.1f}s by cypher/bench/export_load.cypher. Page size {args.page_size} (settings.export.page_size).
Each figure is the median of {args.repeats} runs, each run a fresh process (so its peak RSS is its own).

{table}

*x read-only*: time over reading the same pages from Neo4j without serializing (the baseline, measured in
the same run). *over idle*: peak RSS minus that of a process that imported bmam and connected but read
nothing ({idle_rss:.0f} MB). The read-only pass peaks at {read_rss:.0f} MB: streaming adds only the
chunk being written, whatever the size of the user; the rdflib Graph holds the whole export.
"""
    print()
    print(text)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
