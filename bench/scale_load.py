"""Scale (issue 8): load about 1M memories into a Neo4j of its own and measure it at that size.

What is loaded (tenant "scale"):
- filler: --users users x --per-user memories (default 10,000 x 100), synthetic text and synthetic unit
  vectors (the point is index, store and traversal cost, not meaning), 10 entities per user, one triple
  per memory between two of them (MENTIONS to both) and two association edges per memory;
- "big": one user with --big memories (default 100,000) of real generated bilingual text with real
  embeddings (the configured model), its entities, triples and associations: recall and relatedSearch
  on a user this size;
- "real": one typical user whose --real-turns conversation turns go through the real ingest pipeline
  (classifier, triples, tiers, association forming): recall on an ordinary user among 1M memories.
All rows go in with UNWIND batches through the bench-only statements cypher/bench/scale_*.cypher. A run
resumes where an earlier one stopped (a batch commits whole; its first id tells whether it is there).

Measured: load rate (memories/s, filler and big separately, embedding time apart), vector index build,
store size on disk, Neo4j heap (JMX) and page cache in use (resident anonymous memory of the JVM beyond
the heap and the JVM's own areas), then recall and relatedSearch (depth 2 and 3) p50/p95 through the
use-cases for the big and the real user, with the time to embed one query (the floor) in the same run.

It runs its OWN Neo4j (never the shared one), under data/scale by default. The full size took about an
hour on 2 busy shared cores: run it in the background at low priority, e.g.

    nohup nice -n 10 .venv/bin/python bench/scale_load.py > data/scale/scale.log 2>&1 &
    .venv/bin/python bench/scale_load.py --users 1000 --big 10000            # a smaller run
    .venv/bin/python bench/scale_load.py --measure-only                      # measure what is loaded so far

Results: bench/results/scale.md (unless --no-write). The Neo4j is stopped at the end (--keep-running not).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.container import Container
from bmam.neo4j_server import LocalNeo4j
from bmam.settings import PROJECT_ROOT, Settings, load_settings
from bmam.usecases.recall import RecallRequest
from graph.cypher_library import statement
from graph.ids import entity_id
from graph.model import Scope
from graph.scope_token import scope_token
from graph.text_key import text_key
from ingest.turns import TurnInput

TENANT = "scale"
BIG, REAL = "big", "real"
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

# ----- generated content ----------------------------------------------------------------------------

CITIES = ["成都", "上海", "北京", "杭州", "西安", "昆明", "大理", "重庆", "广州", "深圳", "苏州", "厦门", "青岛",
          "Berlin", "Lisbon", "Osaka", "Toronto", "Madrid", "Paris", "Seoul", "Vienna", "Boston", "Oslo"]
FOODS = ["火锅", "饺子", "小笼包", "烤鸭", "米线", "担担面", "麻婆豆腐", "奶茶", "sushi", "pizza", "ramen",
         "tacos", "paella", "dumplings", "pho", "curry", "croissants", "bibimbap"]
PEOPLE = ["小王", "小李", "阿强", "妈妈", "爸爸", "姐姐", "弟弟", "老张", "Anna", "Ben", "Chloe", "David", "Emma",
          "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kim", "Lena"]
HOBBIES = ["网球", "游泳", "摄影", "书法", "钢琴", "爬山", "跑步", "tennis", "chess", "guitar", "cycling", "yoga",
           "painting", "climbing", "baking", "birdwatching"]
PLACES = ["咖啡馆", "图书馆", "公园", "夜市", "博物馆", "健身房", "market", "bookshop", "gallery", "stadium"]
TEMPLATES_ZH = [
    "我在{city}的{place}吃过{food}", "我的朋友{person}很喜欢{hobby}", "{person}住在{city}", "我最近在学{hobby}",
    "上周我和{person}去{city}的{place}", "我不太喜欢吃{food}", "我每个周末都去{place}", "{person}下个月要去{city}出差",
    "我第一次吃{food}是在{city}", "我打算明年和{person}一起去{city}旅行",
]
TEMPLATES_EN = [
    "I had {food} at a {place} in {city}", "My friend {person} loves {hobby}", "{person} lives in {city}",
    "I have been learning {hobby} lately", "Last week I went to a {place} in {city} with {person}",
    "I don't really like {food}", "I go to the {place} every weekend", "{person} is moving to {city} next year",
    "The best {food} I ever had was in {city}", "I want to take {person} to {city} for {hobby}",
]
QUERIES = [
    "我喜欢吃什么？", "where does {person} live?", "推荐一个{city}的{food}店", "what hobbies do I have?",
    "{person}最近怎么样？", "have I been to {city}?", "我和谁一起去过{city}？", "what food don't I like?",
    "周末我一般做什么？", "plans with {person}", "{food}", "{hobby} lessons",
]
FILLER_WORDS = [f"w{i:03d}" for i in range(400)]


def big_text(i: int) -> tuple[str, list[str]]:
    """The i-th memory of the big user: a bilingual sentence and the entity names it mentions."""
    r = random.Random(i)
    slots = {"city": r.choice(CITIES), "food": r.choice(FOODS), "person": r.choice(PEOPLE),
             "hobby": r.choice(HOBBIES), "place": r.choice(PLACES)}
    template = r.choice(TEMPLATES_ZH if i % 2 == 0 else TEMPLATES_EN)
    text = template.format(**slots)
    names = [slots[k] for k in ("person", "city", "food", "hobby") if "{" + k + "}" in template]
    return f"{text}（{i}）" if i % 2 == 0 else f"{text} ({i})", names


def real_turns(n: int, user: str = REAL) -> list[TurnInput]:
    """The typical queried user's conversation: user statements and assistant replies."""
    turns: list[TurnInput] = []
    for i in range(n):
        if i % 2:
            turns.append(TurnInput(user_id=user, session_id=f"s{i // 40}", speaker="assistant",
                                   text="好的，我记住了。" if i % 4 == 1 else "Got it, thanks for telling me.",
                                   at=NOW - timedelta(days=30) + timedelta(minutes=i)))
            continue
        text, _ = big_text(10_000_000 + i)
        text = text.rsplit("（", 1)[0].rsplit(" (", 1)[0]  # without the running number
        turns.append(TurnInput(user_id=user, session_id=f"s{i // 40}", speaker="user", text=text,
                               at=NOW - timedelta(days=30) + timedelta(minutes=i)))
    return turns


def queries(n: int) -> list[str]:
    r = random.Random(7)
    return [r.choice(QUERIES).format(person=r.choice(PEOPLE), city=r.choice(CITIES), food=r.choice(FOODS),
                                     hobby=r.choice(HOBBIES)) for _ in range(n)]


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


# ----- loading ---------------------------------------------------------------------------------------


@dataclass
class Tally:
    memories: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    skipped: int = 0
    triples: int = 0
    associations: int = 0

    @property
    def rate(self) -> float:
        return self.memories / self.seconds if self.seconds else 0.0


@dataclass
class Run:
    args: argparse.Namespace
    container: Container
    server: LocalNeo4j
    filler: Tally = field(default_factory=Tally)
    big: Tally = field(default_factory=Tally)
    real_seconds: float = 0.0
    real_turns: int = 0
    index_seconds: float | None = None
    notes: list[str] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)  # 1-minute load average at start, after load, at the end
    restored: bool = False  # tallies of an earlier run continue (its batches are not counted as skipped)
    total_seconds: float = 0.0  # the whole load of the run that finished it

    @property
    def state_file(self) -> Path:
        return Path(self.args.home).parent / f"{Path(self.args.home).name}-load-state.json"

    def restore(self) -> None:
        """Tallies of earlier (interrupted) runs on the same store, so a resumed run reports the whole load."""
        if self.state_file.is_file():
            saved = json.loads(self.state_file.read_text())
            self.filler, self.big = Tally(**saved["filler"]), Tally(**saved["big"])
            self.index_seconds = saved.get("index_seconds")
            self.real_seconds, self.real_turns = saved.get("real_seconds", 0.0), saved.get("real_turns", 0)
            self.total_seconds = saved.get("total_seconds", 0.0)
            self.restored = True

    def save(self) -> None:
        self.state_file.write_text(json.dumps({
            "filler": self.filler.__dict__, "big": self.big.__dict__, "index_seconds": self.index_seconds,
            "real_seconds": self.real_seconds, "real_turns": self.real_turns, "total_seconds": self.total_seconds}))

    def write(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return self.container.store.write(name, {"tenant": TENANT, "now": NOW, **params})

    def present(self, ids: Sequence[str]) -> set[str]:
        return {r["id"] for r in self.container.store.read("bench/scale_present", {"tenant": TENANT, "ids": list(ids)})}


def _row(uid: str, mid: str, text: str, vec: Sequence[float], i: int, rng: random.Random) -> dict[str, Any]:
    passive, active = round(rng.random() * 0.5, 3), round(0.3 + rng.random() * 0.4, 3)
    return {"user_id": uid, "scope_token": scope_token(TENANT, uid), "id": mid, "text": text,
            "text_key": text_key(text), "type": "SEMANTIC",
            "tier": rng.choice(("temp", "mid", "mid")),
            "passive": passive, "active": active, "weight": round(0.6 * passive + 0.3 * active + 0.05, 4),
            "at": NOW - timedelta(minutes=i), "recalls": rng.randint(0, 3), "session_id": f"s{i // 50}", "turn": i,
            "embedding": [float(x) for x in vec]}


def _pairs(uid: str, ids: Sequence[str], rng: random.Random, start: int) -> list[dict[str, Any]]:
    """Two association edges per memory: to the next one (same session) and to one a few steps on."""
    out = []
    n = len(ids)
    for k in range(n):
        for step in (1, 3 + (start + k) % 5):
            j = k + step
            if j < n:
                low, high = sorted((ids[k], ids[j]))
                out.append({"user_id": uid, "low": low, "high": high, "strength": round(0.2 + rng.random() * 0.7, 3)})
    return out


def load_filler(run: Run) -> None:
    a = run.args
    dim = run.container.vector_dimensions
    per_batch = max(1, a.batch // a.per_user)
    users = [f"f{u:05d}" for u in range(a.users)]
    started = time.perf_counter()
    for b, chunk in enumerate(_chunks(users, per_batch)):
        first = f"sm_{chunk[0]}_0"
        if run.present([first]):
            run.filler.skipped += 0 if run.restored else len(chunk) * a.per_user
            continue
        t = time.perf_counter()
        rng = random.Random(b)
        vectors = unit_vectors(np.random.default_rng(b), len(chunk) * a.per_user, dim)
        rows, entities, triples, pairs = [], [], [], []
        for ui, uid in enumerate(chunk):
            ents = [f"se_{uid}_{j}" for j in range(10)]
            entities += [{"id": e, "user_id": uid, "name": rng.choice(FILLER_WORDS), "kind": "thing"} for e in ents]
            ids = [f"sm_{uid}_{i}" for i in range(a.per_user)]
            for i, mid in enumerate(ids):
                words = " ".join(rng.choice(FILLER_WORDS) for _ in range(6))
                rows.append(_row(uid, mid, f"{uid} note {i}: {words}", vectors[ui * a.per_user + i], i, rng))
                s, o = rng.sample(ents, 2)
                triples.append({"user_id": uid, "memory_id": mid, "s": s, "o": o, "id": f"st_{mid}",
                                "p": rng.choice(("likes", "knows", "near"))})
            pairs += _pairs(uid, ids, rng, b)
        def work(tx: Any, c: Sequence[str] = chunk, r: list[dict[str, Any]] = rows,
                 e: list[dict[str, Any]] = entities, tr: list[dict[str, Any]] = triples,
                 p: list[dict[str, Any]] = pairs) -> tuple[int, int]:
            return _batch(tx, c, r, e, tr, p)

        counts = run.container.store.write_tx(work)
        run.filler.memories += len(rows)
        run.filler.triples += counts[0]
        run.filler.associations += counts[1]
        run.filler.seconds += time.perf_counter() - t
        run.save()
        if b % 10 == 0:
            done = run.filler.memories + run.filler.skipped
            print(f"filler {done:>9,}/{a.users * a.per_user:,} memories, {run.filler.rate:,.0f}/s "
                  f"({time.perf_counter() - started:,.0f}s)", flush=True)


def _batch(tx: Any, users: Sequence[str], rows: list[dict[str, Any]], entities: list[dict[str, Any]],
           triples: list[dict[str, Any]], pairs: list[dict[str, Any]], type_label: str = "Semantic") -> tuple[int, int]:
    base = {"tenant": TENANT, "now": NOW}
    if entities:
        tx.run("bench/scale_entities", {**base, "entities": entities})
    loaded = tx.run("bench/scale_memories", {**base, "users": list(users), "rows": rows}, type_label=type_label)
    assert loaded[0]["loaded"] == len(rows), loaded
    linked = tx.run("bench/scale_links", {**base, "triples": triples, "pairs": pairs})
    return int(linked[0]["triples"]), int(linked[0]["associated"])


def load_big(run: Run) -> None:
    a = run.args
    if a.big <= 0:
        return
    scope = Scope(TENANT, BIG)
    embedder = run.container.embedder
    names = sorted({n for i in range(min(a.big, 5000)) for n in big_text(i)[1]} | set(CITIES) | set(FOODS)
                   | set(PEOPLE) | set(HOBBIES))
    run.write("bench/scale_entities", {"entities": [
        {"id": entity_id(scope, "thing", n), "user_id": BIG, "name": n, "kind": "thing"} for n in names]})
    size = min(a.batch, 2000)
    started = time.perf_counter()
    for b, lo in enumerate(range(0, a.big, size)):
        ids = [f"bm_{i}" for i in range(lo, min(a.big, lo + size))]
        if run.present([ids[0]]):
            run.big.skipped += 0 if run.restored else len(ids)
            continue
        t = time.perf_counter()
        texts_names = [big_text(i) for i in range(lo, lo + len(ids))]
        e0 = time.perf_counter()
        vectors = embedder.embed_passages([t for t, _ in texts_names])
        run.big.embed_seconds += time.perf_counter() - e0
        rng = random.Random(1_000_000 + b)
        rows, triples = [], []
        for k, (mid, (text, ents)) in enumerate(zip(ids, texts_names, strict=True)):
            rows.append(_row(BIG, mid, text, vectors[k], lo + k, rng))
            if len(ents) >= 2:
                triples.append({"user_id": BIG, "memory_id": mid, "s": entity_id(scope, "thing", ents[0]),
                                "o": entity_id(scope, "thing", ents[1]), "p": "related_to", "id": f"bt_{mid}"})
        pairs = _pairs(BIG, ids, rng, b)
        def work(tx: Any, r: list[dict[str, Any]] = rows, tr: list[dict[str, Any]] = triples,
                 p: list[dict[str, Any]] = pairs) -> tuple[int, int]:
            return _batch(tx, [BIG], r, [], tr, p)

        counts = run.container.store.write_tx(work)
        run.big.memories += len(rows)
        run.big.triples += counts[0]
        run.big.associations += counts[1]
        run.big.seconds += time.perf_counter() - t
        run.save()
        if b % 10 == 0:
            print(f"big {run.big.memories + run.big.skipped:>7,}/{a.big:,} memories, {run.big.rate:,.0f}/s incl. "
                  f"embedding ({run.big.embed_seconds:,.0f}s of it; {time.perf_counter() - started:,.0f}s)", flush=True)


def load_real(run: Run) -> None:
    if run.args.real_turns <= 0:
        return
    turns = real_turns(run.args.real_turns, run.args.real_user)
    t = time.perf_counter()
    report = run.container.ingest.ingest_conversation(TENANT, turns)
    if report.stored:
        run.real_seconds, run.real_turns = time.perf_counter() - t, report.stored
        run.save()
    print(f"real user: {report.stored} new turns ingested ({report.duplicates} already there) in "
          f"{run.real_seconds:.1f}s", flush=True)


def rebuild_vector_index(run: Run, *, quiet: bool = False) -> None:
    t = time.perf_counter()
    try:
        run.container.migrate()  # re-creates the dropped index, then waits up to 60 s for it
    except Exception as exc:  # still populating: wait below
        print(f"index still populating ({type(exc).__name__}); waiting", flush=True)
    while True:
        rows = run.container.store.read("meta/index_states")
        states = {r["name"]: (r["state"], r["populationPercent"]) for r in rows}
        vector = {n: s for n, s in states.items() if n.startswith("memory_embedding_")}
        if vector and all(s[0] == "ONLINE" for s in vector.values()):
            break
        if any(s[0] == "FAILED" for s in vector.values()):
            raise RuntimeError(f"vector index failed: {vector}")
        print(f"vector index {vector}", flush=True)
        time.sleep(30)
    if quiet:
        return
    run.index_seconds = time.perf_counter() - t
    run.save()
    print(f"vector index online after {run.index_seconds:,.0f}s", flush=True)


# ----- measuring --------------------------------------------------------------------------------------


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def du(path: Path) -> int:
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=False).stdout.split()
    return int(out[0]) if out else 0


def _jmx(run: Run, name: str) -> dict[str, Any]:
    rows = run.container.store.read("bench/scale_jmx", {"name": name})
    return dict(rows[0]["attributes"]) if rows else {}


def memory_report(run: Run) -> dict[str, Any]:
    mem = _jmx(run, "java.lang:type=Memory")

    def usage(key: str) -> dict[str, int]:
        return dict(mem.get(key, {}).get("value", {}).get("properties", {}))

    heap, nonheap = usage("HeapMemoryUsage"), usage("NonHeapMemoryUsage")
    pid = run.server.status().pid
    status: dict[str, int] = {}
    if pid:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile"):
                status[k] = int(v.split()[0]) * 1024
    data = run.args.home / "data"
    stores = data / "databases" / "neo4j"
    schema = stores / "schema"
    store_files = du(stores) - (du(schema) if schema.exists() else 0)
    return {
        "heap_used": heap.get("used", 0), "heap_committed": heap.get("committed", 0), "heap_max": heap.get("max", 0),
        "nonheap_committed": nonheap.get("committed", 0), **status,
        # Neo4j's page cache is native (anonymous) memory: what the JVM holds beyond its heap and own areas.
        "pagecache_in_use": max(0, status.get("RssAnon", 0) - heap.get("committed", 0) - nonheap.get("committed", 0)),
        "store_total": du(data), "store_db": du(stores), "store_files_no_index": store_files,
        "store_indexes": du(schema) if schema.exists() else 0, "tx_logs": du(data / "transactions"),
    }


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]
    return statistics.median(ordered) * 1000, p95 * 1000


def latency(run: Run) -> dict[str, Any]:
    c = run.container
    n = run.args.queries
    qs = queries(n)
    out: dict[str, Any] = {}
    floor = []
    for q in qs:
        t = time.perf_counter()
        c.embedder.embed_query(q)
        floor.append(time.perf_counter() - t)
    out["embed_query"] = percentiles(floor)
    for user in (BIG, run.args.real_user):
        ids = _sample_ids(run, user)
        if not ids:
            continue
        for q in qs[:10]:  # warm the page cache and the plans
            c.recall.recall(TENANT, RecallRequest(user_id=user, query=q))
        c.vector_cache.wait_for_loads()  # a large user is read into the cache in the background
        samples, in_neo4j, gated, found = [], [], 0, 0
        by_statement = dict(c.store.timer.by_statement)
        for q in qs:
            t, db = time.perf_counter(), c.store.timer.seconds
            result = c.recall.recall(TENANT, RecallRequest(user_id=user, query=q))
            samples.append(time.perf_counter() - t)
            in_neo4j.append(c.store.timer.seconds - db)
            gated += result.gated
            found += len(result.memories)
        spent = {k: (v - by_statement.get(k, 0.0)) * 1000 / n for k, v in c.store.timer.by_statement.items()}
        top = sorted(((k, v) for k, v in spent.items() if v >= 0.5), key=lambda kv: -kv[1])[:4]
        out[f"recall/{user}"] = (*percentiles(samples), gated, found / n, *percentiles(in_neo4j),
                                 ", ".join(f"`{k}` {v:.1f} ms" for k, v in top))
        rng = random.Random(3)
        for depth in (2, 3):
            for mid in ids[:10]:
                c.recall.related(TENANT, user, mid, depth=depth)
            samples, reached = [], 0
            for _ in range(n):
                mid = rng.choice(ids)
                t = time.perf_counter()
                reached += len(c.recall.related(TENANT, user, mid, depth=depth))
                samples.append(time.perf_counter() - t)
            out[f"related{depth}/{user}"] = (*percentiles(samples), reached / n)
        print(f"measured {user}: {json.dumps({k: v for k, v in out.items() if user in k})}", flush=True)
    return out


def _sample_ids(run: Run, user: str) -> list[str]:
    if user == BIG:
        total = run.args.big
        rng = random.Random(5)
        ids = [f"bm_{rng.randrange(total)}" for _ in range(300)] if total else []
        return sorted(run.present(ids))
    page = run.container.memories.page(TENANT, user, first=100)
    return [m.id for m in page.items]


# ----- main -----------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=10_000, help="filler users")
    ap.add_argument("--per-user", type=int, default=100, help="memories per filler user")
    ap.add_argument("--big", type=int, default=100_000, help="memories of the one big (queried) user")
    ap.add_argument("--real-turns", type=int, default=200, help="turns of the typical queried user (ingested)")
    ap.add_argument("--real-user", default=REAL, help="id of the typical queried user (ingested if missing)")
    ap.add_argument("--batch", type=int, default=5000, help="memories per UNWIND transaction")
    ap.add_argument("--home", type=Path, default=PROJECT_ROOT / "data" / "scale" / "neo4j")
    ap.add_argument("--heap", default="4g")
    ap.add_argument("--pagecache", default="4g")
    ap.add_argument("--bolt-port", type=int, default=7697)
    ap.add_argument("--http-port", type=int, default=7484)
    ap.add_argument("--vector-index", choices=("during", "after"), default="after",
                    help="keep the vector index during the bulk load, or drop it and build it after")
    ap.add_argument("--queries", type=int, default=200, help="measured calls per operation and user")
    ap.add_argument("--measure-only", action="store_true", help="skip loading; measure what is stored")
    ap.add_argument("--out", type=Path, default=PROJECT_ROOT / "bench" / "results" / "scale.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep-running", action="store_true", help="leave the bench Neo4j running at the end")
    ap.add_argument("--fresh", action="store_true", help="delete the bench Neo4j's data first")
    args = ap.parse_args()
    args.home = args.home.resolve()
    if args.fresh and args.home.exists():
        shutil.rmtree(args.home)

    base = load_settings()
    neo = base.neo4j.model_copy(update={"uri": None, "home": args.home, "bolt_port": args.bolt_port,
                                        "http_port": args.http_port, "heap": args.heap, "pagecache": args.pagecache,
                                        "tx_timeout_s": 900.0, "start_timeout_s": 600.0})
    settings: Settings = base.model_copy(update={"neo4j": neo})
    server = LocalNeo4j(neo)
    t = time.perf_counter()
    status = server.start()
    print(f"bench neo4j pid {status.pid} at {status.bolt_uri} (heap {args.heap}, page cache {args.pagecache}), "
          f"started in {time.perf_counter() - t:.0f}s", flush=True)
    container = Container(settings)
    run = Run(args=args, container=container, server=server, loads=[os.getloadavg()[0]])
    if args.fresh:
        run.state_file.unlink(missing_ok=True)
    run.restore()
    try:
        try:
            container.migrate()  # the schema (re-creates a vector index an interrupted run had dropped)
        except Exception as exc:  # that index is still populating: dropped again below, or waited for
            print(f"schema applied, an index still populating ({type(exc).__name__})", flush=True)
        total_started = time.perf_counter()
        if args.measure_only:
            rebuild_vector_index(run, quiet=True)
            load_real(run)  # idempotent: a user already ingested changes nothing
        else:
            dropped = False
            if args.vector_index == "after":
                before = container.store.read("bench/scale_counts", {"tenant": TENANT})
                if before and before[0]["memories"] < args.users * args.per_user + args.big:
                    index = f"memory_embedding_{container.vector_dimensions}"
                    container.store.run_schema(statement("bench/scale_drop_vector_index", vector_index=index))
                    dropped = True
            container.embedder.embed_passages(["warm up"])
            # The queried users first: a run stopped early (see --measure-only) still measures them.
            load_big(run)
            load_filler(run)
            rebuild_vector_index(run, quiet=not dropped)  # waits until the vector index is online
            load_real(run)
        if not args.measure_only:
            run.total_seconds = time.perf_counter() - total_started
            run.save()
        run.loads.append(os.getloadavg()[0])
        counts = container.store.read("bench/scale_counts", {"tenant": TENANT})[0]
        print(f"stored: {counts}", flush=True)
        memory = memory_report(run)
        print(f"memory: {memory}", flush=True)
        lat = latency(run)
        memory_after = memory_report(run)
        run.loads.append(os.getloadavg()[0])
        report = render(run, counts, memory, memory_after, lat, run.total_seconds)
        print(report, flush=True)
        if not args.no_write:
            args.out.write_text(report, encoding="utf-8")
            print(f"wrote {args.out}", flush=True)
    finally:
        container.close()
        if not args.keep_running:
            try:
                server.stop(timeout_s=600)
            except Exception as exc:  # after a bulk index build Lucene merges for a long while before it exits
                print(f"{exc}: Neo4j is still shutting down (merging index segments) and stops by itself",
                      flush=True)


def _mb(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB" if n < 2**30 else f"{n / 2**30:,.2f} GiB"


def render(run: Run, counts: dict[str, Any], memory: dict[str, Any], after: dict[str, Any], lat: dict[str, Any],
           loaded_s: float) -> str:
    a = run.args
    cmd = (f"nice -n 10 .venv/bin/python bench/scale_load.py --users {a.users} --per-user {a.per_user} --big {a.big} "
           f"--real-turns {a.real_turns} --heap {a.heap} --pagecache {a.pagecache} --vector-index {a.vector_index}")
    f, b = run.filler, run.big
    home = a.home.relative_to(PROJECT_ROOT) if a.home.is_relative_to(PROJECT_ROOT) else a.home
    lines = [
        "# Scale: about 1M memories in one Neo4j (issue 8)",
        "",
        f"Command: `{cmd}` (its own Neo4j 5.26 under `{home}`,"
        f" heap {a.heap}, page cache {a.pagecache}). Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC."
        " Machine: 2 CPU cores shared with other engineers' test runs, 24 GiB RAM; the run was niced"
        " (1-minute load average at start / after the load /"
        f" at the end: {' / '.join(f'{x:.1f}' for x in run.loads)}), so every time below is an upper bound.",
        "",
        f"Stored (tenant `scale`): **{counts['memories']:,} memories**, {counts['entities']:,} entities, "
        f"{counts['users']:,} users: filler users with {a.per_user} memories each (synthetic unit vectors; "
        f"{f.memories + f.skipped:,} of the {a.users * a.per_user:,} planned), one user with {b.memories + b.skipped:,}"
        f" real bilingual memories and real embeddings, one typical user ingested through the pipeline "
        f"({run.real_turns} turns).",
        "",
        "## Load",
        "",
        "| part | memories | time | rate | notes |",
        "|---|---:|---:|---:|---|",
        f"| filler (UNWIND batches of {a.batch}, triples + 2 associations per memory) | {f.memories:,} | "
        f"{f.seconds:,.0f} s | {f.rate:,.0f}/s | {f.skipped:,} already loaded by an earlier run |",
        f"| big user (embedding included) | {b.memories:,} | {b.seconds:,.0f} s | {b.rate:,.0f}/s | "
        f"embedding {b.embed_seconds:,.0f} s of it ({b.memories / b.embed_seconds if b.embed_seconds else 0:,.0f} "
        f"texts/s) |",
        f"| real user through ingest | {run.real_turns} turns | {run.real_seconds:,.1f} s | "
        f"{run.real_turns / run.real_seconds if run.real_seconds else 0:,.1f} turns/s | full pipeline |",
    ]
    if run.index_seconds is not None:
        lines.append(f"| vector index built after the load | {counts['memories']:,} | {run.index_seconds:,.0f} s | "
                     f"{counts['memories'] / run.index_seconds:,.0f}/s | `--vector-index after` |")
    lines += [
        f"| everything | | {loaded_s:,.0f} s | | |",
        "",
        "## Size and memory",
        "",
        "| | after load | after the queries |",
        "|---|---:|---:|",
        f"| store on disk, all (`data/`) | {_mb(memory['store_total'])} | {_mb(after['store_total'])} |",
        f"| database files without indexes (what the page cache caches) | {_mb(memory['store_files_no_index'])} | "
        f"{_mb(after['store_files_no_index'])} |",
        f"| indexes (vector, full-text, range; Lucene through the OS file cache) | {_mb(memory['store_indexes'])} | "
        f"{_mb(after['store_indexes'])} |",
        f"| transaction logs | {_mb(memory['tx_logs'])} | {_mb(after['tx_logs'])} |",
        f"| heap used / committed (JMX) | {_mb(memory['heap_used'])} / {_mb(memory['heap_committed'])} | "
        f"{_mb(after['heap_used'])} / {_mb(after['heap_committed'])} |",
        f"| page cache in use (anonymous RSS - heap - non-heap) | {_mb(memory['pagecache_in_use'])} | "
        f"{_mb(after['pagecache_in_use'])} |",
        f"| JVM resident: anonymous / file-backed (Lucene mmaps) | {_mb(memory.get('RssAnon', 0))} / "
        f"{_mb(memory.get('RssFile', 0))} | {_mb(after.get('RssAnon', 0))} / {_mb(after.get('RssFile', 0))} |",
        "",
        "## Latency at this size (use-cases in process, Neo4j on the same machine)",
        "",
        f"{a.queries} calls each, queries drawn from the generated content (bilingual).",
        "",
        "| operation | user | p50 | p95 | per call |",
        "|---|---|---:|---:|---|",
        f"| embed one query (the floor) | | {lat['embed_query'][0]:.1f} ms | {lat['embed_query'][1]:.1f} ms | |",
    ]
    for user, label in ((BIG, f"big ({a.big:,})"), (a.real_user, "typical")):
        if f"recall/{user}" in lat:
            p50, p95, gated, found, db50, db95, top = lat[f"recall/{user}"]
            lines.append(f"| recall | {label} | {p50:.1f} ms | {p95:.1f} ms | {found:.1f} memories, {gated} gated; "
                         f"in Neo4j p50 {db50:.1f} / p95 {db95:.1f} ms (mean per statement: {top}) |")
        for depth in (2, 3):
            if f"related{depth}/{user}" in lat:
                p50, p95, reached = lat[f"related{depth}/{user}"]
                lines.append(f"| relatedSearch depth {depth} | {label} | {p50:.1f} ms | {p95:.1f} ms | "
                             f"{reached:.1f} reached |")
    lines += ["", *run.notes, ""]
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # query-plan hints, one per statement
    main()
