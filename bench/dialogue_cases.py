"""End to end on hand-written conversations (bench/data/dialogues_*.jsonl, format in bench/data/README.md): each
scenario's sessions go through the ingest turn by turn, as an app would send them (the ingest decides what is
remembered, what it says about the user, what it supersedes), then each probe is the user's next input, recalled.

    .venv/bin/python bench/dialogue_cases.py [--cases bench/data/dialogues_blind1.jsonl] [-k 5]
                                             [--only b001,b007] [--show-memories] [--keep] [--out F]

A probe passes when (by its kind):
- fact, preference, episode, procedure, third_party: recall is not gated and a memory holding one of the probe's
  answer strings is among the first k;
- change: as above, and no memory holding only the old state (stale) ranks above the first answer;
- multi_hop: an answer and an `also` memory both among the first k;
- unrelated: gated (nothing returned);
- not_said: no returned memory holds a stale (tempting) string.
"first" counts the answers ranked first. Recalls are rehearsals (rolled back): every probe sees the graph as
the conversations left it, whatever the order. Runs under a fresh tenant with a fake clock, erased afterwards.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import load_settings
from bmam.usecases.recall import RecallRequest, RecallResult
from ingest.turns import TurnInput

DEFAULT_CASES = Path(__file__).resolve().parent / "data" / "dialogues_blind1.jsonl"
NOW = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)  # when the probes are asked
KINDS = ("fact", "preference", "change", "episode", "procedure", "third_party", "multi_hop", "unrelated", "not_said")
ANSWERED = {"fact", "preference", "change", "episode", "procedure", "third_party", "multi_hop"}


@dataclass(frozen=True)
class Probe:
    ask: str
    kind: str
    answer: tuple[str, ...]
    also: tuple[str, ...]
    stale: tuple[str, ...]
    note: str


@dataclass(frozen=True)
class Scenario:
    id: str
    lang: str
    sessions: list[tuple[int, list[tuple[str, str]]]]  # (days_ago, [(speaker, text)])
    probes: list[Probe]
    held_out: bool = False  # the scenario says "split": "check": never tuned on, whatever its hash

    @property
    def split(self) -> str:
        """Half the scenarios tune, half check (fixed by the id's hash): only the tune half's failures are
        printed unless asked, so a change is judged on scenarios nobody read the failures of."""
        if self.held_out:
            return "check"
        return "tune" if int(hashlib.sha256(self.id.encode()).hexdigest(), 16) % 2 == 0 else "check"


@dataclass
class Outcome:
    scenario: Scenario
    probe: Probe
    passed: bool
    first: bool
    why: str
    top: list[tuple[str, float, str]] = field(default_factory=list)  # (text, final score, why)
    best_similarity: float | None = None  # the recall's best cosine (its gate's figure)


def read_cases(path: Path) -> list[Scenario]:
    """The scenarios of a JSONL file; a malformed line stops the run with its line number."""
    scenarios = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw: dict[str, Any] = json.loads(line)
            probes = [Probe(ask=p["ask"], kind=p["kind"], answer=tuple(p.get("answer", ())),
                            also=tuple(p.get("also", ())), stale=tuple(p.get("stale", ())), note=p.get("note", ""))
                      for p in raw["probes"]]
            sessions = [(int(s["days_ago"]), [(t["speaker"], t["text"]) for t in s["turns"]]) for s in raw["sessions"]]
            if raw.get("split", "check") != "check":
                raise ValueError(f"split {raw['split']!r}: only \"check\" may be fixed")
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path}:{n}: not a scenario ({exc!r})") from exc
        for p in probes:
            if p.kind not in KINDS:
                raise SystemExit(f"{path}:{n}: unknown probe kind {p.kind!r}")
        scenarios.append(Scenario(id=raw["id"], lang=raw["lang"], sessions=sessions, probes=probes,
                                  held_out="split" in raw))
    return scenarios


def ingest(container: Container, clock: FakeClock, tenant: str, scenarios: Sequence[Scenario]) -> Counter[str]:
    """Every turn of every scenario in time order (users interleaved, as a live service sees them), the clock at
    the turn's time: each session's turns a minute apart, ending an hour before its day's NOW. Returns the turns
    refused by scenario."""
    said: list[tuple[datetime, str, str, str, str]] = []  # (at, user, session, speaker, text)
    for s in scenarios:
        for number, (days_ago, turns) in enumerate(s.sessions):
            start = NOW - timedelta(days=days_ago, hours=1, minutes=len(turns))
            said += [(start + timedelta(minutes=i), s.id, f"{s.id}-s{number}", speaker, text)
                     for i, (speaker, text) in enumerate(turns)]
    refused = Counter[str]()
    for at, user, session, speaker, text in sorted(said, key=lambda t: t[0]):
        clock.advance(max(timedelta(0), at - clock.now()))
        result = container.ingest.ingest_turn(tenant, TurnInput(user_id=user, session_id=session, speaker=speaker,
                                                                text=text))
        refused[user] += bool(result.errors)
    return refused


def holds(text: str, needles: Sequence[str]) -> bool:
    low = text.lower()
    return any(n.lower() in low for n in needles)


def judge(s: Scenario, p: Probe, result: RecallResult, k: int) -> Outcome:
    outcome = _judged(s, p, result, k)
    outcome.best_similarity = result.best_similarity
    return outcome


def _judged(s: Scenario, p: Probe, result: RecallResult, k: int) -> Outcome:
    texts = [m.memory.text for m in result.memories[:k]]
    top = [(m.memory.text, m.scores.final, m.why) for m in result.memories[:k]]
    if p.kind == "unrelated":
        ok = result.gated or not result.memories
        return Outcome(s, p, ok, ok, "" if ok else "not gated", top)
    if p.kind == "not_said":
        wrong = [t for t in texts if holds(t, p.stale)]
        return Outcome(s, p, not wrong, not wrong, f"returned {wrong[0]!r}" if wrong else "", top)
    if result.gated:
        return Outcome(s, p, False, False, f"gated: {result.reason}", top)
    answers = [i for i, t in enumerate(texts) if holds(t, p.answer)]
    if not answers:
        return Outcome(s, p, False, False, "no answer in the top k", top)
    first = answers[0]
    if p.kind == "multi_hop" and not any(holds(t, p.also) for t in texts):
        return Outcome(s, p, False, False, "the second memory is missing", top)
    if p.kind == "change" and p.stale:
        before = [t for t in texts[:first] if holds(t, p.stale)]
        if before:
            return Outcome(s, p, False, False, f"stale first: {before[0]!r}", top)
    return Outcome(s, p, True, first == 0, "", top)


def _table(outcomes: Sequence[Outcome]) -> list[str]:
    lines = ["| kind | probes | passed | share | answer first |", "|---|---|---|---|---|"]
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_kind[o.probe.kind].append(o)
    for kind in (*KINDS, "all"):
        group = list(outcomes) if kind == "all" else by_kind.get(kind, [])
        if group:
            passed = sum(o.passed for o in group)
            first = sum(o.first for o in group)
            lines.append(f"| {kind} | {len(group)} | {passed} | {passed / len(group):.3f} | {first} |")
    return lines


def report(outcomes: Sequence[Outcome], stored: dict[str, int], user_turns: dict[str, int], seconds: float,
           k: int, *, all_failures: bool) -> str:
    lines = [f"{len({o.scenario.id for o in outcomes})} scenarios, {len(outcomes)} probes, top {k}; "
             f"{sum(stored.values())} memories kept of {sum(user_turns.values())} user turns; {seconds:.0f} s"]
    for split in ("tune", "check"):
        group = [o for o in outcomes if o.scenario.split == split]
        if group:
            lines += ["", f"The {split} half ({len({o.scenario.id for o in group})} scenarios):", "", *_table(group)]
    lines += ["", "| language | split | probes | passed | share |", "|---|---|---|---|---|"]
    by_lang: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_lang[(o.scenario.lang, o.scenario.split)].append(o)
    for (lang, split), group in sorted(by_lang.items()):
        passed = sum(o.passed for o in group)
        lines.append(f"| {lang} | {split} | {len(group)} | {passed} | {passed / len(group):.3f} |")
    shown = [o for o in outcomes if not o.passed and (all_failures or o.scenario.split == "tune")]
    lines += ["", f"Failures{'' if all_failures else ' (the tune half)'}:"]
    for o in shown:
        lines.append(f"- {o.scenario.id} [{o.probe.kind}] {o.probe.ask!r}: {o.why}"
                     f" (answer {list(o.probe.answer)}{', also ' + str(list(o.probe.also)) if o.probe.also else ''}"
                     f"{', stale ' + str(list(o.probe.stale)) if o.probe.stale else ''})")
        for text, score, why in o.top[:3]:
            lines.append(f"    - {score:.3f} {text[:110]!r} ({why[:80]})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated scenario ids")
    parser.add_argument("--show-memories", action="store_true", help="print what each scenario's ingest kept")
    parser.add_argument("--all-failures", action="store_true", help="print the check half's failures too")
    parser.add_argument("--keep", action="store_true", help="keep the tenant (default: erase it)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--dump", type=Path, default=None, help="one JSON line a probe (split, kind, outcome)")
    args = parser.parse_args(argv)

    scenarios = read_cases(args.cases)
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s.id in wanted]
    earliest = max((d for s in scenarios for d, _ in s.sessions), default=0)
    clock = FakeClock(NOW - timedelta(days=earliest + 1))
    container = Container(load_settings(), clock=clock)
    container.migrate()
    tenant = f"dialogues-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    stored: dict[str, int] = {}
    user_turns: dict[str, int] = {}
    try:
        refused = ingest(container, clock, tenant, scenarios)
        clock.advance(NOW - clock.now())
        for s in scenarios:
            kept = container.memories.page(tenant, s.id, first=100, include_history=True).items
            stored[s.id] = len(kept)
            user_turns[s.id] = sum(1 for _, turns in s.sessions for speaker, _ in turns if speaker == "user")
            if args.show_memories and (args.all_failures or s.split == "tune"):
                print(f"## {s.id} ({stored[s.id]} kept of {user_turns[s.id]} user turns)")
                for m in kept:
                    print(f"   [{m.type.value} {m.tier.value}{' superseded' if m.valid_to else ''}] {m.text}")
            for p in s.probes:
                result = container.recall.rehearse(tenant, RecallRequest(user_id=s.id, query=p.ask, k=args.k))
                outcomes.append(judge(s, p, result, args.k))
        text = report(outcomes, stored, user_turns, time.perf_counter() - started, args.k,
                      all_failures=args.all_failures)
        if any(refused.values()):
            text += f"\n\nTurns refused by the ingest: {dict((i, n) for i, n in refused.items() if n)}"
        print(text)
        if args.out:
            args.out.write_text(text + "\n", encoding="utf-8")
        if args.dump:
            args.dump.write_text("".join(json.dumps({
                "id": o.scenario.id, "split": o.scenario.split, "lang": o.scenario.lang, "kind": o.probe.kind,
                "ask": o.probe.ask, "passed": o.passed, "first": o.first, "why": o.why,
                "best_similarity": o.best_similarity, "top": [t for t, _, _ in o.top]},  # the texts recalled
                ensure_ascii=False) + "\n" for o in outcomes), encoding="utf-8")
    finally:
        if not args.keep:
            for s in scenarios:
                container.erasure.forget_user(tenant, s.id, confirm=True)
        else:
            print(f"kept tenant {tenant}")
        container.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
