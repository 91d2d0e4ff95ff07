"""Benchmark: ingest end to end into Neo4j (turns/s) against the raw batch embedding rate, in the same run.

A synthetic bilingual corpus (zh / en; preferences, facts, experiences, emphasis, repeats, questions,
chit-chat; several users, sessions of 32 turns) is ingested through the real pipeline
(container.ingest.ingest_indexed, as `bmam ingest` does: salience, the three-level classifier, triple
extraction, repetition and engagement matching, one write transaction per batch of a user's turns,
working memory, the stored-memory hooks) into the configured Neo4j under a fresh tenant. The raw rate
is the configured embedder's embed_passages over the same texts, chunked the same way. Two scenarios:

- user: every turn is a user turn (every turn is embedded): the like-for-like ratio;
- dialogue: user and assistant alternate (assistant turns become episodes only and are not embedded;
  the raw rate still embeds every text, so the ratio counts what a real conversation costs).

Each scenario runs with the stored-memory hooks the container has (conflict detection, association
forming: other features, each a few queries per new memory) and without them (the ingest pipeline alone).

Target: end to end >= 70% of the raw rate. Prints the figures and writes bench/results/ingest.md (its
Notes section is written by hand after a run). Each run's users are forgotten (forgetUser, a few seconds
each on a large store: its proof scans the store) after it is timed, so runs do not grow the store; --keep
leaves them.

--dump FILE measures nothing: it ingests the corpus (user turns, then dialogue; each in two requests an hour
apart, with hooks) under fixed tenants with a fixed clock and fixed turn times, and writes every user's graph as
canonical sorted lines (EpisodeRepository.dump; the user's random memory_epoch blanked). Two checkouts that store
the same graph write the same file, so a speed-up can be checked for changing nothing (run it from each, diff).

    .venv/bin/python bench/ingest_throughput.py                # 3 runs each, medians
    .venv/bin/python bench/ingest_throughput.py --users 4 --runs 1 --no-write
    .venv/bin/python bench/ingest_throughput.py --dump /tmp/graph.txt
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import random
import re
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.clock import FakeClock
from bmam.container import Container, ensure_neo4j
from bmam.settings import load_settings
from graph.episodes import EpisodeRepository
from graph.model import Scope
from ingest.turns import TurnInput

RESULTS = Path(__file__).resolve().parent / "results" / "ingest.md"

CITIES = ["成都", "北京", "上海", "杭州", "重庆", "Berlin", "London", "Tokyo", "Paris", "Seattle"]
FOODS = ["火锅", "川菜", "饺子", "寿司", "拉面", "pizza", "tacos", "dumplings", "curry", "pho"]
NAMES = ["小明", "李娜", "王芳", "Anna", "Tom", "Lily", "张伟", "Maria", "陈静", "David"]
COMPANIES = ["腾讯", "阿里巴巴", "字节跳动", "Google", "Siemens", "a bank", "a hospital", "华为", "SAP", "Airbus"]
HOBBIES = ["弹吉他", "跑步", "游泳", "画画", "photography", "chess", "hiking", "the piano", "yoga", "baking"]

USER_TEMPLATES = [
    "我住在{city}，最喜欢吃{food}", "I live in {city} and I love {food}", "我在{company}工作",
    "I work at {company} as an engineer", "我的妻子叫{name}", "My sister's name is {name}",
    "上次在{city}吃的{food}很棒", "Last summer I went to {city} with {name}", "我每天早上练习{hobby}",
    "I have been learning {hobby} for two years", "我不吃{food}", "I don't like {food} at all",
    "记住：我对{food}过敏", "Remember this: my best friend is {name}", "我今天很开心，因为见到了{name}",
    "I feel stressed about my job at {company}", "推荐一个{food}店?", "what's the weather in {city} tomorrow?",
    "好的", "ok thanks", "哈哈", "帮我写一首关于{city}的诗", "How do I make {food} at home?",
    "我的生日是{month}月{day}日", "My daughter is {age} years old",
]
ASSISTANT = ["好的，我记住了。", "Sure, noted!", "听起来很棒！", "Here is a recipe you could try.",
             "还有什么可以帮你？", "That sounds great.", "明白了。", "Let me know if you need anything else."]


def corpus(users: int, sessions: int, turns: int, *, dialogue: bool, seed: int = 7) -> list[TurnInput]:
    """Deterministic conversations: each user draws from a vocabulary, so some facts repeat."""
    rng = random.Random(seed)
    out: list[TurnInput] = []
    for u in range(users):
        user = f"user{u}"
        for s in range(sessions):
            for t in range(turns):
                if dialogue and t % 2 == 1:
                    text = rng.choice(ASSISTANT)
                    speaker = "assistant"
                else:
                    text = rng.choice(USER_TEMPLATES).format(
                        city=rng.choice(CITIES), food=rng.choice(FOODS), name=rng.choice(NAMES),
                        company=rng.choice(COMPANIES), hobby=rng.choice(HOBBIES), month=rng.randint(1, 12),
                        day=rng.randint(1, 28), age=rng.randint(2, 17))
                    speaker = "user"
                out.append(TurnInput(user_id=user, session_id=f"s{s}", speaker=speaker, text=text, turn=t))
    return out


@dataclass
class Run:
    raw_per_s: float
    e2e_per_s: float
    e2e_s: float
    neo4j_s: float
    embed_s: float
    memories: int


def raw_rate(c: Container, turns: Sequence[TurnInput], batch: int) -> float:
    """Texts per second of the embedder alone, chunked as the pipeline chunks (per user, `batch` turns)."""
    by_user: dict[str, list[str]] = {}
    for t in turns:
        by_user.setdefault(t.user_id, []).append(t.text)
    started = time.perf_counter()
    for texts in by_user.values():
        for i in range(0, len(texts), batch):
            c.embedder.embed_passages(texts[i:i + batch])
    return len(turns) / (time.perf_counter() - started)


def e2e(c: Container, turns: Sequence[TurnInput], *, keep: bool = False) -> tuple[float, float, float, float, int]:
    tenant = f"bench-ingest-{uuid.uuid4().hex[:10]}"
    neo_before = c.store.timer.seconds
    embed_time = [0.0]
    inner = c.ingest._embedder  # time the embedding the pipeline does, to split the figures

    class Timed:
        def __init__(self) -> None:
            self.name, self.dim = inner.name, inner.dim

        def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
            t0 = time.perf_counter()
            try:
                return inner.embed_passages(texts)
            finally:
                embed_time[0] += time.perf_counter() - t0

        def embed_query(self, text: str) -> np.ndarray:
            return inner.embed_query(text)

    c.ingest._embedder = Timed()
    try:
        started = time.perf_counter()
        report = c.ingest.ingest_indexed(tenant, list(turns))
        took = time.perf_counter() - started
    finally:
        c.ingest._embedder = inner
    assert report.failed == 0, [e for r in report.turns for e in r.errors][:3]
    memories = sum(len(r.memories) for r in report.turns)
    neo4j_s = c.store.timer.seconds - neo_before
    if not keep:
        forget(c, tenant, turns)
    return len(turns) / took, took, neo4j_s, embed_time[0], memories


def forget(c: Container, tenant: str, turns: Sequence[TurnInput]) -> None:
    """Erase what a run wrote (forgetUser for each of its users), outside the figures: the store's
    statement timer is put back as it was, so the per-statement report shows the ingest alone."""
    timer = c.store.timer
    seconds, by_statement, listeners = timer.seconds, dict(timer.by_statement), list(timer.listeners)
    timer.listeners.clear()
    try:
        for user in sorted({t.user_id for t in turns}):
            c.erasure.forget_user(tenant, user, confirm=True)
    finally:
        timer.seconds = seconds
        timer.by_statement.clear()
        timer.by_statement.update(by_statement)
        timer.listeners[:] = listeners


STATEMENTS: list[str] = []  # the statements the end-to-end runs of the scenario in progress ran


def measure(c: Container, turns: list[TurnInput], runs: int, *, keep: bool = False) -> list[Run]:
    batch = c.settings.ingest.batch_turns
    out = []
    c.store.timer.by_statement.clear()  # where the scenario's Neo4j time goes (all its runs)
    STATEMENTS.clear()
    for _ in range(runs):
        before = raw_rate(c, turns, batch)
        c.store.timer.listeners.append(lambda name, _: STATEMENTS.append(name))
        try:
            rate, took, neo, emb, memories = e2e(c, turns, keep=keep)
        finally:
            c.store.timer.listeners.pop()
        after = raw_rate(c, turns, batch)
        out.append(Run(raw_per_s=(before + after) / 2, e2e_per_s=rate, e2e_s=took, neo4j_s=neo, embed_s=emb,
                       memories=memories))
    return out


_EPOCH = re.compile(r'"memory_epoch": "[^"]*"')  # a random stamp per user (recall's vector cache)
_NO_EPOCH = '"memory_epoch": "-"'


def dump(path: Path, users: int, sessions: int, turns: int) -> int:
    """The canonical graph of a fixed ingest (see --dump above)."""
    settings = load_settings()
    ensure_neo4j(settings)
    t0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
    clock = FakeClock(t0)
    c = Container(settings, clock=clock)
    c.migrate()
    lines: list[str] = []
    for name, dialogue in (("user", False), ("dialogue", True)):
        tenant = f"bench-dump-{name}"
        for u in range(users):
            c.erasure.forget_user(tenant, f"user{u}", confirm=True)
        # distinct turn times: association forming takes each entity's newest memories, ties broken arbitrarily
        items = [dataclasses.replace(t, at=t0 + dt.timedelta(seconds=7 * i))
                 for i, t in enumerate(corpus(users, sessions, turns, dialogue=dialogue))]
        half = len(items) // 2
        for part in (items[:half], items[half:]):
            c.ingest.ingest_indexed(tenant, part)
            clock.advance(dt.timedelta(hours=1))
        for u in range(users):
            nodes, edges = EpisodeRepository(c.store, c.vector_dimensions).dump(Scope(tenant, f"user{u}"))
            lines += [f"{name} user{u} N {_EPOCH.sub(_NO_EPOCH, n)}" for n in nodes]
            lines += [f"{name} user{u} E {e}" for e in edges]
    c.close()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(lines)} lines")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--turns", type=int, default=32)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true", help="leave the runs' tenants in the store (forgotten by default)")
    ap.add_argument("--dump", type=Path, help="write the canonical graph of a fixed ingest, measure nothing")
    args = ap.parse_args(argv)
    if args.dump:
        return dump(args.dump, args.users, args.sessions, args.turns)

    settings = load_settings()
    ensure_neo4j(settings)
    c = Container(settings)
    c.migrate()
    # warm up: the model, the store, the query plans
    warm = corpus(1, 1, 32, dialogue=True, seed=1)
    warm_tenant = f"bench-warm-{uuid.uuid4().hex[:8]}"
    c.ingest.ingest_indexed(warm_tenant, warm)
    if not args.keep:
        forget(c, warm_tenant, warm)

    rows = []
    statements: dict[str, str] = {}
    loads: list[float] = [os.getloadavg()[0]]  # how busy the machine was (1-minute load average, 2 cores)
    hooks = list(c.stored_memory_hooks)
    scenarios = [("user", False, True), ("dialogue", True, True), ("user, no hooks", False, False),
                 ("dialogue, no hooks", True, False)]
    for scenario, dialogue, with_hooks in scenarios:
        turns = corpus(args.users, args.sessions, args.turns, dialogue=dialogue)
        c.stored_memory_hooks[:] = hooks if with_hooks else []
        runs = measure(c, turns, args.runs, keep=args.keep)
        loads.append(os.getloadavg()[0])
        med = {k: statistics.median(getattr(r, k) for r in runs)
               for k in ("raw_per_s", "e2e_per_s", "e2e_s", "neo4j_s", "embed_s", "memories")}
        ratio = med["e2e_per_s"] / med["raw_per_s"]
        rows.append((scenario, len(turns), med, ratio))
        top = sorted(c.store.timer.by_statement.items(), key=lambda kv: -kv[1])[:8]
        statements[scenario] = f"{len(STATEMENTS) / args.runs:.0f} statements; " + ", ".join(
            f"{name} {seconds / args.runs:.2f} s ({STATEMENTS.count(name) / args.runs:.0f})" for name, seconds in top)
        print(f"{scenario:18} {len(turns)} turns: raw embedding {med['raw_per_s']:.0f} texts/s, end to end "
              f"{med['e2e_per_s']:.0f} turns/s ({med['e2e_s']:.2f} s: Neo4j {med['neo4j_s']:.2f} s, embedding "
              f"{med['embed_s']:.2f} s), ratio {ratio:.2f}, {med['memories']:.0f} memories", flush=True)
        print(f"{'':18} Neo4j per run: {statements[scenario]}", flush=True)

    model = settings.embedding.model
    lines = [
        "# Ingest throughput",
        "",
        f"Command: `.venv/bin/python bench/ingest_throughput.py --users {args.users} --sessions {args.sessions} "
        f"--turns {args.turns} --runs {args.runs}`  ",
        f"Date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; embedder `{model}` "
        f"(batch {settings.embedding.batch_size}), "
        f"ingest batch {c.settings.ingest.batch_turns} turns per transaction, local Neo4j 5.26, 2 shared cores. "
        f"Medians of {args.runs} runs; the raw rate is measured right before and after each end-to-end run. "
        f"1-minute load average at the start and after each scenario: {', '.join(f'{x:.1f}' for x in loads)}.",
        "",
        "| scenario | turns | raw embedding (texts/s) | end to end (turns/s) | ratio | Neo4j time | embedding time "
        "| memories |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for scenario, n, med, ratio in rows:
        lines.append(f"| {scenario} | {n} | {med['raw_per_s']:.0f} | {med['e2e_per_s']:.0f} | {ratio:.2f} | "
                     f"{med['neo4j_s']:.2f} s | {med['embed_s']:.2f} s | {med['memories']:.0f} |")
    names = [type(getattr(h, "__self__", h)).__name__ for h in hooks]
    lines += ["", f"Hooks: {', '.join(names) or 'none'} "
              "(\"no hooks\": the ingest pipeline alone).", "Target: end to end >= 0.70 of the raw rate.", "",
              "Largest Neo4j statements per run (GraphStore's per-statement timer, mean of the runs):", ""]
    lines += [f"- {scenario}: {statements[scenario]}" for scenario, *_ in rows]
    lines += [""]
    print("\n".join(lines))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text("\n".join(lines), encoding="utf-8")
        print(f"wrote {RESULTS}")
    c.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
