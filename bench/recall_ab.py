"""Recall in process, this checkout against another: the ratio between two versions of recall's code without
HTTP in the way (bench/recall_latency.py --against compares the servers).

    .venv/bin/python bench/recall_ab.py --against CHECKOUT [--tenant bench-lat] [--users user-10000 user-100000]
                                        [--rounds 6] [--seed 3]

The users are bench/recall_latency.py's, loaded and kept earlier (`--keep --tenant bench-lat`). Each checkout
runs in a process of its own (its own .venv and code; this file is the worker in both, importing the
checkout it is pointed at), reads the users into its vector cache, warms up, and then answers the same eval
questions (bench/eval_data.py, k = 5) round by round, the two processes taking turns, so both see the same
machine minute by minute. Prints p50 / p95 per checkout and user, the ratio this / other, and the statements
each checkout ran per recall (by name). The other
checkout: e.g. `git worktree add /tmp/base <commit>` with `ln -s $PWD/.venv /tmp/base/.venv`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def worker(root: Path, tenant: str, users: Sequence[str], seed: int) -> None:
    """Answers commands on stdin, one per line: `round` runs every question once for every user and prints
    {"walls": {user: [seconds, ...]}, "statements": {user: {statement name: times run}}} as one JSON line."""
    sys.path.insert(0, str(root))
    from bench.eval_data import generate
    from bmam.container import Container
    from bmam.settings import load_settings
    from bmam.usecases.recall import RecallRequest

    container = Container(load_settings())
    questions = [q.text for q in generate(seed=seed, users=2).questions]

    def recall(user: str, query: str) -> None:
        container.recall.recall(tenant, RecallRequest(user_id=user, query=query, k=5))

    for user in users:  # the vector cache, plans, the model
        recall(user, questions[0])
        container.vector_cache.wait_for_loads()
        for q in questions[:20]:
            recall(user, q)
    ran: list[str] = []
    container.store.timer.listeners.append(lambda name, _seconds: ran.append(name))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip() != "round":
            break
        walls: dict[str, list[float]] = {}
        statements: dict[str, dict[str, int]] = {}
        for user in users:
            walls[user] = []
            ran.clear()
            for q in questions:
                started = time.perf_counter()
                recall(user, q)
                walls[user].append(time.perf_counter() - started)
            statements[user] = dict(Counter(ran))
        print(json.dumps({"walls": walls, "statements": statements}), flush=True)
    container.close()


def start(root: Path, args: argparse.Namespace) -> subprocess.Popen[str]:
    python = root / ".venv" / "bin" / "python"
    proc = subprocess.Popen([str(python), str(HERE), "--worker", str(root), "--tenant", args.tenant, "--seed",
                             str(args.seed), "--users", *args.users], cwd=root, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    return proc


def ask(name: str, proc: subprocess.Popen[str], command: str) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    if command:
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"the worker of {name} ended (exit {proc.wait()})")
    answer: dict[str, Any] = json.loads(line)
    return answer


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path, help="the other checkout (with its .venv)")
    parser.add_argument("--tenant", default="bench-lat")
    parser.add_argument("--users", nargs="+", default=["user-10000", "user-100000"])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        worker(args.worker, args.tenant, args.users, args.seed)
        return 0
    if args.against is None:
        parser.error("--against CHECKOUT is required")
    sys.path.insert(0, str(ROOT))
    from bench.recall_latency import pct  # here, not at the top: a worker imports only its own checkout

    roots = {"this": ROOT, "other": args.against.resolve()}
    procs = {name: start(root, args) for name, root in roots.items()}
    try:
        for name, proc in procs.items():
            ask(name, proc, "")  # ready
        walls: dict[str, dict[str, list[float]]] = {name: {u: [] for u in args.users} for name in procs}
        statements: dict[str, dict[str, Counter[str]]] = {name: {u: Counter() for u in args.users} for name in procs}
        for r in range(args.rounds):
            order = ["this", "other"] if r % 2 == 0 else ["other", "this"]
            for name in order:
                answer = ask(name, procs[name], "round")
                for user, values in answer["walls"].items():
                    walls[name][user].extend(values)
                for user, counts in answer["statements"].items():
                    statements[name][user].update(counts)
    finally:
        for proc in procs.values():
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=60)
    print(f"bench/recall_ab.py: {ROOT} against {roots['other']}, tenant {args.tenant}, {args.rounds} alternating "
          f"rounds, k = 5, in process")
    for user in args.users:
        mine, theirs = walls["this"][user], walls["other"][user]
        print(f"- {user}: {len(mine)} recalls each: this p50 / p95 {pct(mine, 0.5):.1f} / {pct(mine, 0.95):.1f} ms, "
              f"the other {pct(theirs, 0.5):.1f} / {pct(theirs, 0.95):.1f} ms; ratio p50 "
              f"{pct(mine, 0.5) / pct(theirs, 0.5):.2f}, p95 {pct(mine, 0.95) / pct(theirs, 0.95):.2f}")
        for name in procs:
            per = {s: round(n / len(walls[name][user]), 3) for s, n in sorted(statements[name][user].items())}
            print(f"  statements per recall, {name}: {per}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
