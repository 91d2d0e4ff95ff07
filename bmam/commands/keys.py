"""CLI of the API's tenancy: `bmam keys create | list | revoke | delete` (API keys, straight in Neo4j: the
operator's tool), `bmam forget-user` (erase one user of a tenant, with a receipt) and `bmam forget-tenant` (every
user of a tenant and what it holds of no user; its keys too with --keys)."""

from __future__ import annotations

from typing import Annotated

import typer

from bmam.cli_support import TenantOpt, UserOpt, echo, echo_json, fail, run, tenant_of, tenant_option
from bmam.container import Container
from bmam.usecases.erasure import TenantErasureReceipt
from graph.model import ApiKey, ErasureReceipt


def key_json(k: ApiKey) -> dict[str, object]:
    return {"id": k.id, "tenant": k.tenant, "name": k.name, "prefix": k.prefix,
            "created_at": k.created_at.isoformat(), "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
            "admin": k.admin}


def receipt_json(r: ErasureReceipt) -> dict[str, object]:
    return {"tenant": r.tenant, "user_id": r.user_id, **_counts_json(r)}


def tenant_receipt_json(r: TenantErasureReceipt) -> dict[str, object]:
    return {"tenant": r.tenant, "users_erased": r.users_erased, "keys_deleted": r.keys_deleted, **_counts_json(r)}


def _counts_json(r: ErasureReceipt | TenantErasureReceipt) -> dict[str, object]:
    """What a user's erasure receipt and a tenant's share: the counts removed and the proof."""
    return {"nodes_removed": r.nodes_removed, "relationships_removed": r.relationships_removed,
            "nodes_by_label": r.nodes_by_label, "relationships_by_type": r.relationships_by_type,
            "remaining_nodes": r.remaining_nodes, "remaining_relationships": r.remaining_relationships,
            "verified": r.verified, "at": r.at.isoformat()}


def _tenant_argument(value: str) -> str:
    """TENANT as given, checked like --tenant; blank is refused (an argument names no default tenant)."""
    if not value.strip():
        raise typer.BadParameter("the tenant must not be empty")
    checked = tenant_option(value)
    assert checked is not None
    return checked


def register(app: typer.Typer) -> None:
    keys_app = typer.Typer(help="API keys: each belongs to a tenant (an app); stored hashed, shown once.",
                           no_args_is_help=True)
    app.add_typer(keys_app, name="keys")

    @keys_app.command("create")
    def create(
        tenant: Annotated[str, typer.Option("--tenant", help="The tenant (app) the key belongs to.")],
        name: Annotated[str | None, typer.Option("--name", help="A label to recognise the key by.")] = None,
        app_key: Annotated[bool, typer.Option("--app", help="An app key: everything but managing the tenant's keys "
                                                           "(default: an admin key, which may).")] = False,
    ) -> None:
        """Create a key and print it. It is shown this once: only its salted hash is stored."""
        created = run(lambda c: c.keys.create(tenant, name, admin=not app_key))
        echo(created.secret)
        role = "admin" if created.key.admin else "app"
        typer.secho(f"id {created.key.id}, tenant {created.key.tenant!r}, {role} key; store the key now, it is not "
                    "shown again", err=True)

    @keys_app.command("list")
    def list_keys(
        tenant: Annotated[str | None, typer.Option("--tenant", help="Only this tenant's keys.",
                                                   callback=tenant_option)] = None,
        include_revoked: Annotated[bool, typer.Option("--revoked", help="Include revoked keys.")] = False,
    ) -> None:
        """List keys (never their secrets), one JSON object a line."""
        for k in run(lambda c: c.keys.list(tenant, include_revoked=include_revoked)):
            echo_json(key_json(k))

    @keys_app.command("revoke")
    def revoke(
        key_id: Annotated[str, typer.Argument(help="The key's id (see `bmam keys list`).")],
        tenant: Annotated[str | None, typer.Option("--tenant", help="Refuse unless the key is this tenant's.",
                                                   callback=tenant_option)] = None,
    ) -> None:
        """Revoke a key. A running server trusts a verified key for up to api.key_cache_s (10 s) more."""
        revoked = run(lambda c: c.keys.revoke(key_id, tenant=tenant))
        echo_json(key_json(revoked))

    @keys_app.command("delete")
    def delete(
        key_id: Annotated[str, typer.Argument(help="The key's id (see `bmam keys list --revoked`).")],
        tenant: Annotated[str | None, typer.Option("--tenant", help="Refuse unless the key is this tenant's.",
                                                   callback=tenant_option)] = None,
    ) -> None:
        """Delete a revoked key for good (it no longer lists with --revoked); prints it as it was. A key not revoked
        is refused: revoke it first."""
        deleted = run(lambda c: c.keys.delete(key_id, tenant=tenant))
        echo_json(key_json(deleted))

    @app.command("forget-user")
    def forget_user(
        user: UserOpt,
        yes: Annotated[bool, typer.Option("--yes", help="Confirm: erase everything of this user.")] = False,
        tenant: TenantOpt = None,
    ) -> None:
        """Erase every node, edge, embedding and episode of one user of a tenant; print the receipt."""
        if not yes:
            fail("forget-user erases everything of this user; pass --yes to confirm", 2)

        def work(c: Container) -> ErasureReceipt:
            return c.erasure.forget_user(tenant_of(c, tenant), user, confirm=True)

        receipt = run(work)
        echo_json(receipt_json(receipt))
        if not receipt.verified:
            fail("the re-query still finds data of this user", 1)

    @app.command("forget-tenant")
    def forget_tenant(
        tenant: Annotated[str, typer.Argument(help="The tenant (app) to erase.", callback=_tenant_argument)],
        yes: Annotated[bool, typer.Option("--yes", help="Confirm: erase everything of this tenant.")] = False,
        keys: Annotated[bool, typer.Option("--keys", help="Delete the tenant's API keys too, revoked or not, so "
                                                          "nothing of it is left (default: they stay and still work).")]
        = False,
    ) -> None:
        """Erase every user of a tenant (each as forget-user erases one) and what it holds of no user (maintenance
        changesets); print the receipt. Stopped midway, running it again finishes it."""
        if not yes:
            fail(f"forget-tenant erases everything every user of tenant {tenant!r} stored"
                 f"{' and its API keys' if keys else ''}; pass --yes to confirm", 2)
        receipt = run(lambda c: c.erasure.forget_tenant(tenant, confirm=True, delete_keys=keys))
        echo_json(tenant_receipt_json(receipt))
        if not receipt.verified:
            fail("the re-query still finds data of this tenant: run the command again to finish", 1)
