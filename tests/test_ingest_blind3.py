"""Quality of the pure ingest logic on tests/data/utterances_blind3.jsonl, the third blind set (no database).

Written on 2026-12-01 by someone who read only tests/data/README.md (neither the rules, the lexicons, the
model nor the other labelled sets), while the extractor was being improved on blind sets 1 and 2; measured
once after that (tests/data/README.md, "The third blind set"). The 23 lines whose text also appears in
another labelled set (greetings, but a few whole sentences too) are left out: the rules were tuned on
those. The figures are computed exactly as for the other blind sets (tests/test_ingest_blind.py `figures`).
What meets the issue's targets is asserted; what does not is printed as MISSED, not hidden.

Since 2026-12-01, after that single measurement, this set is a DEVELOPMENT set for the triple extractor (like
blind sets 1 and 2): its misses were read and ingest/extract.py was extended for them (tests/data/README.md,
"Since 2026-12-01: a development set too"). Its triple figures are now a fit, not a held-out estimate; the
assertions below stay as a regression check.
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
BLIND3 = DATA / "utterances_blind3.jsonl"
TUNED_ON = ("utterances.jsonl", "utterances_blind.jsonl", "utterances_blind2.jsonl")


def _key(text: str) -> str:
    return text.strip().lower()


@pytest.fixture(scope="module")
def all_rows() -> list[LabeledUtterance]:
    return load_utterances(BLIND3)


@pytest.fixture(scope="module")
def rows(all_rows: list[LabeledUtterance]) -> list[LabeledUtterance]:
    seen = {_key(r.text) for name in TUNED_ON for r in load_utterances(DATA / name)}
    return [r for r in all_rows if _key(r.text) not in seen]


@pytest.fixture(scope="module")
def measured(rows: list[LabeledUtterance]) -> Figures:
    return figures_of_committed_model(rows)


def _show(capsys: pytest.CaptureFixture[str], line: str) -> None:
    show(capsys, "ingest blind3", line)


def test_third_blind_dataset_shape(all_rows: list[LabeledUtterance], rows: list[LabeledUtterance]) -> None:
    assert len(all_rows) == 300 and len(rows) >= 270
    assert [r.id for r in all_rows] == [f"d{i:03d}" for i in range(1, len(all_rows) + 1)]
    assert all(r.split == "blind3" for r in all_rows)
    langs = Counter(r.lang for r in all_rows)
    assert 0.45 <= (langs["zh"] + langs["mixed"]) / len(all_rows) <= 0.65  # about half Chinese
    assert {r.type for r in rows} == set(MemoryType)
    assert {r.remember for r in rows} == {True, False}
    assert all(r.remember == (r.type is not MemoryType.WORKING) for r in all_rows)
    check_triple_labels(all_rows)


def test_classifier_and_salience_on_third_blind_set(measured: Figures, capsys: pytest.CaptureFixture[str]) -> None:
    check_classifier_and_salience(measured, capsys, "ingest blind3")


def test_triple_extraction_on_third_blind_set(measured: Figures, capsys: pytest.CaptureFixture[str]) -> None:
    """First (and only untuned) measurement, 2026-12-01: precision 0.912, recall 0.723, F1 0.807 on the 277
    lines (0.802 without the 10 lines resembling phrasings the README named as misses of blind 2). After it
    became a development set (2026-12-01): precision 0.995, recall 0.980, F1 0.988 (a fit)."""
    f = measured
    _show(capsys, f.triples_line())
    assert f.tri_precision >= 0.85
    assert f.tri_f1 >= 0.8
