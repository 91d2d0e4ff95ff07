"""Benchmark: what the shared event log costs and how fast it carries an event (bmam/event_relay.py).

Three servers on the same Neo4j, each its own process (uvicorn, one worker): A and B relay events
(BMAM_DEPLOYMENT__EVENTS=shared, the default), L does not (local). Two figures, each beside its baseline in
the same run, rounds alternating:
- the write path: `remember` p50 / p95 through A (its events appended to the log by the relay's thread) against
  through L (no log), one client, --writes a round;
- delivery: a subscriber on B hears a memory stored through A (relayed: A's append, then B's poll) against a
  subscriber on A hearing it (the same process): ms from sending the mutation to hearing its event.
Prints the figures and the ratios; writes bench/results/event_relay.md unless --no-write.

    .venv/bin/python bench/event_relay.py
    .venv/bin/python bench/event_relay.py --rounds 2 --writes 50 --no-write
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.api_throughput import _make_key
from bench.recall_latency import free_port, pct, serve
from bmam.client import AsyncBmamClient, BmamClient, ClientConfig

RESULTS = Path(__file__).resolve().parent / "results" / "event_relay.md"


def start(events: str) -> tuple[subprocess.Popen[bytes], str]:
    """`bmam serve` in its own process with BMAM_DEPLOYMENT__EVENTS=events."""
    port = free_port()
    before = os.environ.get("BMAM_DEPLOYMENT__EVENTS")
    os.environ["BMAM_DEPLOYMENT__EVENTS"] = events
    try:
        return serve(port), f"http://127.0.0.1:{port}"
    finally:
        if before is None:
            del os.environ["BMAM_DEPLOYMENT__EVENTS"]
        else:
            os.environ["BMAM_DEPLOYMENT__EVENTS"] = before


def writes(url: str, key: str, user: str, n: int) -> list[float]:
    client = BmamClient(ClientConfig(url=url, api_key=key))
    try:
        times = []
        for i in range(n):
            started = time.perf_counter()
            client.remember(user, f"My colleague number {i} drinks oolong tea at {uuid.uuid4().hex[:6]}")
            times.append(time.perf_counter() - started)
        return times
    finally:
        client.close()


async def deliveries(write_url: str, listen_url: str, key: str, user: str, n: int) -> list[float]:
    """Seconds from sending each remember (through write_url) to its event on a subscriber of listen_url (on the
    same server the event is out before the mutation's answer)."""
    listener = AsyncBmamClient(ClientConfig(url=listen_url, api_key=key))
    writer = BmamClient(ClientConfig(url=write_url, api_key=key))
    heard: asyncio.Queue[tuple[str, float]] = asyncio.Queue()

    async def listen() -> None:  # one reader for the whole stream: a cancelled __anext__ would end it
        async for event in listener.memory_events(user):
            heard.put_nowait((event["memoryId"], time.perf_counter()))

    reading = asyncio.ensure_future(listen())
    for _ in range(200):  # until the subscription is open: a probe is heard
        await asyncio.to_thread(writer.remember, user, "probe about the weather")
        try:
            await asyncio.wait_for(heard.get(), 0.5)
            break
        except TimeoutError:
            continue
    await asyncio.sleep(1.0)
    while not heard.empty():  # the other probes
        heard.get_nowait()
    out: list[float] = []
    for i in range(n):
        sent = time.perf_counter()
        stored = await asyncio.to_thread(writer.remember, user, f"My neighbour number {i} plays the cello")
        while True:
            memory_id, at = await asyncio.wait_for(heard.get(), 10)
            if memory_id == stored["id"]:
                break
        out.append(at - sent)
    reading.cancel()
    await listener.close()
    writer.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writes", type=int, default=100)
    parser.add_argument("--deliveries", type=int, default=40)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tenant = f"bench-events-{uuid.uuid4().hex[:8]}"
    key = _make_key(tenant)
    servers = {name: start(mode) for name, mode in (("A", "shared"), ("B", "shared"), ("L", "local"))}
    url = {name: s[1] for name, s in servers.items()}
    shared_w: list[float] = []
    local_w: list[float] = []
    relayed: list[float] = []
    same: list[float] = []
    try:
        for r in range(args.rounds):
            order = [("A", shared_w), ("L", local_w)] if r % 2 == 0 else [("L", local_w), ("A", shared_w)]
            for name, into in order:
                into += writes(url[name], key, f"writer-{name}-{r}", args.writes)
            relayed += asyncio.run(deliveries(url["A"], url["B"], key, f"relayed-{r}", args.deliveries))
            same += asyncio.run(deliveries(url["A"], url["A"], key, f"same-{r}", args.deliveries))
    finally:
        for proc, _ in servers.values():
            proc.terminate()
        for proc, _ in servers.values():
            proc.wait(timeout=60)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"# Event relay ({when})",
        "",
        f"`.venv/bin/python bench/event_relay.py --rounds {args.rounds} --writes {args.writes} "
        f"--deliveries {args.deliveries}`; load {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| what | p50 ms | p95 ms | baseline p50 / p95 ms | ratio p50 / p95 |",
        "|---|---|---|---|---|",
        f"| remember through a relaying server (baseline: events local) | {pct(shared_w, 0.5):.2f} | "
        f"{pct(shared_w, 0.95):.2f} | {pct(local_w, 0.5):.2f} / {pct(local_w, 0.95):.2f} | "
        f"{pct(shared_w, 0.5) / pct(local_w, 0.5):.2f} / {pct(shared_w, 0.95) / pct(local_w, 0.95):.2f} |",
        f"| event heard on another server (baseline: on the same server) | {pct(relayed, 0.5):.1f} | "
        f"{pct(relayed, 0.95):.1f} | {pct(same, 0.5):.1f} / {pct(same, 0.95):.1f} | "
        f"{pct(relayed, 0.5) / pct(same, 0.5):.1f} / {pct(relayed, 0.95) / pct(same, 0.95):.1f} |",
        "",
        f"{len(shared_w)} + {len(local_w)} writes, {len(relayed)} + {len(same)} deliveries.",
    ]
    print("\n".join(lines))
    if not args.no_write:
        RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
