"""Benchmark: the GraphQL API under 8 concurrent clients: requests/s, p50 and p95 for recall (or search
while recall is not served) and memory-by-id, against the API's own floor (`viewer`: key check, GraphQL
parse/validate/limits, no Neo4j, no model) measured in the same run.

The server runs in its own process (uvicorn, one worker, as `bmam serve` does); the clients are threads
of this process, each with its own keep-alive gql client (bmam/client.py). A fresh tenant and user with
--memories memories (seeded through the API) is used and erased afterwards with forgetUser.
Each operation runs --rounds rounds of --seconds seconds at 8 clients and at 1 client; the figures
are the medians over rounds. Prints them and writes bench/results/api.md.

    .venv/bin/python bench/api_throughput.py
    .venv/bin/python bench/api_throughput.py --seconds 3 --rounds 1 --no-write
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.client import BmamClient, ClientConfig

RESULTS = Path(__file__).resolve().parent / "results" / "api.md"
QUERIES = ("where does she live", "她喜欢吃什么", "spicy food", "工作", "travel plans", "sister in Berlin",
           "过敏", "favourite drink")
TEXTS = ("I live in Chengdu", "我最喜欢吃火锅", "My sister is a nurse in Berlin", "我对花生过敏",
         "I drink green tea every morning", "下个月去东京出差", "I work as a data engineer", "我养了一只猫叫团子")

SERVER = """
import sys, uvicorn
from bmam.container import Container, ensure_neo4j
from bmam.settings import load_settings
from resolvers.app import create_app
s = load_settings(); ensure_neo4j(s)
uvicorn.run(create_app(Container(s), dev_key_enabled=False), host="127.0.0.1", port=int(sys.argv[1]),
            log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_server() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], cwd=Path(__file__).resolve().parent.parent,
                            env={**os.environ, "BMAM_API__DEV_KEY": "false"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if BmamClient(ClientConfig(url=url)).health().get("status") == "ok":
                return proc, url
        except Exception:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit("the server did not start")


def _make_key(tenant: str) -> str:
    from bmam.container import Container
    from bmam.settings import load_settings

    c = Container(load_settings())
    try:
        return c.keys.create(tenant, "bench").secret
    finally:
        c.close()


def _run(clients: list[BmamClient], op: Callable[[BmamClient, random.Random], object], seconds: float
         ) -> tuple[float, float, float, int]:
    """(requests/s, p50 ms, p95 ms, errors) with len(clients) threads for `seconds`."""
    latencies: list[list[float]] = [[] for _ in clients]
    errors = [0] * len(clients)
    stop = time.perf_counter() + seconds

    def worker(i: int) -> None:
        rng = random.Random(i)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            try:
                op(clients[i], rng)
            except Exception:
                errors[i] += 1
                continue
            latencies[i].append(time.perf_counter() - started)

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    flat = sorted(x for per in latencies for x in per)
    if not flat:
        return 0.0, float("nan"), float("nan"), sum(errors)
    p50 = flat[len(flat) // 2] * 1000
    p95 = flat[min(len(flat) - 1, int(len(flat) * 0.95))] * 1000
    return len(flat) / elapsed, p50, p95, sum(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    from bmam.settings import load_settings

    model = load_settings().embedding.model
    load = os.getloadavg()
    proc, url = _start_server()
    tenant, user = f"bench-api-{uuid.uuid4().hex[:8]}", "alice"
    key = _make_key(tenant)
    seeder = BmamClient(ClientConfig(url=url, api_key=key, timeout_s=120))
    try:
        fields = {f["name"] for f in seeder.execute("{ __schema { queryType { fields { name } } } }")
                  ["__schema"]["queryType"]["fields"]}
        recall_op = "recall" if "recall" in fields else "search"
        t0 = time.perf_counter()
        ids = [seeder.remember(user, f"{TEXTS[i % len(TEXTS)]} ({i})", "FACTUAL")["id"] for i in range(args.memories)]
        print(f"seeded {len(ids)} memories in {time.perf_counter() - t0:.1f}s; recall op: {recall_op}", flush=True)

        def viewer(c: BmamClient, _: random.Random) -> object:
            return c.execute("query Viewer { viewer { tenant } }")

        def memory_by_id(c: BmamClient, rng: random.Random) -> object:
            return c.execute("query MemoryById($u: String!, $id: ID!) { memory(userId: $u, id: $id) {"
                             " id text type tier weight { final } createdAt } }", {"u": user, "id": rng.choice(ids)})

        def recall(c: BmamClient, rng: random.Random) -> object:
            q = rng.choice(QUERIES)
            if recall_op == "recall":
                return c.execute("query Recall($u: String!, $q: String!) { recall(userId: $u, query: $q) {"
                                 " __typename } }", {"u": user, "q": q})
            return c.execute("query Search($u: String!, $q: String!) { search(userId: $u, query: $q, k: 5) {"
                             " score memory { id text } } }", {"u": user, "q": q})

        ops: dict[str, Callable[[BmamClient, random.Random], object]] = {
            "viewer (floor)": viewer, "memory by id": memory_by_id, recall_op: recall,
        }
        rows: list[tuple[str, int, float, float, float, int]] = []
        for concurrency in (args.clients, 1):
            clients = [BmamClient(ClientConfig(url=url, api_key=key, timeout_s=120)) for _ in range(concurrency)]
            for c in clients:
                viewer(c, random.Random(0))  # connect and verify the key once
            for name, op in ops.items():
                rounds = [_run(clients, op, args.seconds) for _ in range(args.rounds)]
                rps = statistics.median(r[0] for r in rounds)
                p50 = statistics.median(r[1] for r in rounds)
                p95 = statistics.median(r[2] for r in rounds)
                errors = sum(r[3] for r in rounds)
                rows.append((name, concurrency, rps, p50, p95, errors))
                print(f"{name:16s} clients={concurrency}  {rps:8.1f} req/s  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
                      f"  errors {errors}", flush=True)
            for c in clients:
                c.close()
        seeder.forget_user(user, confirm=True)
    finally:
        seeder.close()
        proc.terminate()
        proc.wait(timeout=30)

    floor = {conc: rps for name, conc, rps, *_ in rows if name.startswith("viewer")}
    lines = [
        "# API throughput (bench/api_throughput.py)",
        "",
        f"Command: `.venv/bin/python bench/api_throughput.py --memories {args.memories} --seconds {args.seconds:g}"
        f" --rounds {args.rounds} --clients {args.clients}`  ",
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: 2 cores shared with other engineers' runs "
        "(load average "
        f"{load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end: figures vary run to run); "
        f"one uvicorn worker in its own process, local Neo4j 5.26, embedding model `{model}`; clients are "
        "threads with keep-alive gql clients. Medians over rounds.",
        "",
        "| operation | clients | req/s | p50 ms | p95 ms | errors | req/s vs floor |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, conc, rps, p50, p95, errors in rows:
        ratio = rps / floor[conc] if floor.get(conc) else float("nan")
        lines.append(f"| {name} | {conc} | {rps:.1f} | {p50:.1f} | {p95:.1f} | {errors} | {ratio:.2f} |")
    lines += [
        "",
        "The floor (`viewer`) is the API's own cost per request: key check (cached), parse, limits, validation, "
        "no Neo4j and no model. memory-by-id adds one indexed Neo4j read; "
        f"{recall_op} adds the query embedding (one at a time per process: the model is guarded by a lock) and "
        "its Neo4j statements in one write transaction.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
