"""Quality of the pure ingest logic on the held-out test split of tests/data/utterances.jsonl (no database).

Prints and checks: classifier accuracy (full three-level TypeClassifier with the committed model),
salience precision/recall (positive = remember) and triple extraction P/R/F1. The rules were tuned on
the train split only; these figures are the honest held-out ones.
"""

from __future__ import annotations

import hashlib
from collections import Counter
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
    train_type_model,
)
from ingest.embedding import Embedder, load_embedder
from ingest.extract import PREDICATES, RuleTripleExtractor, normalize_term
from ingest.salience import assess

DATA = Path(__file__).parent / "data" / "utterances.jsonl"


@pytest.fixture(scope="module")
def rows() -> list[LabeledUtterance]:
    return load_utterances(DATA)


@pytest.fixture(scope="module")
def held_out_rows(rows: list[LabeledUtterance]) -> list[LabeledUtterance]:
    return [r for r in rows if r.split == "test"]


@pytest.fixture(scope="module")
def model() -> LinearTypeModel:
    return LinearTypeModel.load(DEFAULT_MODEL_PATH)


@pytest.fixture(scope="module")
def embedder(model: LinearTypeModel) -> Embedder:
    # the embedder the committed weights were trained on (recorded in the JSON file)
    return load_embedder(model.embedder)


def _show(capsys: pytest.CaptureFixture[str], line: str) -> None:
    """Let the figures reach the terminal even under -q (they are the point of this module)."""
    with capsys.disabled():
        print(f"\n[ingest quality] {line}")


# ---------------------------------------------------------------------------------------------
# the dataset itself


def test_dataset_shape_and_fixed_split(rows: list[LabeledUtterance]) -> None:
    assert len(rows) >= 320
    assert len({r.id for r in rows}) == len(rows)
    langs = Counter(r.lang for r in rows)
    assert set(langs) == {"zh", "en", "mixed"}
    assert (langs["zh"] + langs["mixed"]) / len(rows) >= 0.45  # about half Chinese
    for r in rows:
        # the split is a deterministic hash of the id, chosen once (tests/data/README.md)
        in_test = int(hashlib.sha256(r.id.encode()).hexdigest(), 16) % 100 < 30
        assert r.split == ("test" if in_test else "train"), r.id
        assert r.text.strip() == r.text and r.text
        if r.type is MemoryType.WORKING:
            assert not r.remember, r.id  # working memory stays in the session
        for subject, predicate, obj, polarity in r.triples:
            assert predicate in PREDICATES, (r.id, predicate)
            assert polarity in (1, -1) and subject and obj
    share = sum(r.split == "test" for r in rows) / len(rows)
    assert 0.25 <= share <= 0.35
    for split in ("train", "test"):
        assert {r.type for r in rows if r.split == split} == set(MemoryType)


# ---------------------------------------------------------------------------------------------
# the three figures


def test_classifier_accuracy_on_test_split(
    held_out_rows: list[LabeledUtterance], model: LinearTypeModel, embedder: Embedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    classifier = TypeClassifier(RuleClassifier(), model, embedder.embed_query)
    X = embedder.embed_passages([r.text for r in held_out_rows])
    results = [classifier.classify(r.text, embedding=X[i]) for i, r in enumerate(held_out_rows)]
    hits = [c.type is r.type for c, r in zip(results, held_out_rows, strict=True)]
    accuracy = sum(hits) / len(hits)
    by_level = Counter(c.level for c in results)
    level_acc = {
        lvl.value: f"{sum(h for h, c in zip(hits, results, strict=True) if c.level is lvl)}/{n}"
        for lvl, n in by_level.items()
    }
    model_only = model.predict_proba_batch(X).argmax(axis=1)
    model_acc = float(np.mean([model.classes[i] is r.type for i, r in zip(model_only, held_out_rows, strict=True)]))
    _show(
        capsys,
        f"classifier accuracy on test: {accuracy:.3f} (n={len(hits)}; "
        f"correct/decided per level {level_acc}; level-2 model alone {model_acc:.3f})",
    )
    assert accuracy >= 0.85
    assert set(by_level) <= {ClassifierLevel.RULE, ClassifierLevel.MODEL, ClassifierLevel.FALLBACK}


def test_salience_precision_recall_on_test_split(
    held_out_rows: list[LabeledUtterance], capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = [assess(r.text, speaker="user").remember for r in held_out_rows]
    tp = sum(v and r.remember for v, r in zip(verdicts, held_out_rows, strict=True))
    fp = sum(v and not r.remember for v, r in zip(verdicts, held_out_rows, strict=True))
    fn = sum(not v and r.remember for v, r in zip(verdicts, held_out_rows, strict=True))
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    _show(capsys, f"salience on test: precision {precision:.3f}, recall {recall:.3f} (tp={tp} fp={fp} fn={fn})")
    assert precision >= 0.85
    assert recall >= 0.85


def test_triple_extraction_on_test_split(held_out_rows: list[LabeledUtterance],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    extractor = RuleTripleExtractor()
    tp = fp = fn = 0
    for r in held_out_rows:
        gold = {(normalize_term(s), p, normalize_term(o), pol) for s, p, o, pol in r.triples}
        found = {t.key() for t in extractor.extract(r.text)}
        tp, fp, fn = tp + len(gold & found), fp + len(found - gold), fn + len(gold - found)
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    _show(
        capsys,
        f"triples on test: precision {precision:.3f}, recall {recall:.3f}, F1 {f1:.3f} (tp={tp} fp={fp} fn={fn})",
    )
    assert f1 >= 0.8


def test_assistant_turns_never_remembered(held_out_rows: list[LabeledUtterance]) -> None:
    assert not any(assess(r.text, speaker="assistant").remember for r in held_out_rows)


# ---------------------------------------------------------------------------------------------
# the committed weights


def test_committed_model_is_the_train_split_model(
    rows: list[LabeledUtterance], model: LinearTypeModel, embedder: Embedder
) -> None:
    """ingest/models/type_model.json is what train_type_model gives on the train split: the same weights up
    to the last digits (the embedding model's float sums differ slightly between machines and library
    builds; seen: 3e-6) and the same decisions on every labelled utterance."""
    retrained = train_type_model(rows, embedder.embed_passages, embedder=embedder.name)
    assert retrained.classes == model.classes
    assert retrained.embedder == model.embedder == embedder.name
    np.testing.assert_allclose(retrained.weights, model.weights, atol=1e-4)
    np.testing.assert_allclose(retrained.bias, model.bias, atol=1e-4)
    x = np.asarray(embedder.embed_passages([r.text for r in rows]), dtype=np.float64)
    assert (retrained.predict_proba_batch(x).argmax(axis=1) == model.predict_proba_batch(x).argmax(axis=1)).all()
    assert DEFAULT_MODEL_PATH.stat().st_size < 100_000  # small: 6 x dim floats + bias
