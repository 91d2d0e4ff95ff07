"""The thread switch interval a pipelined ingest runs under (bmam/usecases/ingest.py switch_interval):
lowered while any pipelined ingest runs, restored once the last one ends, never raised (pure)."""

from __future__ import annotations

import sys
import threading

import pytest

from bmam.usecases.ingest import switch_interval


def test_lowered_inside_and_restored_after_overlapping_ingests() -> None:
    before = sys.getswitchinterval()
    with switch_interval(0.5):
        assert sys.getswitchinterval() == pytest.approx(0.0005)
        with switch_interval(0.25):  # a second ingest overlapping the first
            assert sys.getswitchinterval() == pytest.approx(0.00025)
        assert sys.getswitchinterval() == pytest.approx(0.00025)  # restored only when the last one ends
    assert sys.getswitchinterval() == before


def test_zero_leaves_it_and_it_is_never_raised() -> None:
    before = sys.getswitchinterval()
    with switch_interval(0):
        assert sys.getswitchinterval() == before
    with switch_interval(before * 1000 * 10):
        assert sys.getswitchinterval() == before
    assert sys.getswitchinterval() == before


def test_restored_after_an_error_and_across_threads() -> None:
    before = sys.getswitchinterval()
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with switch_interval(0.5):
            entered.set()
            release.wait(5)

    t = threading.Thread(target=other)
    t.start()
    assert entered.wait(5)
    with pytest.raises(RuntimeError), switch_interval(0.5):
        raise RuntimeError("boom")
    assert sys.getswitchinterval() == pytest.approx(0.0005)  # the other thread's ingest still runs
    release.set()
    t.join(5)
    assert sys.getswitchinterval() == before
