"""forgetUser: erase every node, edge, embedding and episode of one user inside one tenant, and hand
back a receipt whose counts come from the deletions and whose proof is a re-query after the last of them."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from graph.erasure import ErasureRepository
from graph.errors import BadInput
from graph.model import ErasureReceipt, Scope

log = logging.getLogger(__name__)


class ErasureHook(Protocol):
    """Something outside Neo4j that holds per-user state (a cache, a session buffer): told to drop it."""

    def __call__(self, scope: Scope) -> None: ...


class ErasureUseCases:
    def __init__(self, *, repository: ErasureRepository, clock: Clock, hooks: Sequence[ErasureHook] = (),
                 events: EventBus | None = None) -> None:
        self._repo = repository
        self._clock = clock
        self._hooks = list(hooks)
        self._events = events

    def add_hook(self, hook: ErasureHook) -> None:
        self._hooks.append(hook)

    def forget_user(self, tenant: str, user_id: str, *, confirm: bool) -> ErasureReceipt:
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        if confirm is not True:
            raise BadInput("forgetUser erases everything of this user; pass confirm: true", field="confirm")
        tally = self._repo.erase(scope)
        for hook in self._hooks:  # caches outside Neo4j: nothing they drop is in the proof
            hook(scope)
        # The shared event log, last: the event relay's hook dropped the user's events not appended yet and waited
        # for an append under way, so what it logged of the user goes too.
        self._repo.forget_events(scope, tally)
        remaining_nodes, remaining_relationships = tally.remaining  # re-queried after the last deletion
        receipt = ErasureReceipt(
            tenant=scope.tenant,
            user_id=scope.user_id,
            nodes_removed=tally.nodes,
            relationships_removed=tally.relationships,
            nodes_by_label=dict(sorted(tally.labels.items())),
            relationships_by_type=dict(sorted(tally.types.items())),
            remaining_nodes=remaining_nodes,
            remaining_relationships=remaining_relationships,
            at=self._clock.now(),
        )
        if self._events is not None:  # after the proof: what subscribers are told is gone, is
            self._events.publish(MemoryEvent.forgotten(scope, memories=tally.labels.get("Memory", 0), at=receipt.at))
        log.info("erased user (tenant %s): %d nodes, %d relationships, verified=%s", scope.tenant,
                 tally.nodes, tally.relationships, receipt.verified)
        return receipt

    def tenant_user_nodes(self, tenant: str) -> int:
        return self._repo.tenant_user_nodes(tenant)
