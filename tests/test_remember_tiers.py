"""remember straight into a tier keeps the tier capacities (DESIGN.md "Tiers"), against the real Neo4j: a full
core refuses (CONFLICT, nothing written), a full temp or mid gives way by its least useful (never the memory
just remembered), and the GraphQL face answers CONFLICT."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.events import EventKind, MemoryEvent
from bmam.settings import Settings
from bmam.usecases.memories import RememberRequest
from graph.errors import Conflict
from graph.model import PresetKind, Tier
from tests.test_ingest_pipeline import T0, make_container


def remember(c: Container, tenant: str, text: str, tier: Tier = Tier.TEMP, **kw: Any) -> str:
    return c.memories.remember(tenant, RememberRequest(user_id="alice", text=text, type="FACTUAL", tier=tier,
                                                       **kw)).id


def tiers_of(c: Container, tenant: str) -> dict[str, Tier]:
    return {m.id: m.tier for m in c.memories.page(tenant, "alice", first=100).items}


def test_a_full_core_refuses_remember_and_writes_nothing(settings: Settings, tenant: str) -> None:
    c = make_container(settings, FakeClock(T0), core_capacity=2)
    try:
        kept = [remember(c, tenant, f"core fact number {i}", Tier.CORE) for i in range(2)]
        with pytest.raises(Conflict, match="core is full"):
            remember(c, tenant, "one core fact too many", Tier.CORE)
        assert tiers_of(c, tenant) == {mid: Tier.CORE for mid in kept}
        assert c.tiers.usage(tenant, "alice").counts[Tier.CORE] == 2
    finally:
        c.close()


def test_a_full_temp_gives_way_by_its_least_useful(settings: Settings, tenant: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(T0)
    c = make_container(settings, clock, temp_capacity=2)
    seen: list[MemoryEvent] = []
    monkeypatch.setattr(c.events, "publish", seen.append)
    try:
        first = remember(c, tenant, "My sister lives in Berlin")
        clock.advance(timedelta(minutes=1))
        second = remember(c, tenant, "I play the piano every day")
        clock.advance(timedelta(minutes=1))
        # the least useful by weight: a temporary preset, yet the memory just remembered is never the one to go
        third = remember(c, tenant, "It rains today", preset_kind=PresetKind.TEMPORARY)
        assert tiers_of(c, tenant) == {second: Tier.TEMP, third: Tier.TEMP}
        assert [e.memory_id for e in seen if e.kind is EventKind.EVICTED] == [first]
    finally:
        c.close()


def test_a_full_mid_demotes_its_least_useful_to_temp(settings: Settings, tenant: str) -> None:
    clock = FakeClock(T0)
    c = make_container(settings, clock, mid_capacity=1)
    try:
        older = remember(c, tenant, "My sister lives in Berlin", Tier.MID)
        clock.advance(timedelta(minutes=1))
        newer = remember(c, tenant, "I play the piano every day", Tier.MID)
        assert tiers_of(c, tenant) == {older: Tier.TEMP, newer: Tier.MID}
    finally:
        c.close()


def test_graphql_remember_into_a_full_core_is_a_conflict(client: BmamClient, container: Container) -> None:
    user = "core-full"
    for i in range(container.settings.tiers.core_capacity):
        client.remember(user, f"core fact number {i}", tier="CORE")
    with pytest.raises(BmamClientError) as refused:
        client.remember(user, "one core fact too many", tier="CORE")
    assert refused.value.code == "CONFLICT" and "core is full" in refused.value.message
    stored = [e["node"] for e in client.memories(user, first=100)["edges"]]
    assert len(stored) == container.settings.tiers.core_capacity and {m["tier"] for m in stored} == {"CORE"}
