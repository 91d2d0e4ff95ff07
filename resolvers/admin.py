"""The caller's own app: who am I, its API keys (create, list, revoke: an admin key's), forgetUser (erasure of a
user) and forgetTenant (of every user of the app: an admin key's)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from bmam.usecases.erasure import TenantErasureReceipt as TenantErasure
from graph import model
from resolvers.context import Info, call


@strawberry.type(description="The caller, as its API key tells.")
class Viewer:
    tenant: str
    key_id: strawberry.ID
    key_name: str
    admin: bool = strawberry.field(description="Whether this key may manage the app's keys.")


@strawberry.type(description="An API key of the caller's app. The secret is shown once, at creation.")
class ApiKey:
    id: strawberry.ID
    name: str
    prefix: str = strawberry.field(description="The non-secret start of the key, to recognise it.")
    created_at: datetime
    revoked_at: datetime | None
    admin: bool = strawberry.field(description="May create, list and revoke the app's keys (an app key may not).")

    @classmethod
    def of(cls, k: model.ApiKey) -> ApiKey:
        return cls(id=strawberry.ID(k.id), name=k.name, prefix=k.prefix, created_at=k.created_at,
                   revoked_at=k.revoked_at, admin=k.admin)


@strawberry.type
class CreatedApiKey:
    key: str = strawberry.field(description="The whole key. Shown this once; only its hash is stored.")
    api_key: ApiKey


@strawberry.type
class LabelCount:
    label: str
    count: int


@strawberry.type(description="What forgetUser removed, and a re-query proving nothing of the user is left.")
class ErasureReceipt:
    user_id: str
    nodes_removed: int
    relationships_removed: int
    nodes_by_label: list[LabelCount]
    relationships_by_type: list[LabelCount]
    remaining_nodes: int
    remaining_relationships: int
    verified: bool = strawberry.field(description="True when the re-query found no node and no relationship.")
    erased_at: datetime

    @classmethod
    def of(cls, r: model.ErasureReceipt) -> ErasureReceipt:
        return cls(user_id=r.user_id, **_erasure_counts(r))


@strawberry.type(description="What forgetTenant removed of the caller's app, and a re-query proving nothing of its "
                             "data is left. The app's API keys are not data: they stay.")
class TenantErasureReceipt:
    tenant: str
    users_erased: int = strawberry.field(description="How many users of the app were erased, each as forgetUser "
                                                     "erases one.")
    nodes_removed: int
    relationships_removed: int
    nodes_by_label: list[LabelCount]
    relationships_by_type: list[LabelCount]
    remaining_nodes: int
    remaining_relationships: int
    verified: bool = strawberry.field(description="True when the re-query found no node and no relationship of the "
                                                  "app (its API keys aside).")
    erased_at: datetime

    @classmethod
    def of(cls, r: TenantErasure) -> TenantErasureReceipt:
        return cls(tenant=r.tenant, users_erased=r.users_erased, **_erasure_counts(r))


def _erasure_counts(r: model.ErasureReceipt | TenantErasure) -> dict[str, Any]:
    """The fields an erasure receipt of a user and one of a tenant share: the counts removed and the proof."""
    return {
        "nodes_removed": r.nodes_removed,
        "relationships_removed": r.relationships_removed,
        "nodes_by_label": [LabelCount(label=k, count=v) for k, v in r.nodes_by_label.items()],
        "relationships_by_type": [LabelCount(label=k, count=v) for k, v in r.relationships_by_type.items()],
        "remaining_nodes": r.remaining_nodes,
        "remaining_relationships": r.remaining_relationships,
        "verified": r.verified,
        "erased_at": r.at,
    }


@strawberry.type
class AdminQuery:
    @strawberry.field(description="The caller: its tenant (app) and the API key it used.")
    def viewer(self, info: Info) -> Viewer:
        caller = info.context.caller  # raises UNAUTHENTICATED without a verified key
        return Viewer(tenant=caller.tenant, key_id=strawberry.ID(caller.key_id), key_name=caller.key_name,
                      admin=caller.admin)

    @strawberry.field(description="The API keys of the caller's app (never their secrets). An admin key's only: "
                                  "FORBIDDEN for an app key.")
    async def api_keys(self, info: Info, include_revoked: bool = False) -> list[ApiKey]:
        ctx = info.context
        keys = await call(ctx.container.keys.list_by, ctx.caller, include_revoked=include_revoked)
        return [ApiKey.of(k) for k in keys]


@strawberry.type
class AdminMutation:
    @strawberry.mutation(description="Create another API key for the caller's app; the key is shown once. An app "
                                     "key (admin: false, the default) may do everything but manage keys. An admin "
                                     "key's only: FORBIDDEN for an app key.")
    async def create_api_key(self, info: Info, name: str | None = None, admin: bool = False) -> CreatedApiKey:
        ctx = info.context
        created = await call(ctx.container.keys.create_by, ctx.caller, name, admin=admin)
        return CreatedApiKey(key=created.secret, api_key=ApiKey.of(created.key))

    @strawberry.mutation(description="Revoke one of the caller's app's API keys (effective at once here). An admin "
                                     "key may revoke any of them, any key itself; FORBIDDEN otherwise.")
    async def revoke_api_key(self, info: Info, id: strawberry.ID) -> ApiKey:
        ctx = info.context
        return ApiKey.of(await call(ctx.container.keys.revoke_by, ctx.caller, str(id)))

    @strawberry.mutation(
        description="Erase every node, edge, embedding and episode of one user of the caller's app. "
        "Needs confirm: true. Answers a receipt with the counts removed and a re-query proving none remain."
    )
    async def forget_user(self, info: Info, user_id: str, confirm: bool) -> ErasureReceipt:
        ctx = info.context
        receipt = await call(ctx.container.erasure.forget_user, ctx.tenant, user_id, confirm=confirm)
        return ErasureReceipt.of(receipt)

    @strawberry.mutation(
        description="Erase everything every user of the caller's app stored (each user as forgetUser erases one) and "
        "what the app holds of no user (its maintenance changesets). For an app leaving the service. Needs confirm: "
        "true and tenant: the app's own tenant typed back exactly (viewer { tenant }); an admin key's only: FORBIDDEN "
        "for an app key. The app's API keys stay and still work (the operator's `bmam forget-tenant --keys` deletes "
        "them too). Answers a receipt with the counts removed and a re-query proving none remain; stopped midway "
        "(a timeout, a restart), running it again finishes it."
    )
    async def forget_tenant(self, info: Info, tenant: str, confirm: bool) -> TenantErasureReceipt:
        ctx = info.context
        receipt = await call(ctx.container.erasure.forget_tenant_by, ctx.caller, tenant, confirm=confirm)
        return TenantErasureReceipt.of(receipt)
