"""The event relay: carries memory events between the processes serving one store (workers, machines), through
the shared event log in Neo4j (graph/events.py), so a subscription hears every change of its user, whichever
process made it (settings.deployment.events = "shared").

Each process appends what it published to the log and reads, every poll, what the others appended for the
users its own subscribers listen to; its own events it has already delivered. A thread does both, off the
request path: a write waits for nothing, and an event reaches another process's subscribers within about two
polls. The log is kept minutes (it carries events, it is not their history) and names users by their scope
token only."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from bmam.events import EventBus, EventKind, MemoryEvent
from graph.events import EventLog, LoggedEvent
from graph.model import Scope
from graph.scope_token import scope_token

log = logging.getLogger(__name__)


def logged(event: MemoryEvent) -> LoggedEvent:
    return LoggedEvent(scope=scope_token(event.tenant, event.user_id), kind=event.kind.value,
                       memory_id=event.memory_id, at=event.at.isoformat(), detail=dict(event.detail))


class EventRelay:
    def __init__(self, bus: EventBus, events: EventLog, *, now: Callable[[], datetime], poll_s: float = 0.2,
                 keep_s: float = 600.0, page: int = 500) -> None:
        self._bus = bus
        self._log = events
        self._now = now
        self._poll_s = poll_s
        self._keep_s = keep_s
        self._page = page
        self.origin = uuid.uuid4().hex  # this process, for as long as it runs
        self._cursor: int | None = None  # the log's head as last read: what this process has seen
        self._polled_from: int | None = None  # where the last poll's range began, and the users it read for
        self._polled_scopes: set[str] = set()
        self._pruned_at = 0.0
        self._failing = False
        self._listen = True
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._appending = threading.Lock()  # one flush at a time (the thread's, stop's, forget's wait for it)

    def start(self, *, listen: bool = True) -> None:
        """Keep what is published from now on, and relay in a thread until stop(). listen=False: append only, for
        a process nobody subscribes to (the CLI, the MCP server), which then reads nothing of the log."""
        self._bus.keep_outbox()
        self._listen = listen
        if listen:
            self._safely(self.poll)  # where the log is now: what a subscriber hears starts here
        self._thread = threading.Thread(target=self._run, name="bmam-event-relay", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the thread, after appending what is still in the outbox."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10.0)
            self._thread = None
        self._safely(self.flush)

    def flush(self) -> int:
        """Append what this process published since the last flush; how many."""
        with self._appending:
            events = self._bus.take_outbox()
            if events:
                try:
                    self._log.append(self.origin, [logged(e) for e in events], now=self._now())
                except Exception:
                    self._bus.put_back(events)  # appended next time, still before anything published since
                    raise
            return len(events)

    def forget(self, scope: Scope) -> None:
        """forgetUser (an erasure hook): the user's events not appended yet are dropped, and an append under way is
        waited for, so once this returns nothing of the user's is on its way to the log (the erasure then sweeps
        the log again)."""
        with self._appending:
            events = self._bus.take_outbox()
            self._bus.put_back([e for e in events if (e.tenant, e.user_id) != (scope.tenant, scope.user_id)])

    def poll(self) -> int:
        """Deliver to this process's subscribers what the other processes appended for their users since the
        last poll; how many. The first poll only finds where the log is: nothing before it is relayed.

        A user subscribed while the last poll ran (after it took the listened users, before it read the log) had
        events of theirs passed over by that read: a user new to this poll also gets what the last poll's range
        held for them (so a subscriber may hear an event up to one poll older than the subscription, never miss
        one)."""
        if self._cursor is None:
            self._cursor = self._log.after(0, origin=self.origin, scopes=[], limit=0).head
            return 0
        listened = {scope_token(tenant, user_id): (tenant, user_id) for tenant, user_id in self._bus.listened()}
        new = [scope for scope in listened if scope not in self._polled_scopes]
        delivered = 0
        if new and self._polled_from is not None:
            delivered += self._deliver(self._polled_from, listened, new, upto=self._cursor)
        self._polled_scopes = set(listened)
        self._polled_from = self._cursor
        delivered += self._deliver(self._cursor, listened, list(listened), upto=None)
        return delivered

    def _deliver(self, after: int, listened: dict[str, tuple[str, str]], scopes: list[str], *,
                 upto: int | None) -> int:
        """Deliver the events of these scopes after seq `after`, up to seq `upto` (None: to the head, which then
        becomes the cursor); how many."""
        delivered = 0
        while True:
            page = self._log.after(after, origin=self.origin, scopes=scopes, limit=self._page)
            events = [e for e in page.events if upto is None or e.seq <= upto]
            for e in events:
                tenant, user_id = listened[e.scope]
                self._bus.deliver(MemoryEvent(kind=EventKind(e.kind), tenant=tenant, user_id=user_id,
                                              memory_id=e.memory_id, at=datetime.fromisoformat(e.at),
                                              detail=e.detail))
                delivered += 1
            if len(page.events) < self._page or len(events) < len(page.events):
                if upto is None:
                    self._cursor = page.head
                return delivered
            after = page.events[-1].seq  # a full page: read on from its last event
            if upto is None:
                self._cursor = after

    def prune(self) -> int:
        """Drop the log's events older than keep_s (what every process has long read)."""
        return self._log.prune(self._now() - timedelta(seconds=self._keep_s))

    def _run(self) -> None:
        while not self._stop.wait(self._poll_s):
            self._safely(self.flush)
            if not self._listen:
                continue
            self._safely(self.poll)
            if time.monotonic() - self._pruned_at > self._keep_s / 10:
                self._pruned_at = time.monotonic()
                self._safely(self.prune)

    def _safely(self, step: Callable[[], int]) -> None:
        # Neo4j away (a restart, a fault): the events wait in the outbox, the cursor stays; try again next poll.
        # Said once when it starts failing and once when it works again, not five times a second.
        try:
            step()
        except Exception as exc:  # the relay must outlive any one failure
            if not self._failing:
                log.warning("event relay: %s failed, retrying every poll: %s", getattr(step, "__name__", step), exc)
            self._failing = True
            return
        if self._failing:
            log.warning("event relay: working again")
            self._failing = False
