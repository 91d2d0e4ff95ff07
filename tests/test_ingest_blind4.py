"""Quality of the pure ingest logic on tests/data/utterances_blind4.jsonl, the fourth blind set (no database).

Written on 2026-12-01 by someone who read only the format and label guidelines of tests/data/README.md (no
code, no other labelled set, no notes on what the extractor handles); lines whose text also appears in an
earlier set were replaced before it was saved. Measured once, after blind set 3 became a development set
for the extractor (tests/data/README.md, "The fourth blind set"). The figures are computed exactly as for
the other blind sets (tests/test_ingest_blind.py `figures`); what meets the issue's targets is asserted,
what does not is printed as MISSED and guarded against getting worse.
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

DATA = Path(__file__).parent / "data"
BLIND4 = DATA / "utterances_blind4.jsonl"
EARLIER = ("utterances.jsonl", "utterances_blind.jsonl", "utterances_blind2.jsonl", "utterances_blind3.jsonl")


@pytest.fixture(scope="module")
def rows() -> list[LabeledUtterance]:
    return load_utterances(BLIND4)


@pytest.fixture(scope="module")
def measured(rows: list[LabeledUtterance]) -> Figures:
    return figures_of_committed_model(rows)


def test_fourth_blind_dataset_shape(rows: list[LabeledUtterance]) -> None:
    assert [r.id for r in rows] == [f"e{i:03d}" for i in range(1, 301)]
    assert all(r.split == "blind4" for r in rows)
    earlier = {r.text.strip().lower() for name in EARLIER for r in load_utterances(DATA / name)}
    assert not [r.id for r in rows if r.text.strip().lower() in earlier]  # nothing tuned on comes back
    langs = Counter(r.lang for r in rows)
    assert 0.45 <= (langs["zh"] + langs["mixed"]) / len(rows) <= 0.65  # about half Chinese
    assert {r.type for r in rows} == set(MemoryType)
    assert all(r.remember == (r.type is not MemoryType.WORKING) for r in rows)
    check_triple_labels(rows)


def test_classifier_and_salience_on_fourth_blind_set(measured: Figures, capsys: pytest.CaptureFixture[str]) -> None:
    check_classifier_and_salience(measured, capsys, "ingest blind4")


def test_triple_extraction_on_fourth_blind_set(measured: Figures, capsys: pytest.CaptureFixture[str]) -> None:
    """Measured once, 2026-12-01: precision 0.865, recall 0.732, F1 0.793 (tp 134, fp 21, fn 49): the 0.8
    target is MISSED on this set (printed as such); the floor below only guards against a regression."""
    show(capsys, "ingest blind4", measured.triples_line())
    assert measured.tri_precision >= 0.85
    assert measured.tri_f1 >= 0.79
