"""Recall quality eval (issue 4): plain dense search, plain full-text search and bmam recall on the same
generated bilingual conversations (bench/eval_data.py), in one run.

    .venv/bin/python bench/recall_eval.py [--seed 7] [--users 12] [--triples oracle|rules]
                                          [--out bench/results/recall_eval.md]

Memories are loaded through the use-cases (container.memories.remember + add_triple, then the association
forming of bmam/usecases/associations.py, exactly what the stored-memory hook does), under a fresh tenant
with a fake clock: six sessions over a month, questions asked three hours after the last one. Triples are
the generator's ("oracle", what an ideal extractor finds) or the ingest rule extractor's ("rules").
Usage updates (passive boost, co-recall strengthening) are switched off during the eval so every
question sees the same graph, whatever the order.

Metrics over answerable questions (single, multi-hop, change of mind): recall@5 and recall@10 (share of
the answer memories in the top k), hit@10 (at least one in the top 10), and false gates (answerable but
gated); over unrelated questions: the share correctly gated. Plain dense always answers (k nearest);
plain full-text is gated only when nothing matches at all.

The same three methods then answer the held-out phrasings (bench/eval_data.py EvalSet.held_out: every question
again in a phrasing no rule was tuned on, and new unrelated questions), in a second table: the gap between the
two tables is what the rules learnt of the eval's own words.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_data import ASK_AFTER_LAST_SESSION_HOURS, SESSION_DAYS, EvalQuestion, EvalSet, generate
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import Settings, load_settings
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest, RecallResult, RecallUseCases
from graph.model import PresetKind, Scope
from graph.recall import RecallFilters, RecallRepository, RetrievalLimits
from ingest.scoring import escape_lucene

START = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
K = 10


@dataclass
class Loaded:
    tenant: str
    ids: dict[str, str]  # eval key -> memory id
    seconds: float


@dataclass
class Answer:
    ids: list[str]
    gated: bool
    best_similarity: float | None = None
    best_coverage: float = 0.0


@dataclass
class Metrics:
    name: str
    rows: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, q: EvalQuestion, answer: Answer, key_to_id: dict[str, str]) -> None:
        if q.kind == "unrelated":
            gated = 1.0 if answer.gated or not answer.ids else 0.0
            self.rows["gated_unrelated"].append(gated)
            self.rows["gated_unrelated:about_user" if q.about_user else "gated_unrelated:general"].append(gated)
            return
        wanted = {key_to_id[k] for k in q.answers}
        for k in (5, 10):
            got = set(answer.ids[:k]) & wanted
            self.rows[f"r@{k}"].append(len(got) / len(wanted))
            self.rows[f"r@{k}:{q.kind}"].append(len(got) / len(wanted))
            if q.cross_lingual:
                self.rows[f"r@{k}:cross"].append(len(got) / len(wanted))
        self.rows["hit@10"].append(1.0 if set(answer.ids[:10]) & wanted else 0.0)
        self.rows["false_gate"].append(1.0 if answer.gated else 0.0)
        self.rows["returned"].append(float(len(answer.ids)))
        if answer.ids:  # of what came back, the share that answers (what an LLM prompt is filled with)
            self.rows["precision"].append(len(set(answer.ids) & wanted) / len(answer.ids))

    def mean(self, key: str) -> float:
        values = self.rows.get(key) or []
        return statistics.fmean(values) if values else float("nan")


def eval_settings(base: Settings | None = None) -> Settings:
    settings = (base or load_settings()).model_copy(deep=True)
    settings.living.recall_boost = 0.0
    settings.recall.co_recall_delta = 0.0
    return settings


def load(container: Container, clock: FakeClock, data: EvalSet, *, triples: str) -> Loaded:
    """Remember every memory session by session (the fake clock stamps them), add its triples, form its
    associations."""
    tenant = f"eval-{data.seed}-{uuid.uuid4().hex[:8]}"
    ids: dict[str, str] = {}
    extractor = None
    if triples == "rules":
        from ingest.extract import RuleTripleExtractor

        extractor = RuleTripleExtractor()
    started = time.perf_counter()
    for session, day in enumerate(SESSION_DAYS):
        clock.advance(START + timedelta(days=day) - clock.now())
        for m in (m for m in data.memories if m.session == session):
            clock.advance(timedelta(minutes=1))
            preset = PresetKind.SAFETY if m.preset == "safety" else PresetKind.DEFAULT
            stored = container.memories.remember(
                tenant, RememberRequest(user_id=m.user, text=m.text, type=m.type, preset_kind=preset,
                                        session_id=f"s{session}"))
            ids[m.key] = stored.id
            found = m.triples if extractor is None else [
                (t.subject, t.subject_kind, t.predicate, t.object, t.object_kind, t.polarity)
                for t in extractor.extract(m.text)
            ]
            for s, sk, p, o, ok, pol in found:
                container.memories.add_triple(tenant, m.user, memory_id=stored.id, subject=s, subject_kind=sk,
                                              predicate=p, object_=o, object_kind=ok, polarity=pol)
            container.association_forming.form(Scope(tenant, m.user), stored.id, text=m.text)
    clock.advance(START + timedelta(days=SESSION_DAYS[-1], hours=ASK_AFTER_LAST_SESSION_HOURS) - clock.now())
    return Loaded(tenant=tenant, ids=ids, seconds=time.perf_counter() - started)


def dense_baseline(container: Container, tenant: str) -> Callable[[EvalQuestion], Answer]:
    def answer(q: EvalQuestion) -> Answer:
        hits = container.memories.search(tenant, q.user, q.text, k=K)
        return Answer(ids=[h.memory.id for h in hits], gated=False)

    return answer


def fulltext_baseline(container: Container, tenant: str) -> Callable[[EvalQuestion], Answer]:
    """The memory_text index with the whole question as the query (escaped, lower-cased), best K hits."""
    repo = RecallRepository(container.store, container.vector_dimensions)
    zero = [0.0] * container.vector_dimensions
    zero[0] = 1.0
    limits = RetrievalLimits(k_dense=1, k_text=K, exact_max=0, exact_per_candidate=0)  # always the index

    def answer(q: EvalQuestion) -> Answer:
        lucene = escape_lucene(q.text.lower())
        found = repo.read(lambda tx: repo.candidates(tx, Scope(tenant, q.user), zero, [], lucene, RecallFilters(),
                                                     limits))
        ids = [t.memory.id for t in found.text]
        return Answer(ids=ids, gated=not ids)

    return answer


def variant(container: Container, **changes: object) -> RecallUseCases:
    """bmam recall with some RecallSettings changed (an ablation), on the same store and model."""
    from bmam.usecases.recall import repetition_params
    from graph.recall import RecallRepository as Repo
    from graph.related import RelatedRepository
    from ingest.repetition import RepetitionTracker

    settings = container.settings.model_copy(deep=True)
    for name, value in changes.items():
        setattr(settings.recall, name, value)
    return RecallUseCases(settings=settings, clock=container.clock, embedder=container.embedder,
                          repository=Repo(container.store, container.vector_dimensions),
                          related=RelatedRepository(container.store), repetition=RepetitionTracker(
                              repetition_params(settings)), weight_policy=container.weight_policy)


def bmam_recall(recall: RecallUseCases, tenant: str) -> Callable[[EvalQuestion], Answer]:
    def answer(q: EvalQuestion) -> Answer:
        r: RecallResult = recall.recall(tenant, RecallRequest(user_id=q.user, query=q.text, k=K))
        return Answer(ids=[m.memory.id for m in r.memories], gated=r.gated, best_similarity=r.best_similarity,
                      best_coverage=r.best_coverage)

    return answer


def run(name: str, fn: Callable[[EvalQuestion], Answer], questions: Sequence[EvalQuestion],
        ids: dict[str, str]) -> tuple[Metrics, list[Answer], float]:
    m = Metrics(name)
    answers: list[Answer] = []
    started = time.perf_counter()
    for q in questions:
        a = fn(q)
        answers.append(a)
        m.add(q, a, ids)
    return m, answers, (time.perf_counter() - started) / max(1, len(questions))


def table(metrics: Sequence[Metrics]) -> str:
    cols = [("recall@5", "r@5"), ("recall@10", "r@10"), ("hit@10", "hit@10"),
            ("unrelated gated", "gated_unrelated"), ("of them general", "gated_unrelated:general"),
            ("of them about the user", "gated_unrelated:about_user"), ("answerable gated", "false_gate"),
            ("r@10 single", "r@10:single"), ("r@10 named entity", "r@10:entity"), ("r@10 multi-hop", "r@10:multi"),
            ("r@10 change", "r@10:change"),
            ("r@10 cross-lingual", "r@10:cross"), ("mean returned", "returned"), ("precision", "precision")]
    lines = ["| method | " + " | ".join(c for c, _ in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for m in metrics:
        lines.append(f"| {m.name} | " + " | ".join(f"{m.mean(k):.3f}" for _, k in cols) + " |")
    return "\n".join(lines)


def cleanup(container: Container, tenant: str, users: Sequence[str]) -> None:
    for user in users:
        container.erasure.forget_user(tenant, user, confirm=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--users", type=int, default=12)
    parser.add_argument("--triples", choices=("oracle", "rules"), default="oracle")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the eval tenant (default: erase it)")
    parser.add_argument("--no-ablations", dest="ablations", action="store_false",
                        help="skip the RRF and no-expansion rows")
    parser.add_argument("--relative-cuts", type=float, nargs="*", default=[],
                        help="rows of bmam with recall.min_relative_relevance at these values (to tune it)")
    args = parser.parse_args(argv)

    data = generate(seed=args.seed, users=args.users)
    clock = FakeClock(START)
    container = Container(eval_settings(), clock=clock)
    container.migrate()
    loaded = load(container, clock, data, triples=args.triples)
    questions = data.questions
    held_out = data.held_out
    try:
        dense, _, t_dense = run("plain dense (cosine top 10)", dense_baseline(container, loaded.tenant), questions,
                                loaded.ids)
        text, _, t_text = run("plain full-text (memory_text_scoped)", fulltext_baseline(container, loaded.tenant),
                              questions, loaded.ids)
        ours, answers, t_ours = run(f"**bmam recall** ({args.triples} triples)",
                                    bmam_recall(container.recall, loaded.tenant), questions, loaded.ids)
        ablations = [
            run(name, bmam_recall(variant(container, **changes), loaded.tenant), questions, loaded.ids)[0]
            for name, changes in (("bmam, RRF fusion instead of linear", {"fusion": "rrf"}),
                                  ("bmam without graph expansion", {"expand_seeds": 0}))
        ] if args.ablations else []
        ablations += [
            run(f"bmam, min_relative_relevance {cut}",
                bmam_recall(variant(container, min_relative_relevance=cut), loaded.tenant), questions, loaded.ids)[0]
            for cut in args.relative_cuts
        ]
        held = [run(name, fn, held_out, loaded.ids)[0] for name, fn in (
            ("plain dense, held-out phrasings", dense_baseline(container, loaded.tenant)),
            ("plain full-text, held-out phrasings", fulltext_baseline(container, loaded.tenant)),
            (f"**bmam recall, held-out phrasings** ({args.triples} triples)",
             bmam_recall(container.recall, loaded.tenant)))]
    finally:
        if not args.keep:
            cleanup(container, loaded.tenant, [u.user_id for u in data.users])
        container.close()

    kinds: dict[str, int] = defaultdict(int)
    for q in questions:
        kinds[q.kind] += 1
    model = container.settings.embedding.model
    cal = container.settings.recall.calibration_for(model)
    summary = [
        f"seed {args.seed}: {len(data.users)} users, {len(data.memories)} memories, {len(questions)} questions "
        f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); embedding model {model}; "
        f"gate cosine {cal.gate_similarity} (input about the user) / {cal.gate_similarity_general} (other input); "
        f"triples {args.triples}; loaded in {loaded.seconds:.1f} s",
        "",
        table([dense, text, ours, *ablations]),
        "",
        f"mean time per question: dense {t_dense * 1000:.1f} ms, full-text {t_text * 1000:.1f} ms, "
        f"bmam {t_ours * 1000:.1f} ms (in-process, no HTTP)",
        f"bmam recall@10 vs dense: {ours.mean('r@10') / dense.mean('r@10'):.2f}x, "
        f"vs full-text: {ours.mean('r@10') / text.mean('r@10'):.2f}x",
        "",
        f"held-out phrasings: the same {len(held_out) - sum(q.kind == 'unrelated' for q in held_out)} answerable "
        f"questions asked in other words, and {sum(q.kind == 'unrelated' for q in held_out)} new unrelated ones "
        "(bench/eval_data.py, the held-out phrasings)",
        "",
        table(held),
        "",
        f"bmam recall@10, held-out / tuned phrasings: {held[2].mean('r@10') / ours.mean('r@10'):.2f}x; "
        f"unrelated gated {held[2].mean('gated_unrelated'):.3f} vs {ours.mean('gated_unrelated'):.3f}",
    ]
    print("\n".join(summary))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(summary) + "\n", encoding="utf-8")
    # The gate's evidence per question kind, to tune the threshold.
    by_kind: dict[str, list[float]] = defaultdict(list)
    for q, a in zip(questions, answers, strict=True):
        if a.best_similarity is not None:
            by_kind["unrelated" if q.kind == "unrelated" else "answerable"].append(a.best_similarity)
    for kind, sims in sorted(by_kind.items()):
        sims.sort()
        print(f"best cosine, {kind}: min {sims[0]:.3f} p10 {sims[len(sims) // 10]:.3f} "
              f"median {statistics.median(sims):.3f} p90 {sims[len(sims) * 9 // 10]:.3f} max {sims[-1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
