"""Ninety days of one user's life (bench/data/life_90days.json), with the maintenance a deployment runs between
sessions: what a long-term user gets back at days 30, 60 and 90.

    .venv/bin/python bench/long_life.py [--life bench/data/life_90days.json] [--log FILE] [--keep]

The life goes through the real ingest turn by turn, in the order an app sends a live chat (the user's turn, the
context prompt for it, the assistant's reply), under a fake clock: each simulated day at 03:00 the tier sweep, each
7th day REBALANCE, each 30th FULL (this user only). At each checkpoint every probe is recalled (k 5) and passes when
recall is not gated (unless it must be: stale ["*"]), each answer string is in a returned memory and no stale string
is; a checkpoint may ask only some probes or expect other answers (what was true then). Prints each probe's outcome,
the memories the sweeps deleted and the totals; --log writes the turns, the context prompts, the memories at each
checkpoint and each recall's ranking. Runs under a fresh tenant, erased at the end unless --keep.
Written from session 52's long-horizon audit; what it found and what changed is in BENCHMARKS.md "A long life".
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bmam.clock import FakeClock
from bmam.container import Container
from bmam.settings import load_settings
from bmam.usecases.recall import RecallRequest
from ingest.turns import TurnInput

LIFE = Path(__file__).resolve().parent / "data" / "life_90days.json"
USER = "mei"
ZONE = "Asia/Shanghai"


@dataclass(frozen=True)
class Probe:
    label: str
    ask: str
    answer: tuple[str, ...]
    stale: tuple[str, ...]  # ("*",): must be gated


@dataclass(frozen=True)
class Checkpoint:
    day: int
    only: frozenset[str] | None
    expect: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]  # label -> (answer, stale) as of that day


@dataclass(frozen=True)
class Life:
    start: datetime
    sessions: list[tuple[int, int, list[tuple[str, str]]]]
    probes: list[Probe]
    checkpoints: list[Checkpoint]


def read_life(path: Path) -> Life:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Life(
        start=datetime.fromisoformat(raw["start"]),
        sessions=[(s["day"], s["hour"], [(speaker, text) for speaker, text in s["turns"]]) for s in raw["sessions"]],
        probes=[Probe(p["label"], p["ask"], tuple(p["answer"]), tuple(p["stale"])) for p in raw["probes"]],
        checkpoints=[Checkpoint(cp["day"], frozenset(cp["only"]) if cp["only"] is not None else None,
                                {k: (tuple(v["answer"]), tuple(v["stale"])) for k, v in cp["expect"].items()})
                     for cp in raw["checkpoints"]],
    )


class Run:
    """One user's life in a fresh tenant: the clock, the maintenance done so far and the outcomes."""

    def __init__(self, life: Life, container: Container, clock: FakeClock, tenant: str, log: TextIO | None) -> None:
        self.life, self.c, self.clock, self.tenant, self.log = life, container, clock, tenant, log
        self.maintained = 0  # the last simulated day whose maintenance ran
        self.texts: dict[str, str] = {}
        self.deleted: list[tuple[int, str]] = []
        self.outcomes: list[tuple[int, str, bool, str]] = []  # day, label, passed, why

    def say(self, line: str) -> None:
        if self.log is not None:
            print(line, file=self.log, flush=True)

    def at(self, day: int, hour: int, minute: int = 0) -> datetime:
        return self.life.start + timedelta(days=day, hours=hour - self.life.start.hour, minutes=minute)

    def move_to(self, t: datetime) -> None:
        if t > self.clock.now():  # the life runs forward only
            self.clock.advance(t - self.clock.now())

    def maintain_until(self, day: int) -> None:
        """At 03:00 of each day after the last one done: the sweep; each 7th day REBALANCE, each 30th FULL."""
        for d in range(self.maintained + 1, day + 1):
            self.move_to(self.at(d, 3))
            for change in self.c.tiers.sweep(self.tenant, USER):
                if change.to_tier is None:
                    self.deleted.append((d, self.texts.get(change.memory_id, change.memory_id)))
            if d % 7 == 0:
                self.c.maintenance.run(self.tenant, "REBALANCE", user_id=USER)
            if d % 30 == 0:
                self.c.maintenance.run(self.tenant, "FULL", user_id=USER)
        self.maintained = max(self.maintained, day)

    def session(self, n: int, day: int, hour: int, turns: Sequence[tuple[str, str]]) -> None:
        sid = f"s{n:02d}-d{day}"
        self.say(f"\n=== session {sid}")
        for i, (speaker, text) in enumerate(turns):
            self.move_to(self.at(day, hour, i))
            r = self.c.ingest.ingest_turn(self.tenant, TurnInput(user_id=USER, session_id=sid, speaker=speaker,
                                                                 text=text))
            self.texts.update({m.id: m.text for m in r.memories})
            self.say(f"  {speaker}: {text}\n     {r.reason}: {[(m.type.value, m.tier.value) for m in r.memories]}")
            if speaker == "user":
                prompt = self.c.recall.context_prompt(self.tenant, USER, sid, text, time_zone=ZONE)
                for line in prompt.text.splitlines():
                    if line.startswith("- ["):
                        self.say(f"       ctx {line[:120]}")

    def checkpoint(self, cp: Checkpoint) -> None:
        self.maintain_until(cp.day)
        self.move_to(self.at(cp.day, 12))
        self.say(f"\n--- day {cp.day}")
        for kept in self.c.memories.page(self.tenant, USER, first=100, include_history=True).items:
            self.say(f"  {kept.tier.value:4} {kept.type.value[:4]} w={kept.weight.final:.2f} mentions="
                     f"{kept.mention_count} recalls={kept.recall_count} {'HISTORY ' if kept.valid_to else ''}"
                     f"{kept.text[:80]}")
        for p in self.life.probes:
            if cp.only is not None and p.label not in cp.only:
                continue
            answer, stale = cp.expect.get(p.label, (p.answer, p.stale))
            # rehearsed: a probe is a question asked of the memory as it stands, not a use of it
            r = self.c.recall.rehearse(self.tenant, RecallRequest(user_id=USER, query=p.ask, k=5, time_zone=ZONE))
            got = [m.memory.text for m in r.memories]
            if stale == ("*",):
                passed, why = not got, f"not gated: {got[0][:50]!r}" if got else ""
            else:
                missing = [a for a in answer if not any(a in t for t in got)]
                wrong = [s for s in stale if any(s in t for t in got)]
                passed = not missing and not wrong and not r.gated
                why = "gated" if r.gated else f"missing {missing}" if missing else f"stale {wrong}" if wrong else ""
            self.outcomes.append((cp.day, p.label, passed, why))
            self.say(f"{'OK  ' if passed else 'FAIL'} d{cp.day} {p.label}: {p.ask} {why}")
            for m in r.memories:
                self.say(f"       {m.memory.tier.value:4} {m.scores.final:.3f} {m.memory.text[:70]}")

    def live(self) -> None:
        pending = sorted(self.life.checkpoints, key=lambda cp: cp.day)
        for n, (day, hour, turns) in enumerate(self.life.sessions):
            while pending and pending[0].day < day:
                self.checkpoint(pending.pop(0))
            self.maintain_until(day)
            self.session(n, day, hour, turns)
        for cp in pending:
            self.checkpoint(cp)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--life", type=Path, default=LIFE)
    parser.add_argument("--log", type=Path, default=None, help="the turns, prompts, memories and rankings")
    parser.add_argument("--keep", action="store_true", help="keep the tenant (default: erased at the end)")
    args = parser.parse_args(argv)
    life = read_life(args.life)
    base = load_settings()
    settings = base.model_copy(update={"api": base.api.model_copy(update={"warm_up_plans": False}),
                                       "deployment": base.deployment.model_copy(update={"events": "local"})})
    clock = FakeClock(life.start)
    container = Container(settings, clock=clock)
    tenant = f"bench-life-{uuid.uuid4().hex[:8]}"
    log = args.log.open("w", encoding="utf-8") if args.log else None
    run = Run(life, container, clock, tenant, log)
    try:
        run.live()
    finally:
        if log is not None:
            log.close()
        if not args.keep:
            container.erasure.forget_user(tenant, USER, confirm=True)
        container.close()
    for day, label, passed, why in run.outcomes:
        print(f"{'OK  ' if passed else 'FAIL'} day {day:2d} {label}{': ' + why if why else ''}")
    print("deleted by the sweeps:")
    for day, text in run.deleted:
        print(f"  day {day:2d} {text[:90]}")
    passes = sum(1 for o in run.outcomes if o[2])
    print(f"{passes} of {len(run.outcomes)} probes passed; {len(run.deleted)} memories deleted by the sweeps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
