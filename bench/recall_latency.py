"""Recall latency through HTTP GraphQL (issue 4): recall p50/p95, relatedSearch depth 2 and 3 p50/p95, and in
the same run the time to embed one query (the floor), for one user with 10k and with 100k memories.

    .venv/bin/python bench/recall_latency.py [--sizes 10000 100000] [--requests 200] [--out FILE]
                                             [--keep] [--tenant NAME]
                                             [--crossover 100 300 1000 3000] [--against CHECKOUT]

Each bench user holds the ~270 real memories of two generated eval users (bench/eval_data.py: real text,
real embeddings, triples, associations formed by the hook) plus synthetic filler up to the size: random unit
vectors, text of synthetic words, two entity mentions each (Zipf-distributed, so some entities are hubs
above the degree cap) and two random associations each, loaded with UNWIND in batches
(cypher/bench/*.cypher through graph/bench_load.py). Queries are the eval questions of those users
(answerable and unrelated). The server is `bmam serve` in its own process (this process's environment, so
the same embedding settings as the floor), reached with the project's gql client and an API key of the
bench tenant. Targets: recall p95 <= 2 x floor + 10 ms;
relatedSearch depth 3 p95 <= 20 ms. --crossover times the candidate read with the exact scan against the
vector index for small users (chooses RecallSettings.exact_scan_max). --against runs another checkout's server
beside this one (e.g. `git worktree add /tmp/base <commit>` with its .venv linked) and times both on the same
recalls and relatedSearch (depth 3) requests in alternating rounds: the ratio between two versions of the
code, each seeing the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_data import generate
from bmam.client import RECALLED_FIELDS, BmamClient, ClientConfig
from bmam.container import Container
from bmam.settings import load_settings
from bmam.usecases.memories import RememberRequest
from graph.bench_load import BenchLoader
from graph.ids import entity_id
from graph.model import PresetKind, Scope
from graph.recall import RecallFilters, RecallRepository, RetrievalLimits
from ingest.scoring import lucene_query, terms

BATCH = 1000
KEPT = Path(__file__).resolve().parent.parent / "data" / "bench"  # ids of users kept with --keep --tenant
T = TypeVar("T")


def kept_user(tenant: str, size: int) -> tuple[str, list[str]]:
    """The user id and real memory ids of a bench user kept by `--keep --tenant TENANT` (for the benches that
    measure one part of the service on it); exits with a message when there is none."""
    kept = KEPT / f"{tenant}-{size}.json"
    if not kept.exists():
        raise SystemExit(f"no kept bench user {kept}: run bench/recall_latency.py --keep --tenant {tenant} first")
    real, _filler = json.loads(kept.read_text())
    return f"user-{size}", list(real)


def add_kept_user_arguments(parser: argparse.ArgumentParser, rounds: int) -> None:
    """--tenant and --size (which kept bench user: kept_user) and --rounds, for the benches measuring one part of
    the service on a kept bench user."""
    parser.add_argument("--tenant", default="bench-lat")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=rounds)


def alternating_rounds(ways: Sequence[tuple[str, Callable[[T], object]]], items: Sequence[T],
                       rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each way on every item, every round, the ways taking turns at going first (so each
    sees the same machine, minute by minute)."""
    walls: dict[str, list[float]] = {label: [] for label, _ in ways}
    for round_ in range(rounds):
        for label, way in ways if round_ % 2 == 0 else ways[::-1]:
            walls[label].extend(timed_each(way, items))
    return walls


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000.0


TIMED_RECALL = ("query($u: String!, $q: String!, $k: Int) { recall(userId: $u, query: $q, k: $k) {"
                f" gated reason bestSimilarity memories {{ {RECALLED_FIELDS} }} }} }}")


def timed(fn: Callable[[], object], n: int) -> list[float]:
    return timed_each(lambda _: fn(), range(n))


def timed_each(fn: Callable[[T], object], items: Iterable[T]) -> list[float]:
    """Seconds per call of fn(item), one call per item."""
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - t)
    return out


def serve(port: int, root: Path | None = None) -> subprocess.Popen[bytes]:
    """`bmam serve` in its own process (its own GIL, as in production), with this process's environment; from
    another checkout when root is given (its own .venv/bin/bmam, its code)."""
    root = root or Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([str(root / ".venv" / "bin" / "bmam"), "serve", "--port", str(port)], cwd=root,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("bmam serve did not come up")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def load_real(container: Container, scope: Scope, seed: int) -> tuple[list[str], list[str]]:
    """The memories of two eval users (one zh, one en) under one bench user; their questions."""
    data = generate(seed=seed, users=2)
    ids: list[str] = []
    for m in data.memories:
        preset = PresetKind.SAFETY if m.preset == "safety" else PresetKind.DEFAULT
        stored = container.memories.remember(scope.tenant, RememberRequest(
            user_id=scope.user_id, text=m.text, type=m.type, preset_kind=preset, session_id=f"s{m.session}"))
        for s, sk, p, o, ok, pol in m.triples:
            container.memories.add_triple(scope.tenant, scope.user_id, memory_id=stored.id, subject=s, subject_kind=sk,
                                          predicate=p, object_=o, object_kind=ok, polarity=pol)
        container.association_forming.form(scope, stored.id, text=m.text)
        ids.append(stored.id)
    return ids, [q.text for q in data.questions]


def load_filler(container: Container, scope: Scope, count: int, *, rng: np.random.Generator,
                start: int = 0) -> list[str]:
    """count synthetic memories of one user: random unit vectors, synthetic words, Zipf entities, links."""
    loader = BenchLoader(container.store)
    dim = container.vector_dimensions
    now = datetime.now(UTC)
    words = [f"w{i:04d}" for i in range(2000)]
    entities = max(10, count // 5)
    ids = [f"f_{scope.user_id}_{start + i}" for i in range(count)]
    seen_pairs: set[tuple[str, str]] = set()
    # rng.choice over a list converts it to an array on every call (quadratic: 100k took hours); once here,
    # the same draws
    id_array = np.array(ids)
    for lo in range(0, count, BATCH):
        chunk = ids[lo: lo + BATCH]
        vectors = rng.standard_normal((len(chunk), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rows = [{"id": mid, "text": "note " + " ".join(rng.choice(words, 6)),
                 "created_at": now - timedelta(minutes=int(rng.integers(60, 90 * 24 * 60))), "session_id": "bench",
                 "embedding": vectors[i].tolist()} for i, mid in enumerate(chunk)]
        loader.memories(scope, rows, now=now)
    for lo in range(0, count, BATCH):
        chunk = ids[lo: lo + BATCH]
        mentions = []
        for mid in chunk:
            for k in set(int(min(entities, rng.zipf(1.3))) - 1 for _ in range(2)):
                name = f"entity-{k}"
                mentions.append({"memory_id": mid, "entity_id": entity_id(scope, "thing", name), "name": name})
        pairs = []
        for mid in chunk:
            for other in rng.choice(id_array, 2):
                a, b = sorted((mid, str(other)))
                if a != b and (a, b) not in seen_pairs:
                    seen_pairs.add((a, b))
                    pairs.append({"low": a, "high": b, "strength": float(rng.uniform(0.05, 1.0))})
        loader.links(scope, mentions, pairs, now=now)
    return ids


def crossover(container: Container, tenant: str, sizes: Sequence[int], rng: np.random.Generator,
              repeats: int) -> list[str]:
    """Time the candidate read with the exact scan and with the vector index for users of a few sizes."""
    repo = RecallRepository(container.store, container.vector_dimensions)
    lines = ["| memories | exact scan p50 (ms) | vector index p50 (ms) |", "|---|---|---|"]
    embedder = container.embedder
    q = "What do I like to eat?"
    embedding = [float(x) for x in embedder.embed_query(q)]
    qt = terms(q)
    for size in sizes:
        scope = Scope(tenant, f"cross-{size}")
        load_filler(container, scope, size, rng=rng)
        results = {}
        for label, exact_max in (("exact", 10**9), ("index", -1)):
            # exact_max alone decides: every user is scanned (10**9) or none is (-1, and no per-candidate rule)
            limits = RetrievalLimits(exact_max=exact_max, exact_per_candidate=0)

            def once(limits: RetrievalLimits = limits, scope: Scope = scope) -> object:
                return repo.read(lambda tx: repo.candidates(tx, scope, embedding, qt, lucene_query(qt),
                                                            RecallFilters(), limits))

            once()
            results[label] = pct(timed(once, repeats), 0.5)
        lines.append(f"| {size} | {results['exact']:.1f} | {results['index']:.1f} |")
        BenchLoader(container.store).delete_user(scope)
    return lines


def where_time_goes(container: Container, scope: Scope, questions: Sequence[str]) -> str:
    """The same recalls in this process, with the time spent in each Cypher statement, in embedding the query,
    and in the rest (the commit, the vector cache's ranking, scoring, rows to results), mean per recall."""
    from bmam.timing import TimedEmbedder
    from bmam.usecases.recall import RecallRequest

    container.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query=questions[0]))  # warm cache
    container.vector_cache.wait_for_loads()  # a large user is read in the background
    container.recall.slot_examples.prepare()  # as the plan warm-up does after a start
    container.recall.request_examples.prepare()
    container.store.timer.by_statement.clear()
    ran: list[list[str]] = []  # the statements of each recall, in order
    container.store.timer.listeners.append(lambda name, _: ran[-1].append(name.removeprefix("recall/")))
    embedding = [0.0]
    embedder = container.embedder
    assert isinstance(embedder, TimedEmbedder)  # the container's embedder reports its time to listeners
    listeners = embedder.listeners

    def embedded(kind: str, seconds: float, _texts: int) -> None:
        if kind == "query":
            embedding[0] += seconds

    listeners.append(embedded)

    def recall(q: str) -> None:
        ran.append([])
        container.recall.recall(scope.tenant, RecallRequest(user_id=scope.user_id, query=q))

    try:
        walls = timed_each(recall, questions)
    finally:
        container.store.timer.listeners.pop()
        listeners.remove(embedded)
    per = {k: v / len(questions) * 1000 for k, v in container.store.timer.by_statement.items()}
    parts = ", ".join(f"{k} {v:.1f}" for k, v in sorted(per.items(), key=lambda kv: -kv[1]))
    embed_ms = embedding[0] / len(questions) * 1000
    rest_ms = sum(walls) / len(questions) * 1000 - sum(per.values()) - embed_ms
    counts = Counter(len(names) for names in ran)
    # The tail by question: which statements the slowest recalls ran (a round more than usual shows here).
    slowest = sorted(zip(walls, questions, ran, strict=True), key=lambda x: -x[0])[:5]
    tail = "; ".join(f"{w * 1000:.1f} ms {q!r} ({', '.join(names)})" for w, q, names in slowest)
    return (f"in-process recall p50 {pct(walls, 0.5):.1f} ms; mean ms per statement: {parts}; embedding the "
            f"query {embed_ms:.1f}; the rest (commit, ranking, scoring, results) {rest_ms:.1f}; statements per "
            f"recall {dict(sorted(counts.items()))}; slowest: {tail}")


def side_by_side(client: BmamClient, other: BmamClient, items: Sequence[T], call: Callable[[BmamClient, T], object],
                 against: Path, what: str, rounds: int = 10) -> str:
    """The same requests (call(server, item) for each item) on both servers in alternating rounds (each sees
    the same machine, minute by minute): p50 / p95 of each and the ratio of this code's to the other's."""
    for item in items[:20]:  # the other server's first requests: its cache read, plans
        call(other, item)
    mine: list[float] = []
    theirs: list[float] = []
    per_round = max(1, len(items) // rounds)
    for r in range(rounds):
        batch = items[r * per_round:(r + 1) * per_round]
        first, second = ((client, mine), (other, theirs)) if r % 2 == 0 else ((other, theirs), (client, mine))
        for server, out in (first, second):

            def on_server(item: T, server: BmamClient = server) -> object:
                return call(server, item)

            out.extend(timed_each(on_server, batch))
    return (f"{what}: {against}, {rounds} alternating rounds, {len(mine)} requests each: this code "
            f"p50 / p95 {pct(mine, 0.5):.1f} / {pct(mine, 0.95):.1f} ms, the other {pct(theirs, 0.5):.1f} / "
            f"{pct(theirs, 0.95):.1f} ms; ratio p50 {pct(mine, 0.5) / pct(theirs, 0.5):.2f}, "
            f"p95 {pct(mine, 0.95) / pct(theirs, 0.95):.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--crossover", type=int, nargs="*", default=[100, 300, 1000, 3000])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the bench users (default: delete them)")
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout (with its .venv): its server runs beside this one and both answer the "
                             "same recalls in alternating rounds, for the ratio between the two codes")
    parser.add_argument("--tenant", default=None,
                        help="bench tenant (default: a new one); with --keep its users and their ids (data/bench/) "
                             "stay, and a later run with the same --tenant measures them without loading again")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    # The steady state is measured: the server reads a user into its vector cache at its first recall
    # (by default a user of 20k+ memories is read in the background while recalls take Neo4j's path,
    # which a client cannot tell apart from the cache's answers).
    os.environ["BMAM_RECALL__VECTOR_CACHE_BACKGROUND_MIN"] = "0"
    # That first recall reads the user inside its transaction: 100k memories took 10 s on a quiet machine
    # and passed the 15 s default timeout on a loaded one (seen 12-01).
    os.environ.setdefault("BMAM_NEO4J__TX_TIMEOUT_S", "120")
    # Nor the plan warm-up (bmam/usecases/warm_up.py, bench/plan_warm_up.py): at start it rehearses recalls of
    # the store's biggest user, whose vector cache read (~26 s for 100k memories) would share the two cores
    # with the first figures. Each user here is warmed by its own first requests instead.
    os.environ["BMAM_API__WARM_UP_PLANS"] = "false"
    settings = load_settings()
    container = Container(settings)
    container.migrate()
    tenant = args.tenant or f"bench-recall-{uuid.uuid4().hex[:8]}"
    key = container.keys.create(tenant, "recall-latency").secret
    port = free_port()
    server = serve(port)
    client = BmamClient(ClientConfig(url=f"http://127.0.0.1:{port}", api_key=key))
    other: tuple[subprocess.Popen[bytes], BmamClient] | None = None
    if args.against:
        other_port = free_port()
        other = (serve(other_port, args.against.resolve()),
                 BmamClient(ClientConfig(url=f"http://127.0.0.1:{other_port}", api_key=key)))
    started = datetime.now(UTC)
    report = [f"bench/recall_latency.py, {started:%Y-%m-%d %H:%M} UTC; embedding model {settings.embedding.model} "
              f"(threads {settings.embedding.threads}); {args.requests} requests per figure; server `bmam serve` in "
              f"its own process; Neo4j {settings.neo4j.bolt_uri}; exact_scan_max {settings.recall.exact_scan_max}",
              ""]
    users: list[Scope] = []
    loader = BenchLoader(container.store)

    def emit(*lines: str) -> None:
        report.extend(lines)
        for line in lines:
            print(line, flush=True)

    try:
        if args.crossover:
            emit("Candidate read (one statement, dense + full-text), exact scan vs vector index:", "")
            emit(*crossover(container, tenant, args.crossover, rng, repeats=max(20, args.requests // 5)))
            emit("")
        for _ in range(20):
            client.viewer()
        api = timed(client.viewer, args.requests)
        emit(f"API floor (the `viewer` query: HTTP, key check, GraphQL, no Neo4j, no model): p50 {pct(api, 0.5):.1f} / "
             f"p95 {pct(api, 0.95):.1f} ms", "")
        emit("| memories | floor p50 / p95 (embed one query) | recall p50 / p95 | target (2 x floor p95 + 10) "
             "| related d2 p50 / p95 | related d3 p50 / p95 | recall / floor (p95) |",
             "|---|---|---|---|---|---|---|")
        notes: list[str] = []
        comparisons: list[str] = []
        for size in args.sizes:
            scope = Scope(tenant, f"user-{size}")
            users.append(scope)
            t0 = time.perf_counter()
            kept = KEPT / f"{tenant}-{size}.json"
            if kept.exists():  # loaded by an earlier run with --keep
                real, filler = json.loads(kept.read_text())
                questions = [q.text for q in generate(seed=args.seed, users=2).questions]
                print(f"reusing the {size} memories of {scope.user_id} loaded earlier ({kept})", flush=True)
            else:
                real, questions = load_real(container, scope, args.seed)
                filler = load_filler(container, scope, max(0, size - len(real)), rng=rng)
                print(f"loaded {size} memories in {time.perf_counter() - t0:.0f} s", flush=True)
                if args.keep:
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    kept.write_text(json.dumps([real, filler]))
            texts = [questions[i % len(questions)] for i in range(args.requests)]
            user = scope.user_id
            # relatedSearch starts from live memories: a real one superseded while loading (a change of mind
            # among the eval's facts) is NOT_FOUND without includeHistory
            live = [i for i in real if (got := client.memory(user, i)) is not None and got["validTo"] is None]
            starts = [random.Random(i).choice(live if i % 2 else filler or live) for i in range(args.requests)]
            t0 = time.perf_counter()
            client.recall(user, texts[0])  # the server's first recall of this user reads it into its vector cache
            cold_ms = (time.perf_counter() - t0) * 1000
            for q in texts[:20]:  # warm up: plans, caches, the model
                client.recall(user, q)
                container.embedder.embed_query(q)
            floor = timed_each(container.embedder.embed_query, texts)

            def recall_one(q: str, u: str = user) -> object:
                return client.recall(u, q, k=5)

            recall = timed_each(recall_one, texts)
            # The same recalls again asking the server for its stage timings (X-Bmam-Timings): the query's
            # embedding as it costs inside the server, between requests, beside the tight loop's floor.
            served = [client.execute_full(TIMED_RECALL, {"u": user, "q": q, "k": 5}, timings=True).extensions["timings"]
                      for q in texts]
            embed_in_server = [t["embeddingMs"] / 1000 for t in served]
            related: dict[int, list[float]] = {}
            for depth in (2, 3):
                for s in starts[:20]:
                    client.related_search(user, s, depth=depth)

                def related_one(m: str, u: str = user, d: int = depth) -> object:
                    return client.related_search(u, m, depth=d)

                related[depth] = timed_each(related_one, starts)
            f50, f95 = pct(floor, 0.5), pct(floor, 0.95)
            r50, r95 = pct(recall, 0.5), pct(recall, 0.95)
            emit(f"| {size} | {f50:.1f} / {f95:.1f} ms | {r50:.1f} / {r95:.1f} ms | {2 * f95 + 10:.1f} ms "
                 f"({'met' if r95 <= 2 * f95 + 10 else 'missed'}) | "
                 f"{pct(related[2], 0.5):.1f} / {pct(related[2], 0.95):.1f} ms | "
                 f"{pct(related[3], 0.5):.1f} / {pct(related[3], 0.95):.1f} ms "
                 f"({'met' if pct(related[3], 0.95) <= 20 else 'missed'}) | {r95 / f95:.1f}x |")
            notes.append(f"- {size}: the query's embedding inside the server during the recalls (second pass, "
                         f"X-Bmam-Timings) p50 {pct(embed_in_server, 0.5):.1f} / p95 {pct(embed_in_server, 0.95):.1f} "
                         f"ms, against the floor's {f50:.1f} / {f95:.1f} ms in a tight loop; the server's own total "
                         f"p50 {pct([t['totalMs'] / 1000 for t in served], 0.5):.1f} ms, of it Neo4j "
                         f"{pct([t['neo4jMs'] / 1000 for t in served], 0.5):.1f} ms")
            if other is not None:

                def recall_on(server: BmamClient, q: str, u: str = user) -> object:
                    return server.recall(u, q, k=5)

                def related_on(server: BmamClient, m: str, u: str = user) -> object:
                    return server.related_search(u, m, depth=3)

                comparisons.append(f"- {size}: " + side_by_side(client, other[1], texts, recall_on, args.against,
                                                                "recall"))
                comparisons.append(f"- {size}: " + side_by_side(client, other[1], starts, related_on, args.against,
                                                                "relatedSearch depth 3"))
            notes.append(f"- {size}: first recall of the user after the server started (cold vector cache) "
                         f"{cold_ms:.0f} ms (the cache read at once, not in the background); "
                         + where_time_goes(container, scope, texts[:100]))
            if not args.keep:
                loader.delete_user(scope)
                kept.unlink(missing_ok=True)
        if comparisons:
            emit("", "Side by side with the other checkout (both servers running, the same requests):",
                 *comparisons)
        emit("", "Where recall's time goes (same questions, in this process, no HTTP):", *notes)
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=30)
        if other is not None:
            other[1].close()
            other[0].terminate()
            other[0].wait(timeout=30)
        if not args.keep:
            for scope in users:
                loader.delete_user(scope)
                (KEPT / f"{scope.tenant}-{scope.user_id.removeprefix('user-')}.json").unlink(missing_ok=True)
        container.close()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(report) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
