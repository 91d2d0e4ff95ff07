"""forgetUser: erase every node, edge, embedding and episode of one user inside one tenant, and hand
back a receipt whose counts come from the deletions and whose proof is a re-query after the last of them.
forgetTenant: the same for every user of a tenant (an app leaving the service), each through forgetUser's path,
and the tenant's nodes of no user; its receipt's proof re-queries the whole tenant."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, MemoryEvent
from bmam.usecases.keys import Principal, require_admin
from graph.erasure import ErasureRepository, ErasureTally
from graph.errors import BadInput, NotFound
from graph.model import ErasureReceipt, Scope

log = logging.getLogger(__name__)

USERS_PAGE = 500  # a tenant's users erased per page read (each page of the label-free pass scans the store once)


@dataclass(frozen=True, slots=True)
class TenantErasureReceipt:
    """What forgetTenant removed of one tenant, and the re-query proving nothing of it is left (its API keys are
    counted, and deleted, only by an erasure that deletes them: keys_deleted)."""

    tenant: str
    users_erased: int
    nodes_removed: int
    relationships_removed: int
    nodes_by_label: dict[str, int]
    relationships_by_type: dict[str, int]
    keys_deleted: int
    remaining_nodes: int
    remaining_relationships: int
    at: datetime

    @property
    def verified(self) -> bool:
        return self.remaining_nodes == 0 and self.remaining_relationships == 0


def _confirmed(confirm: bool) -> None:
    if confirm is not True:
        raise BadInput("forgetTenant erases everything every user of this app stored; pass confirm: true",
                       field="confirm")


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
        tally, at = self._erase_user(scope, prove=True)
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
            at=at,
        )
        log.info("erased user (tenant %s): %d nodes, %d relationships, verified=%s", scope.tenant,
                 tally.nodes, tally.relationships, receipt.verified)
        return receipt

    def _erase_user(self, scope: Scope, *, prove: bool) -> tuple[ErasureTally, datetime]:
        """forgetUser's path for one user, forgetTenant's for each of its users: the store, every hook, the shared
        event log, then FORGOTTEN to the subscribers. The tally and when the erasure ended."""
        tally = self._repo.erase(scope, prove=prove)
        for hook in self._hooks:  # caches outside Neo4j: nothing they drop is in the proof
            hook(scope)
        # The shared event log, last: the event relay's hook dropped the user's events not appended yet and waited
        # for an append under way, so what it logged of the user goes too.
        self._repo.forget_events(scope, tally)
        at = self._clock.now()
        # after forgetUser's proof: what subscribers are told is gone, is (forgetTenant proves after its last user)
        if self._events is not None:
            self._events.publish(MemoryEvent.forgotten(scope, memories=tally.labels.get("Memory", 0), at=at))
        return tally, at

    # ----- forgetTenant: an app leaving the service -----------------------------------------------------------

    def forget_tenant(self, tenant: str, *, confirm: bool, delete_keys: bool = False) -> TenantErasureReceipt:
        """The operator's erasure of a whole tenant (`bmam forget-tenant`): every user of it and its nodes of no
        user; its API keys too when delete_keys (then nothing of the tenant is left), else they stay and still
        work. NOT_FOUND when nothing of the tenant is stored (a tenant mistyped, or one erased whole already)."""
        tenant = validate.identifier(tenant, field="tenant")
        _confirmed(confirm)
        if not self._repo.tenant_known(tenant):
            raise NotFound(f"tenant {tenant!r} has nothing stored (no data, no API keys)")
        return self._erase_tenant(tenant, delete_keys=delete_keys)

    def forget_tenant_by(self, caller: Principal, tenant: str, *, confirm: bool) -> TenantErasureReceipt:
        """forgetTenant through the API: an admin key erases every user of its own app and the app's nodes of no
        user, with confirm: true and the app's tenant typed back exactly. The app's keys stay (it still exists)."""
        require_admin(caller, "erase the app's data")
        _confirmed(confirm)
        if tenant != caller.tenant:
            raise BadInput("tenant: type this app's tenant back exactly to confirm (viewer { tenant } tells it); "
                           "nothing was erased", field="tenant")
        return self._erase_tenant(caller.tenant, delete_keys=False)

    def _erase_tenant(self, tenant: str, *, delete_keys: bool) -> TenantErasureReceipt:
        """Each user with a User node through forgetUser's path (hooks, event log, FORGOTTEN), without a proof per
        user; the tenant's nodes of no user; its keys when delete_keys; then one re-query of the whole tenant. Only
        when that finds something (a user with data but no User node, a label a deployment added, a write racing
        the erasure) do the label-free sweeps run: every user any node or relationship of the tenant names, through
        the same path, then whatever is still stamped with the tenant; and the re-query again. Each step deletes in
        batches of their own transactions and finds only what is left, so an erasure stopped midway is finished by
        running it again."""
        tally = ErasureTally()
        users: set[str] = set()
        self._erase_users(tenant, tally, users, any_label=False)
        self._repo.erase_tenant_nodes(tenant, tally, any_label=False, keys=delete_keys)
        keys_deleted = self._repo.delete_tenant_keys(tenant, tally) if delete_keys else 0
        remaining = self._repo.tenant_remaining(tenant, keys=delete_keys)
        if remaining != (0, 0):
            self._erase_users(tenant, tally, users, any_label=True)
            self._repo.erase_tenant_nodes(tenant, tally, any_label=True, keys=delete_keys)
            remaining = self._repo.tenant_remaining(tenant, keys=delete_keys)
        receipt = TenantErasureReceipt(
            tenant=tenant,
            users_erased=len(users),
            nodes_removed=tally.nodes,
            relationships_removed=tally.relationships,
            nodes_by_label=dict(sorted(tally.labels.items())),
            relationships_by_type=dict(sorted(tally.types.items())),
            keys_deleted=keys_deleted,
            remaining_nodes=remaining[0],
            remaining_relationships=remaining[1],
            at=self._clock.now(),
        )
        log.info("erased tenant %s: %d users, %d nodes, %d relationships, %d keys deleted, verified=%s", tenant,
                 len(users), tally.nodes, tally.relationships, keys_deleted, receipt.verified)
        return receipt

    def _erase_users(self, tenant: str, tally: ErasureTally, users: set[str], *, any_label: bool) -> None:
        """Erase the tenant's users page by page, in id order, each through forgetUser's path; into the tally, and
        their ids into users."""
        after = ""
        while page := self._repo.tenant_users(tenant, after=after, limit=USERS_PAGE, any_label=any_label):
            for user_id in page:
                user_tally, _ = self._erase_user(Scope(tenant=tenant, user_id=user_id), prove=False)
                tally.add(user_tally)
                users.add(user_id)
            after = page[-1]

    def tenant_user_nodes(self, tenant: str) -> int:
        return self._repo.tenant_user_nodes(tenant)
