"""API keys: stored hashed, shown once, tenant from the key, UNAUTHENTICATED without one; the CLI."""

from __future__ import annotations

import json
import os
import stat
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from gql import Client, GraphQLRequest, gql
from gql.transport.requests import RequestsHTTPTransport
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.usecases.keys import dev_key, hash_secret, parse_key
from graph.errors import Unauthenticated
from graph.keys import KeyRepository
from tests.ops_support import store_rows


def _tenant() -> str:
    return f"test-keys-{uuid.uuid4().hex[:10]}"


def test_key_format_and_hash_are_salted() -> None:
    key = "bmam_" + "a1" * 8 + "_" + "x" * 43
    assert parse_key(key) == ("a1" * 8, "x" * 43)
    for bad in ("", "bmam__" + "x" * 43, "bmam_" + "a1" * 8, "Bearer " + key, key + "!", key.replace("bmam", "bmsm")):
        assert parse_key(bad) is None
    assert hash_secret("00" * 16, "s") != hash_secret("01" * 16, "s")
    assert hash_secret("00" * 16, "s") == hash_secret("00" * 16, "s")


def test_keys_are_stored_hashed_and_never_listed_with_their_secret(container: Container) -> None:
    tenant = _tenant()
    created = container.keys.create(tenant, "ci")
    key_id, secret = parse_key(created.secret) or ("", "")
    stored = KeyRepository(container.store).for_auth(key_id)
    assert stored is not None and stored.key.tenant == tenant
    assert secret not in (stored.hash, stored.salt) and created.secret not in repr(stored)
    assert stored.hash == hash_secret(stored.salt, secret)
    listed = container.keys.list(tenant)
    assert [k.id for k in listed] == [key_id] and created.secret not in repr(listed)
    assert container.keys.authenticate(created.secret).tenant == tenant
    for wrong in (created.secret[:-1] + ("A" if created.secret[-1] != "A" else "B"), "nonsense", None, ""):
        with pytest.raises(Unauthenticated):
            container.keys.authenticate(wrong)


def test_no_bad_or_unknown_key_is_unauthenticated(api_url: str, client: BmamClient) -> None:
    unknown = "bmam_" + "0" * 16 + "_" + "A" * 43
    for key in (None, "", "not-a-key", unknown):
        anonymous = BmamClient(ClientConfig(url=api_url, api_key=key))
        with pytest.raises(BmamClientError) as err:
            anonymous.memories("alice")
        assert err.value.code == "UNAUTHENTICATED"
        anonymous.close()
    assert client.viewer()["keyName"] == "pytest"


def test_bearer_header_is_accepted(api_url: str, api_key: str, api_tenant: str) -> None:
    transport = RequestsHTTPTransport(url=f"{api_url}/graphql", headers={"Authorization": f"Bearer {api_key}"})
    with Client(transport=transport) as session:
        result = session.execute(GraphQLRequest(gql("{ viewer { tenant } }")))
    assert result["viewer"]["tenant"] == api_tenant


def test_keys_through_the_api_belong_to_the_callers_tenant(
    api_url: str, make_api_key: Callable[[str], str]
) -> None:
    tenant_a, tenant_b = _tenant(), _tenant()
    a = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant_a)))
    b = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant_b)))
    created = a.create_api_key("rotation")
    assert created["key"].startswith(created["apiKey"]["prefix"] + "_")
    second = BmamClient(ClientConfig(url=api_url, api_key=created["key"]))
    assert second.viewer() == {"tenant": tenant_a, "keyId": created["apiKey"]["id"], "keyName": "rotation",
                               "admin": False}
    listed = a.api_keys()
    assert {k["name"] for k in listed} == {"pytest", "rotation"}
    assert created["key"] not in json.dumps(listed)
    assert [k["name"] for k in b.api_keys()] == ["pytest"]  # B's own key only (all() of nothing would pass)

    # B cannot revoke (or even see) A's key; A can, and it stops working at once.
    with pytest.raises(BmamClientError) as err:
        b.revoke_api_key(created["apiKey"]["id"])
    assert err.value.code == "NOT_FOUND"
    assert second.viewer()["tenant"] == tenant_a
    revoked = a.revoke_api_key(created["apiKey"]["id"])
    assert revoked["revokedAt"] is not None
    with pytest.raises(BmamClientError) as err:
        second.viewer()
    assert err.value.code == "UNAUTHENTICATED"
    assert {k["name"] for k in a.api_keys()} == {"pytest"}
    assert {k["name"] for k in a.api_keys(include_revoked=True)} == {"pytest", "rotation"}
    for c in (a, b, second):
        c.close()


def test_an_app_key_does_everything_but_manage_the_app_s_keys(
    api_url: str, container: Container, make_api_key: Callable[[str], str]
) -> None:
    """createApiKey makes an app key unless admin: true: it remembers, recalls and erases users, but creating,
    listing or revoking the app's keys is FORBIDDEN (a leaked app key cannot mint keys or lock the operator out);
    it may revoke itself. An admin key may do all of it; the CLI's keys are admin keys unless --app."""
    tenant = _tenant()
    admin = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))
    assert admin.viewer()["admin"] is True
    made = admin.create_api_key("app")
    assert made["apiKey"]["admin"] is False
    app_key = BmamClient(ClientConfig(url=api_url, api_key=made["key"]))
    assert app_key.viewer()["admin"] is False
    assert app_key.remember("alice", "I drink green tea", "FACTUAL")["text"] == "I drink green tea"
    assert app_key.forget_user("alice", confirm=True)["verified"] is True
    admin_id = admin.viewer()["keyId"]
    for refused in (lambda: app_key.create_api_key("minted"), lambda: app_key.create_api_key("boss", admin=True),
                    lambda: app_key.api_keys(), lambda: app_key.revoke_api_key(admin_id)):
        with pytest.raises(BmamClientError) as err:
            refused()
        assert err.value.code == "FORBIDDEN", err.value
    assert {(k["name"], k["admin"]) for k in admin.api_keys()} == {("pytest", True), ("app", False)}
    second_admin = admin.create_api_key("deputy", admin=True)
    assert second_admin["apiKey"]["admin"] is True
    assert BmamClient(ClientConfig(url=api_url, api_key=second_admin["key"])).revoke_api_key(
        made["apiKey"]["id"])["revokedAt"] is not None
    with pytest.raises(BmamClientError) as err:
        app_key.viewer()
    assert err.value.code == "UNAUTHENTICATED"

    itself = BmamClient(ClientConfig(url=api_url, api_key=admin.create_api_key("leaked")["key"]))
    assert itself.revoke_api_key(itself.viewer()["keyId"])["revokedAt"] is not None

    runner = CliRunner()
    cli = runner.invoke(cli_app, ["keys", "create", "--tenant", tenant, "--name", "cli-app", "--app"])
    assert cli.exit_code == 0, cli.output
    assert container.keys.authenticate(cli.stdout.strip().splitlines()[0]).admin is False
    rows = [json.loads(x) for x in runner.invoke(cli_app, ["keys", "list", "--tenant", tenant]).stdout.splitlines()]
    assert {(r["name"], r["admin"]) for r in rows} == {("pytest", True), ("deputy", True), ("cli-app", False)}
    for c in (admin, app_key, itself):
        c.close()


def test_a_key_stored_before_keys_had_roles_is_an_admin_key(container: Container) -> None:
    created = container.keys.create(_tenant(), "old")
    store_rows(container, "MATCH (k:ApiKey {id: $id}) REMOVE k.admin", id=created.key.id)
    [row] = store_rows(container, "MATCH (k:ApiKey {id: $id}) RETURN k.admin AS admin", id=created.key.id)
    assert row["admin"] is None
    assert container.keys.authenticate(created.secret).admin is True


def test_websocket_needs_a_key(api_url: str) -> None:
    for key in (None, "bmam_" + "0" * 16 + "_" + "A" * 43):
        anonymous = BmamClient(ClientConfig(url=api_url, api_key=key, timeout_s=10))
        with pytest.raises(BmamClientError) as err:
            next(anonymous.memory_events("alice"))
        assert err.value.code == "UNAUTHENTICATED", err.value


def test_cli_create_list_revoke(container: Container) -> None:
    tenant = _tenant()
    runner = CliRunner()
    made = runner.invoke(cli_app, ["keys", "create", "--tenant", tenant, "--name", "cli"])
    assert made.exit_code == 0, made.output
    key = made.stdout.strip().splitlines()[0]
    assert container.keys.authenticate(key).tenant == tenant
    listed = runner.invoke(cli_app, ["keys", "list", "--tenant", tenant])
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["name"] for r in rows] == ["cli"] and key not in listed.stdout
    revoked = runner.invoke(cli_app, ["keys", "revoke", rows[0]["id"]])
    assert revoked.exit_code == 0 and json.loads(revoked.stdout)["revoked_at"]
    assert runner.invoke(cli_app, ["keys", "list", "--tenant", tenant]).stdout.strip() == ""
    missing = runner.invoke(cli_app, ["keys", "revoke", "0" * 16])
    assert missing.exit_code == 1 and "NOT_FOUND" in missing.output
    bad = runner.invoke(cli_app, ["keys", "create", "--tenant", "  "])
    assert bad.exit_code == 2


def test_dev_key_is_created_once_then_reused(container: Container, tmp_path: Path) -> None:
    tenant = _tenant()
    path = tmp_path / "dev-api-key"
    key, created = dev_key(container.keys, path, tenant)
    assert created and container.keys.authenticate(key).tenant == tenant
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert dev_key(container.keys, path, tenant) == (key, False)
    container.keys.revoke(parse_key(key)[0], tenant=tenant)  # type: ignore[index]
    again, created = dev_key(container.keys, path, tenant)
    assert created and again != key


def test_remote_cli_talks_through_the_client(api_url: str, api_key: str, api_tenant: str) -> None:
    runner = CliRunner()
    who = runner.invoke(cli_app, ["remote", "whoami", "--server", api_url, "--api-key", api_key])
    assert who.exit_code == 0 and json.loads(who.stdout)["tenant"] == api_tenant
    user = f"u-{uuid.uuid4().hex[:8]}"
    BmamClient(ClientConfig(url=api_url, api_key=api_key)).remember(user, "remote memory", "FACTUAL")
    listed = runner.invoke(cli_app, ["remote", "memories", "-u", user], env={"BMAM_SERVER": api_url,
                                                                             "BMAM_API_KEY": api_key})
    assert [json.loads(line)["text"] for line in listed.stdout.splitlines()] == ["remote memory"]
    refused = runner.invoke(cli_app, ["remote", "memories", "-u", user, "--server", api_url, "--api-key", "bad"])
    assert refused.exit_code == 1 and "UNAUTHENTICATED" in refused.output
    assert runner.invoke(cli_app, ["remote", "forget-user", "-u", user, "--server", api_url,
                                   "--api-key", api_key]).exit_code == 2  # no --yes
    gone = runner.invoke(cli_app, ["remote", "forget-user", "-u", user, "--yes", "--server", api_url,
                                   "--api-key", api_key])
    assert gone.exit_code == 0 and json.loads(gone.stdout)["verified"] is True
    health = runner.invoke(cli_app, ["remote", "health", "--server", api_url])
    assert health.exit_code == 0 and json.loads(health.stdout)["status"] == "ok"
    # the key every remote command takes (a script passing it to each call): taken, not needed
    keyed = runner.invoke(cli_app, ["remote", "health", "--server", api_url, "--api-key", api_key])
    assert keyed.exit_code == 0 and json.loads(keyed.stdout)["status"] == "ok", keyed.output


def test_graphiql_page_needs_no_key_in_dev(api_url: str) -> None:
    import httpx

    page = httpx.get(f"{api_url}/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
