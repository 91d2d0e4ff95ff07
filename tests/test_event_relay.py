"""The shared event log and the relay (graph/events.py, bmam/event_relay.py) against the real Neo4j: two relays in
one test stand for two processes serving one store, each with its own event bus and origin; the relays are
driven step by step (flush, poll) instead of by their threads, so every step's effect is checked.
Over HTTP with 2 real workers: tests/test_workers.py."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bmam.container import Container
from bmam.event_relay import EventRelay
from bmam.events import EventBus, EventKind, MemoryEvent
from bmam.usecases.memories import RememberRequest
from graph.events import EventLog, LoggedEvent
from graph.scope_token import scope_token
from tests.ops_support import unsubscribe

AT = datetime(2026, 12, 4, 9, 30, tzinfo=UTC)


def event(tenant: str, user_id: str, memory_id: str, kind: EventKind = EventKind.CREATED) -> MemoryEvent:
    return MemoryEvent(kind=kind, tenant=tenant, user_id=user_id, memory_id=memory_id, at=AT,
                       detail={"tier": "temp", "type": "FACTUAL"})


def relay(container: Container, bus: EventBus) -> EventRelay:
    made = EventRelay(bus, EventLog(container.store), now=lambda: datetime.now(UTC))
    bus.keep_outbox()
    made.poll()  # as start() does: where the log is now
    return made


async def next_event(stream: AsyncIterator[MemoryEvent], within_s: float = 5.0) -> MemoryEvent:
    return await asyncio.wait_for(stream.__anext__(), within_s)


def test_the_log_numbers_appends_in_commit_order_and_reads_one_scope_of_the_others(container: Container,
                                                                                   tenant: str) -> None:
    log = EventLog(container.store)
    alice, bob = scope_token(tenant, "alice"), scope_token(tenant, "bob")
    start = log.after(0, origin="reader", scopes=[], limit=10).head
    first = log.append("a", [LoggedEvent(alice, "CREATED", "m1", AT.isoformat(), {"tier": "temp"}),
                             LoggedEvent(bob, "CREATED", "m2", AT.isoformat())], now=datetime.now(UTC))
    second = log.append("b", [LoggedEvent(alice, "DELETED", "m1", AT.isoformat())], now=datetime.now(UTC))
    assert first >= start + 2 and second >= first + 1  # other tests' relays may append in between
    page = log.after(start, origin="reader", scopes=[alice], limit=10)
    assert page.head >= second
    assert [(e.kind, e.memory_id, e.detail) for e in page.events] == [
        ("CREATED", "m1", {"tier": "temp"}), ("DELETED", "m1", {})]
    assert [e.seq for e in page.events] == sorted(e.seq for e in page.events)
    # a process does not read back what it appended itself; a page stops at its limit
    assert [e.memory_id for e in log.after(start, origin="a", scopes=[alice, bob], limit=10).events] == ["m1"]
    assert len(log.after(start, origin="reader", scopes=[alice, bob], limit=2).events) == 2
    assert log.append("a", [], now=datetime.now(UTC)) == 0


def test_a_subscriber_hears_a_change_another_process_published_once_and_in_order(container: Container,
                                                                                 tenant: str) -> None:
    bus_a, bus_b = EventBus(), EventBus()
    relay_a, relay_b = relay(container, bus_a), relay(container, bus_b)

    async def run() -> tuple[list[MemoryEvent], list[MemoryEvent]]:
        heard_b = bus_b.subscribe(tenant, "alice")
        heard_a = bus_a.subscribe(tenant, "alice")
        waiting_b, waiting_a = asyncio.ensure_future(next_event(heard_b)), asyncio.ensure_future(next_event(heard_a))
        await asyncio.sleep(0.05)  # both subscriptions registered
        bus_a.publish(event(tenant, "alice", "m1"))
        bus_a.publish(event(tenant, "bob", "m9"))  # nobody in b listens to bob
        bus_a.publish(event(tenant, "alice", "m1", EventKind.PROMOTED))
        assert await asyncio.to_thread(relay_a.flush) == 3
        assert await asyncio.to_thread(relay_b.poll) == 2
        assert await asyncio.to_thread(relay_a.poll) == 0  # its own events: delivered when published
        in_b = [await waiting_b, await next_event(heard_b)]
        in_a = [await waiting_a, await next_event(heard_a)]
        late_b = asyncio.ensure_future(next_event(heard_b, within_s=0.3))
        with pytest.raises(asyncio.TimeoutError):  # nothing more: no duplicate, no other user
            await late_b
        await unsubscribe(heard_a)
        return in_a, in_b

    in_a, in_b = asyncio.run(run())
    for heard in (in_a, in_b):
        assert [(e.kind, e.tenant, e.user_id, e.memory_id, e.at, e.detail) for e in heard] == [
            (EventKind.CREATED, tenant, "alice", "m1", AT, {"tier": "temp", "type": "FACTUAL"}),
            (EventKind.PROMOTED, tenant, "alice", "m1", AT, {"tier": "temp", "type": "FACTUAL"})]


def test_a_subscription_made_while_a_poll_runs_misses_nothing(container: Container, tenant: str) -> None:
    """A poll takes the listened users, then reads the log to its head: a user who subscribes in between, and
    whose event another process appends in between, is not in that read, and the cursor passes the event. The
    next poll reads the passed range again for the users new to it (the race seen with 2 workers under load)."""
    bus_a, bus_b = EventBus(), EventBus()
    relay_a, relay_b = relay(container, bus_a), relay(container, bus_b)
    relay_b.poll()  # a first full poll: nobody listens in b yet
    listened = bus_b.listened

    async def run() -> tuple[list[int], list[MemoryEvent]]:
        heard = bus_b.subscribe(tenant, "alice")
        waiting = asyncio.ensure_future(next_event(heard))
        await asyncio.sleep(0.05)  # registered
        bus_b.listened = lambda: []  # type: ignore[method-assign]  # the poll took its users just before
        bus_a.publish(event(tenant, "alice", "m-between"))
        await asyncio.to_thread(relay_a.flush)
        counts = [await asyncio.to_thread(relay_b.poll)]  # reads past m-between for nobody
        bus_b.listened = listened  # type: ignore[method-assign]
        counts.append(await asyncio.to_thread(relay_b.poll))
        counts.append(await asyncio.to_thread(relay_b.poll))  # once only
        got = [await waiting]
        with pytest.raises(asyncio.TimeoutError):
            await next_event(heard, within_s=0.3)
        return counts, got

    counts, got = asyncio.run(run())
    assert counts == [0, 1, 0]
    assert [e.memory_id for e in got] == ["m-between"]


def test_events_before_a_process_started_are_not_replayed_to_it(container: Container, tenant: str) -> None:
    bus_a = EventBus()
    relay_a = relay(container, bus_a)
    bus_a.publish(event(tenant, "alice", "m-old"))
    relay_a.flush()
    bus_b = EventBus()
    relay_b = relay(container, bus_b)

    async def run() -> int:
        heard = bus_b.subscribe(tenant, "alice")
        waiting = asyncio.ensure_future(next_event(heard, within_s=0.3))
        await asyncio.sleep(0.05)
        delivered = await asyncio.to_thread(relay_b.poll)
        with pytest.raises(asyncio.TimeoutError):
            await waiting
        return delivered

    assert asyncio.run(run()) == 0


def test_prune_drops_what_was_logged_before_the_keep_time_and_nothing_newer(container: Container,
                                                                           tenant: str) -> None:
    log = EventLog(container.store)
    scope = scope_token(tenant, "alice")
    now = datetime.now(UTC)
    start = log.after(0, origin="reader", scopes=[], limit=1).head
    log.append("a", [LoggedEvent(scope, "CREATED", "m-old", AT.isoformat())], now=now - timedelta(hours=2))
    log.append("a", [LoggedEvent(scope, "CREATED", "m-new", AT.isoformat())], now=now)
    assert log.prune(now - timedelta(hours=1)) >= 1
    assert [e.memory_id for e in log.after(start, origin="reader", scopes=[scope], limit=10).events] == ["m-new"]


def test_forget_user_drops_the_users_events_from_the_log(container: Container, tenant: str) -> None:
    user = f"erased-{uuid.uuid4().hex[:6]}"
    log = EventLog(container.store)
    scope = scope_token(tenant, user)
    start = log.after(0, origin="reader", scopes=[], limit=1).head
    log.append("a", [LoggedEvent(scope, "CREATED", "m1", AT.isoformat()),
                     LoggedEvent(scope, "DELETED", "m1", AT.isoformat())], now=datetime.now(UTC))
    container.memories.remember(tenant, RememberRequest(user_id=user, text="My sister lives in Berlin", type="FACTUAL"))
    receipt = container.erasure.forget_user(tenant, user, confirm=True)
    assert receipt.nodes_by_label.get("MemoryEvent") == 2 and receipt.verified
    # what may follow is the erasure's own FORGOTTEN (a count, no memory id), relayed if a server runs here
    left = log.after(start, origin="reader", scopes=[scope], limit=10).events
    assert [(e.kind, e.memory_id) for e in left if e.kind != "FORGOTTEN"] == []
    # the erasure's FORGOTTEN, as a server's relay logs it: no data of the user's, so an erasure again finds
    # nothing to remove (it removed that event and answered "1 node removed", on every call after the first)
    log.append("a", [LoggedEvent(scope, "FORGOTTEN", "", AT.isoformat(), {"memories": "1"})], now=datetime.now(UTC))
    again = container.erasure.forget_user(tenant, user, confirm=True)
    assert again.nodes_removed == 0 and again.verified
    assert [e.kind for e in log.after(start, origin="reader", scopes=[scope], limit=10).events][-1:] == ["FORGOTTEN"]


def test_events_a_failed_append_could_not_log_go_with_the_next_flush(container: Container, tenant: str) -> None:
    """Neo4j away: nothing published is lost, and the order is kept. The relay's log first points at a port where
    no Neo4j listens (the real driver failing), then at the real one."""
    away = container.settings.model_copy(update={"neo4j": container.settings.neo4j.model_copy(
        update={"uri": "bolt://127.0.0.1:9", "retry_time_s": 0.2})})
    down = Container(away)
    bus = EventBus()
    bus.keep_outbox()
    relay_down = EventRelay(bus, EventLog(down.store), now=lambda: datetime.now(UTC))
    start = EventLog(container.store).after(0, origin="reader", scopes=[], limit=1).head
    bus.publish(event(tenant, "alice", "m1"))
    with pytest.raises(Exception):  # noqa: B017 - whatever the driver raises: the point is what is kept
        relay_down.flush()
    down.close()
    bus.publish(event(tenant, "alice", "m2"))
    relay_up = EventRelay(bus, EventLog(container.store), now=lambda: datetime.now(UTC))
    assert relay_up.flush() == 2
    logged = EventLog(container.store).after(start, origin="reader", scopes=[scope_token(tenant, "alice")], limit=10)
    assert [e.memory_id for e in logged.events] == ["m1", "m2"]


def test_forget_user_drops_the_events_the_relay_has_not_logged_yet(container: Container, tenant: str) -> None:
    """A serving process's relay appends what was published at its next poll: events of a user published just
    before forgetUser (remember, then erase at once) are dropped from its outbox, not logged after the sweep
    (they were, with a receipt saying verified). The relay's thread polls every minute here, so the outbox is
    what stop() appends."""
    shared = container.settings.model_copy(update={"deployment": container.settings.deployment.model_copy(
        update={"events": "shared", "event_poll_s": 60.0})})
    serving = Container(shared)
    user = f"erased-{uuid.uuid4().hex[:6]}"
    scope = scope_token(tenant, user)
    log = EventLog(container.store)
    start = log.after(0, origin="reader", scopes=[], limit=1).head
    try:
        relay_ = serving.start_event_relay(listen=False)
        assert relay_ is not None
        serving.memories.remember(tenant, RememberRequest(user_id=user, text="My sister lives in Berlin",
                                                          type="FACTUAL"))
        receipt = serving.erasure.forget_user(tenant, user, confirm=True)
        assert receipt.verified
        relay_.stop()  # appends what is left in the outbox: the erasure's FORGOTTEN
        logged = [e.kind for e in log.after(start, origin="reader", scopes=[scope], limit=10).events]
        assert logged == ["FORGOTTEN"], logged
    finally:
        serving.close()
