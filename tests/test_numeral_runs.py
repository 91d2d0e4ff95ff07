"""The time patterns that read a run of numerals (10点后, 12月25日, 3号, 八点) try the run from its start only: tried
from every position, a 32 KiB run of digits took 13 s in the rule stages (bench/adversarial_text.py, BENCHMARKS
"Adversarial text"). What they find is unchanged: each match still starts where its numerals do."""

from __future__ import annotations

import re

import pytest

from ingest.lexicon import SOMETIMES_RE, TIME_SAID_RE, said_for_some_times
from ingest.salience import _LATER_RE


@pytest.mark.parametrize(("pattern", "text", "found"), [
    (SOMETIMES_RE, "我每天10点后才睡", "10点后"),
    (SOMETIMES_RE, "十一点以后别给我发消息", "十一点以后"),
    (TIME_SAID_RE, "会议改到12月25日了", "12月25日"),
    (TIME_SAID_RE, "改到十二月三号", "十二月三号"),
    (TIME_SAID_RE, "我们约在15号", "15号"),
    (TIME_SAID_RE, "改到8点", "8点"),
    (TIME_SAID_RE, "改到十点", "十点"),
    (_LATER_RE, "记得20 号交房租", "20 号"),
])
def test_a_numeral_time_is_found_from_its_first_numeral(pattern: re.Pattern[str], text: str, found: str) -> None:
    match = pattern.search(text)
    assert match is not None and match.group(0) == found


def test_a_run_of_digits_holds_no_time() -> None:
    run = "1" * 2000
    assert TIME_SAID_RE.search(run) is None and SOMETIMES_RE.search(run) is None and _LATER_RE.search(run) is None
    assert not said_for_some_times(run)
    assert TIME_SAID_RE.search(run + "点").group(0) == run + "点"  # type: ignore[union-attr]
