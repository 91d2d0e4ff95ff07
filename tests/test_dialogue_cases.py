"""The blind conversation bench (bench/dialogue_cases.py): its data holds together (every answer is something a
user said) and its judge says what the README of bench/data says. Pure: no store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.dialogue_cases import DEFAULT_CASES, KINDS, Probe, Scenario, judge, read_cases
from bmam.usecases.recall import RecalledMemory, RecallResult
from graph.model import ClassifierLevel, Memory, MemoryType, PresetKind, Provenance, Tier, WeightParts
from ingest.scoring import Scores


@pytest.mark.parametrize(("cases", "splits"), [(DEFAULT_CASES, {"tune", "check"}),
                                               (DEFAULT_CASES.with_name("dialogues_blind2.jsonl"), {"check"}),
                                               *[(DEFAULT_CASES.with_name(f"dialogues_blind{n}.jsonl"),
                                                  {"tune", "check"}) for n in (3, 4, 5)]])
def test_the_blind_sets_hold_together(cases: Path, splits: set[str]) -> None:
    scenarios = read_cases(cases)
    assert len(scenarios) == 60 and len({s.id for s in scenarios}) == 60
    assert {s.split for s in scenarios} == splits  # the second set is held out whole
    for s in scenarios:
        said = [text.lower() for _, turns in s.sessions for speaker, text in turns if speaker == "user"]
        assert [d for d, _ in s.sessions] == sorted((d for d, _ in s.sessions), reverse=True), s.id
        for p in s.probes:
            assert p.kind in KINDS
            for needle in (*p.answer, *p.also) + (p.stale if p.kind == "change" else ()):
                assert any(needle.lower() in t for t in said), (s.id, p.ask, needle)
            assert bool(p.answer) == (p.kind not in ("unrelated", "not_said")), (s.id, p.ask)


def test_a_malformed_line_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "lang": "en", "sessions": [], "probes": [{"ask": "?", "kind": "gossip"}]}\n',
                   encoding="utf-8")
    with pytest.raises(SystemExit, match="unknown probe kind"):
        read_cases(bad)
    bad.write_text("{not json}\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"bad.jsonl:1"):
        read_cases(bad)


def test_a_scenario_may_be_held_out_whatever_its_hash(tmp_path: Path) -> None:
    # b001's hash makes it tune; "split": "check" keeps it out of tuning. No other split may be fixed.
    line = '{"id": "b001", "lang": "en", "sessions": [], "probes": []%s}\n'
    cases = tmp_path / "cases.jsonl"
    cases.write_text(line % "", encoding="utf-8")
    assert read_cases(cases)[0].split == "tune"
    cases.write_text(line % ', "split": "check"', encoding="utf-8")
    assert read_cases(cases)[0].split == "check"
    cases.write_text(line % ', "split": "tune"', encoding="utf-8")
    with pytest.raises(SystemExit, match="only \"check\""):
        read_cases(cases)


AT = datetime(2026, 11, 1, tzinfo=UTC)


def recalled(text: str) -> RecalledMemory:
    memory = Memory(id=text, tenant="t", user_id="u", text=text, type=MemoryType.FACTUAL, tier=Tier.TEMP,
                    weight=WeightParts(passive=0.0, active=0.0, preset=0.5, final=0.05), preset_kind=PresetKind.DEFAULT,
                    locked=False, created_at=AT, last_recalled_at=None, last_mentioned_at=None, recall_count=0,
                    mention_count=1, classified_by=ClassifierLevel.RULE, confidence=1.0,
                    provenance=Provenance(session_id="s", turn=0, device_id=None), valid_from=AT)
    return RecalledMemory(memory=memory, scores=Scores(0.5, 0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 0.5), why="")


def result(*texts: str, gated: bool = False) -> RecallResult:
    return RecallResult(gated=gated, reason="r", memories=[recalled(t) for t in texts])


SCENARIO = Scenario(id="b999", lang="en", sessions=[], probes=[])


def probe(kind: str, answer: tuple[str, ...] = (), also: tuple[str, ...] = (), stale: tuple[str, ...] = ()) -> Probe:
    return Probe(ask="?", kind=kind, answer=answer, also=also, stale=stale, note="")


def test_the_judge() -> None:
    fact = probe("fact", answer=("Porto",))
    assert judge(SCENARIO, fact, result("We moved to porto", "I like tea"), k=5).first
    later = judge(SCENARIO, fact, result("I like tea", "We moved to Porto"), k=5)
    assert later.passed and not later.first
    assert not judge(SCENARIO, fact, result("I like tea"), k=5).passed
    assert not judge(SCENARIO, fact, result("x", "x", "We moved to Porto"), k=2).passed  # past the top k
    assert not judge(SCENARIO, fact, result(gated=True), k=5).passed
    change = probe("change", answer=("Porto",), stale=("Leeds",))
    assert not judge(SCENARIO, change, result("I live in Leeds", "We moved to Porto"), k=5).passed
    assert judge(SCENARIO, change, result("We moved to Porto from Leeds", "I live in Leeds"), k=5).passed
    hop = probe("multi_hop", answer=("Porto",), also=("nurse",))
    assert not judge(SCENARIO, hop, result("We moved to Porto"), k=5).passed
    assert judge(SCENARIO, hop, result("We moved to Porto", "my sister is a nurse"), k=5).passed
    assert judge(SCENARIO, probe("unrelated"), result(gated=True), k=5).passed
    assert not judge(SCENARIO, probe("unrelated"), result("I like tea"), k=5).passed
    assert not judge(SCENARIO, probe("not_said", stale=("Tucson",)), result("move to Tucson? no way"), k=5).passed
    assert judge(SCENARIO, probe("not_said", stale=("Tucson",)), result("I like tea"), k=5).passed
