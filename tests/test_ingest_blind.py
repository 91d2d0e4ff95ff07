"""Quality of the pure ingest logic on tests/data/utterances_blind.jsonl (no database).

The set was written by someone who had not seen the rules, lexicons, model or the other labelled
set (tests/data/README.md, "The blind set"). It was blind for its first measurement only: on
2026-12-01, after that run (triple F1 0.728), it became a DEVELOPMENT set for the triple extractor
(the misses were read and general rule families were added), so its triple figures are no longer a
held-out estimate; a second blind set, written by someone else, measures that. The classifier and
salience were not tuned on it. The figures are computed exactly as in tests/test_ingest_quality.py
(same three-level classifier with the committed model, same salience and extractor, same triple
normalisation) and printed with every miss, on the whole set and on its "unseen" part (lines whose
text does not also occur in tests/data/utterances.jsonl; a few short common turns such as "hey"
were written independently in both sets).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from graph.model import ClassifierLevel, MemoryType
from ingest.classify import (
    DEFAULT_MODEL_PATH,
    LabeledUtterance,
    LinearTypeModel,
    RuleClassifier,
    TypeClassifier,
    load_utterances,
)
from ingest.embedding import Embedder, load_embedder
from ingest.extract import PREDICATES, RuleTripleExtractor, normalize_term
from ingest.salience import assess

BLIND = Path(__file__).parent / "data" / "utterances_blind.jsonl"
TUNING_SET = Path(__file__).parent / "data" / "utterances.jsonl"


@dataclass(frozen=True)
class Figures:
    n: int
    accuracy: float
    level_acc: dict[str, str]
    model_acc: float
    type_misses: list[str]
    sal_precision: float
    sal_recall: float
    sal_counts: tuple[int, int, int]
    sal_misses: list[str]
    tri_precision: float
    tri_recall: float
    tri_f1: float
    tri_counts: tuple[int, int, int]
    tri_misses: list[str]

    def classifier_line(self) -> str:
        return f"classifier accuracy {self.accuracy:.3f} (n={self.n}; per level {self.level_acc}; " \
               f"model alone {self.model_acc:.3f})"

    def salience_line(self) -> str:
        return f"salience precision {self.sal_precision:.3f} recall {self.sal_recall:.3f} " \
               f"(tp, fp, fn {self.sal_counts})"

    def triples_line(self) -> str:
        return f"triples precision {self.tri_precision:.3f} recall {self.tri_recall:.3f} F1 {self.tri_f1:.3f} " \
               f"(tp, fp, fn {self.tri_counts}; target F1 0.8: {'met' if self.tri_f1 >= 0.8 else 'MISSED'})"


def figures(rows: list[LabeledUtterance], model: LinearTypeModel, embedder: Embedder) -> Figures:
    """The three figures, computed the same way as tests/test_ingest_quality.py."""
    # classifier: the full three levels with the committed model
    classifier = TypeClassifier(RuleClassifier(), model, embedder.embed_query)
    X = embedder.embed_passages([r.text for r in rows])
    results = [classifier.classify(r.text, embedding=X[i]) for i, r in enumerate(rows)]
    hits = [c.type is r.type for c, r in zip(results, rows, strict=True)]
    by_level = Counter(c.level for c in results)
    assert set(by_level) <= {ClassifierLevel.RULE, ClassifierLevel.MODEL, ClassifierLevel.FALLBACK}
    level_acc = {
        lvl.value: f"{sum(h for h, c in zip(hits, results, strict=True) if c.level is lvl)}/{n}"
        for lvl, n in by_level.items()
    }
    model_only = model.predict_proba_batch(X).argmax(axis=1)
    model_acc = float(np.mean([model.classes[i] is r.type for i, r in zip(model_only, rows, strict=True)]))
    type_misses = [
        f"{r.id} {r.text!r}: expected {r.type.value}, got {c.type.value} ({c.level.value}, {c.confidence:.2f})"
        for c, r, h in zip(results, rows, hits, strict=True)
        if not h
    ]
    # salience: positive = remember
    verdicts = [assess(r.text, speaker="user").remember for r in rows]
    s_tp = sum(v and r.remember for v, r in zip(verdicts, rows, strict=True))
    s_fp = sum(v and not r.remember for v, r in zip(verdicts, rows, strict=True))
    s_fn = sum(not v and r.remember for v, r in zip(verdicts, rows, strict=True))
    sal_misses = [
        f"{r.id} {r.text!r}: expected remember={r.remember}, got {v}"
        for v, r in zip(verdicts, rows, strict=True)
        if v != r.remember
    ]
    # triples: exact on normalised (subject, predicate, object, polarity), micro-averaged
    extractor = RuleTripleExtractor()
    tp = fp = fn = 0
    tri_misses = []
    for r in rows:
        gold = {(normalize_term(s), p, normalize_term(o), pol) for s, p, o, pol in r.triples}
        found = {t.key() for t in extractor.extract(r.text)}
        tp, fp, fn = tp + len(gold & found), fp + len(found - gold), fn + len(gold - found)
        if gold != found:
            tri_misses.append(f"{r.id} {r.text!r}: missing {sorted(gold - found)}, extra {sorted(found - gold)}")
    t_p, t_r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return Figures(
        n=len(rows),
        accuracy=sum(hits) / len(hits),
        level_acc=level_acc,
        model_acc=model_acc,
        type_misses=type_misses,
        sal_precision=s_tp / max(s_tp + s_fp, 1),
        sal_recall=s_tp / max(s_tp + s_fn, 1),
        sal_counts=(s_tp, s_fp, s_fn),
        sal_misses=sal_misses,
        tri_precision=t_p,
        tri_recall=t_r,
        tri_f1=2 * t_p * t_r / max(t_p + t_r, 1e-9),
        tri_counts=(tp, fp, fn),
        tri_misses=tri_misses,
    )


def figures_of_committed_model(rows: list[LabeledUtterance]) -> Figures:
    """figures() with the committed level-2 model and the embedder its weights were trained on (the
    other blind-set tests measure this way too)."""
    model = LinearTypeModel.load(DEFAULT_MODEL_PATH)
    return figures(rows, model, load_embedder(model.embedder))


def show(capsys: pytest.CaptureFixture[str], tag: str, line: str) -> None:
    """Print a figure line past pytest's capture (the figures are the point of these tests)."""
    with capsys.disabled():
        print(f"\n[{tag}] {line}")


def check_triple_labels(rows: list[LabeledUtterance]) -> None:
    """Every labelled triple names a predicate the extractor knows, with polarity 1 or -1."""
    for r in rows:
        for _, predicate, _, polarity in r.triples:
            assert predicate in PREDICATES, (r.id, predicate)
            assert polarity in (1, -1)


def check_classifier_and_salience(f: Figures, capsys: pytest.CaptureFixture[str], tag: str) -> None:
    """Print the classifier and salience figures and assert the issue's targets (0.85 each)."""
    show(capsys, tag, f.classifier_line())
    show(capsys, tag, f.salience_line())
    assert f.accuracy >= 0.85
    assert f.sal_precision >= 0.85 and f.sal_recall >= 0.85


@pytest.fixture(scope="module")
def rows() -> list[LabeledUtterance]:
    return load_utterances(BLIND)


@pytest.fixture(scope="module")
def tuning_texts() -> set[str]:
    return {normalize_term(r.text) for r in load_utterances(TUNING_SET)}


@pytest.fixture(scope="module")
def model() -> LinearTypeModel:
    return LinearTypeModel.load(DEFAULT_MODEL_PATH)


@pytest.fixture(scope="module")
def embedder(model: LinearTypeModel) -> Embedder:
    return load_embedder(model.embedder)


@pytest.fixture(scope="module")
def blind_figures(rows: list[LabeledUtterance], model: LinearTypeModel, embedder: Embedder) -> Figures:
    return figures(rows, model, embedder)


@pytest.fixture(scope="module")
def unseen_figures(
    rows: list[LabeledUtterance], tuning_texts: set[str], model: LinearTypeModel, embedder: Embedder
) -> Figures:
    return figures([r for r in rows if normalize_term(r.text) not in tuning_texts], model, embedder)


def _show(capsys: pytest.CaptureFixture[str], line: str) -> None:
    """Let the figures reach the terminal even under -q."""
    with capsys.disabled():
        print(f"\n[ingest blind] {line}")


# ---------------------------------------------------------------------------------------------
# the dataset itself


def test_blind_dataset_shape(
    rows: list[LabeledUtterance], tuning_texts: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(rows) >= 150
    assert [r.id for r in rows] == [f"b{i:03d}" for i in range(1, len(rows) + 1)]
    assert all(r.split == "blind" for r in rows)
    langs = Counter(r.lang for r in rows)
    assert set(langs) == {"zh", "en", "mixed"}
    assert 0.4 <= langs["zh"] / len(rows) <= 0.6  # about half Chinese
    assert 0.45 <= (langs["zh"] + langs["mixed"]) / len(rows) <= 0.65
    assert {r.type for r in rows} == set(MemoryType)
    assert {r.remember for r in rows} == {True, False}
    for r in rows:
        assert r.text.strip() == r.text and r.text
        assert r.remember == (r.type is not MemoryType.WORKING), r.id
        for subject, predicate, obj, polarity in r.triples:
            assert predicate in PREDICATES, (r.id, predicate)
            assert polarity in (1, -1) and subject and obj
    shared = [r.id for r in rows if normalize_term(r.text) in tuning_texts]
    assert len(shared) <= 0.1 * len(rows)  # the blind set is mostly new sentences
    types = Counter(r.type.value for r in rows)
    _show(
        capsys,
        f"blind set: {len(rows)} lines {dict(langs)}; types {dict(types)}; "
        f"remember {sum(r.remember for r in rows)}/{len(rows)}; {sum(len(r.triples) for r in rows)} triples; "
        f"{len(shared)} texts also in utterances.jsonl {shared}",
    )


# ---------------------------------------------------------------------------------------------
# the three figures (all blind lines, and the lines unseen in the tuning set)


def test_classifier_accuracy_on_blind_set(
    blind_figures: Figures, unseen_figures: Figures, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, f in (("blind", blind_figures), ("blind unseen", unseen_figures)):
        _show(
            capsys,
            f"classifier accuracy on {name}: {f.accuracy:.3f} (n={f.n}; correct/decided per level "
            f"{f.level_acc}; level-2 model alone {f.model_acc:.3f})",
        )
    for miss in blind_figures.type_misses:
        _show(capsys, f"  type miss {miss}")
    assert blind_figures.accuracy >= 0.85
    assert unseen_figures.accuracy >= 0.85


def test_salience_precision_recall_on_blind_set(
    blind_figures: Figures, unseen_figures: Figures, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, f in (("blind", blind_figures), ("blind unseen", unseen_figures)):
        tp, fp, fn = f.sal_counts
        _show(
            capsys,
            f"salience on {name}: precision {f.sal_precision:.3f}, recall {f.sal_recall:.3f} "
            f"(n={f.n}; tp={tp} fp={fp} fn={fn})",
        )
    for miss in blind_figures.sal_misses:
        _show(capsys, f"  salience miss {miss}")
    for f in (blind_figures, unseen_figures):
        assert f.sal_precision >= 0.85
        assert f.sal_recall >= 0.85


def test_triple_extraction_on_blind_set(
    blind_figures: Figures, unseen_figures: Figures, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, f in (("blind", blind_figures), ("blind unseen", unseen_figures)):
        tp, fp, fn = f.tri_counts
        _show(
            capsys,
            f"triples on {name}: precision {f.tri_precision:.3f}, recall {f.tri_recall:.3f}, "
            f"F1 {f.tri_f1:.3f} (n={f.n}; tp={tp} fp={fp} fn={fn})",
        )
    for miss in blind_figures.tri_misses:
        _show(capsys, f"  triple miss {miss}")
    # The issue-3 threshold. Since 2026-12-01 this set is a development set for the extractor (see the
    # module docstring): passing here shows the rules cover it, not that they generalise.
    assert blind_figures.tri_f1 >= 0.8
    assert unseen_figures.tri_f1 >= 0.8


def test_assistant_turns_never_remembered_on_blind_set(rows: list[LabeledUtterance]) -> None:
    assert not any(assess(r.text, speaker="assistant").remember for r in rows)
