"""Quality of the pure ingest logic on tests/data/utterances_blind2.jsonl, the second blind set (no database).

Written on 2026-12-01 by someone who had seen neither the rules, the lexicons, the model nor the other
labelled sets, and measured once after the extractor changes of that day (tests/data/README.md, "The
second blind set"): triples F1 0.708 then. Since then it is a DEVELOPMENT set (the extractor was extended
on its misses, F1 0.982): these figures are a fit, kept as a regression check; the untuned measurement is
tests/test_ingest_blind3.py. The figures are computed exactly as for the first blind set
(tests/test_ingest_blind.py `figures`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from graph.model import MemoryType
from ingest.classify import LabeledUtterance, load_utterances
from tests.test_ingest_blind import (
    Figures,
    check_classifier_and_salience,
    check_triple_labels,
    figures_of_committed_model,
    show,
)

BLIND2 = Path(__file__).parent / "data" / "utterances_blind2.jsonl"


@pytest.fixture(scope="module")
def rows() -> list[LabeledUtterance]:
    return load_utterances(BLIND2)


@pytest.fixture(scope="module")
def measured(rows: list[LabeledUtterance]) -> Figures:
    return figures_of_committed_model(rows)


def _show(capsys: pytest.CaptureFixture[str], line: str) -> None:
    show(capsys, "ingest blind2", line)


def test_second_blind_dataset_shape(rows: list[LabeledUtterance]) -> None:
    assert len(rows) >= 200
    assert [r.id for r in rows] == [f"c{i:03d}" for i in range(1, len(rows) + 1)]
    assert all(r.split == "blind2" for r in rows)
    langs = Counter(r.lang for r in rows)
    assert 0.45 <= (langs["zh"] + langs["mixed"]) / len(rows) <= 0.6  # about half Chinese
    assert {r.type for r in rows} == set(MemoryType)
    assert {r.remember for r in rows} == {True, False}
    check_triple_labels(rows)


def test_classifier_and_salience_on_second_blind_set(measured: Figures,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    check_classifier_and_salience(measured, capsys, "ingest blind2")


def test_triple_extraction_on_second_blind_set(measured: Figures, capsys: pytest.CaptureFixture[str]) -> None:
    f = measured
    _show(capsys, f.triples_line())
    assert f.tri_precision >= 0.8  # what the extractor finds is right
    assert f.tri_f1 >= 0.9  # a development set since 2026-12-01 (0.982): a drop is a regression
