"""forgetTenant: every user of one tenant erased through forgetUser's path (hooks, event log, FORGOTTEN), and the
tenant's nodes of no user (maintenance changesets, their counter); a receipt re-querying the whole tenant; another
tenant untouched whole; the app's keys kept. Through GraphQL (an admin key, confirm and the tenant typed back), the
CLI (`bmam forget-tenant TENANT --yes [--keys]`, `bmam keys delete`) and `bmam remote forget-tenant`; an erasure
stopped midway finished by running it again. Against the real Neo4j."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from bmam.cli import app as cli_app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.events import EventBus, EventKind, MemoryEvent
from bmam.usecases.erasure import ErasureUseCases
from bmam.usecases.keys import parse_key
from bmam.usecases.memories import RememberRequest
from graph.erasure import ErasureRepository, ErasureTally
from graph.errors import StoreUnavailable
from graph.model import Scope
from tests.ops_support import store_rows
from tests.test_erasure import _fill

runner = CliRunner()


def _tenant() -> str:
    return f"test-forget-tenant-{uuid.uuid4().hex[:10]}"


def _remember(container: Container, tenant: str, user: str, text: str) -> None:
    container.memories.remember(tenant, RememberRequest(user_id=user, text=text, type="FACTUAL"))


def _snapshot(container: Container, tenant: str) -> tuple[list[Any], list[Any]]:
    """Every node stamped with the tenant (keys included) and every relationship touching one, with their
    properties (embeddings aside): what "untouched whole" compares."""
    nodes = store_rows(container, "MATCH (n) WHERE n.tenant = $t RETURN labels(n) AS labels, properties(n) AS props",
                       t=tenant)
    rels = store_rows(
        container,
        "MATCH (a)-[r]->(b) WHERE a.tenant = $t OR b.tenant = $t "
        "RETURN type(r) AS type, elementId(a) AS a, elementId(b) AS b, properties(r) AS props",
        t=tenant)

    def key(x: dict[str, Any]) -> str:
        x["props"].pop("embedding", None)
        return json.dumps(x, sort_keys=True, ensure_ascii=False, default=str)

    return sorted(key(n) for n in nodes), sorted(key(r) for r in rels)


def _stamped(container: Container, tenant: str) -> int:
    """Nodes stamped with the tenant, API keys aside."""
    return int(store_rows(container, "MATCH (n) WHERE n.tenant = $t AND NOT n:ApiKey RETURN count(n) AS n",
                          t=tenant)[0]["n"])


def _no_user_nodes(container: Container, tenant: str) -> None:
    """What a tenant holds of no user: a tenant-wide maintenance run (its changeset and the tenant's changeset
    counter), a node of a label a deployment added, stamped with the tenant only, and a user with data but no User
    node (found only by the label-free pass)."""
    assert container.maintenance.run(tenant, "rebalance").changeset is not None
    store_rows(container, "CREATE (:TenantNote {tenant: $t, note: 'app settings'})", t=tenant)
    store_rows(container, "CREATE (:FeatureNote {tenant: $t, user_id: 'ghost', note: 'no User node'})"
                          "-[:NOTE_OF {tenant: $t, user_id: 'ghost'}]->(:FeatureNote {tenant: $t, user_id: 'ghost'})",
               t=tenant)


def test_forget_tenant_erases_every_user_and_the_tenants_own_nodes_and_leaves_another_tenant_whole(
    api_url: str, make_api_key: Callable[[str], str], container: Container
) -> None:
    gone, kept = _tenant(), _tenant()
    c = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(gone)))
    other = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(kept)))
    try:
        for user in ("alice", "bob"):
            _fill(c, user)
        _fill(other, "alice")  # the same user id in another app is another person
        _no_user_nodes(container, gone)
        assert container.maintenance.run(kept, "rebalance").changeset is not None
        before = _snapshot(container, kept)
        stored = _stamped(container, gone)

        receipt = c.forget_tenant(gone, confirm=True)
        labels = {x["label"]: x["count"] for x in receipt["nodesByLabel"]}
        types = {x["label"]: x["count"] for x in receipt["relationshipsByType"]}
        assert receipt["tenant"] == gone and receipt["verified"] is True
        assert receipt["remainingNodes"] == 0 and receipt["remainingRelationships"] == 0
        assert receipt["usersErased"] == 3  # alice, bob, and ghost (no User node: the label-free pass)
        assert receipt["nodesRemoved"] == stored
        assert labels["User"] == 2 and labels["Memory"] >= 4 and labels["Episode"] == 2 and labels["Session"] == 2
        assert labels["ChangesetCounter"] == 1 and labels["Changeset"] >= 1
        assert labels["TenantNote"] == 1 and labels["FeatureNote"] == 2 and "ApiKey" not in labels
        assert types["TRIPLE"] >= 2 and types["ASSOCIATED"] >= 2 and types["NOTE_OF"] == 1
        assert receipt["relationshipsRemoved"] == sum(types.values())

        assert _stamped(container, gone) == 0
        assert store_rows(container, "MATCH ()-[r]->() WHERE r.tenant = $t RETURN count(r) AS n", t=gone)[0]["n"] == 0
        assert c.memories("alice")["edges"] == [] and c.search("bob", "hotpot", k=5) == []
        assert c.viewer()["tenant"] == gone  # the app's keys stay and still work
        assert _snapshot(container, kept) == before  # the other app whole: every node, property and relationship
        assert len(other.memories("alice")["edges"]) >= 2

        again = c.forget_tenant(gone, confirm=True)  # nothing left to erase: an empty receipt, verified
        assert (again["usersErased"], again["nodesRemoved"], again["verified"]) == (0, 0, True)
    finally:
        c.close()
        other.close()
        container.erasure.forget_tenant(kept, confirm=True, delete_keys=True)


def test_each_user_goes_through_forget_users_path_hooks_and_events(container: Container) -> None:
    """Every user's erasure hooks run (caches, anti-repetition state, the event relay) and each user's
    FORGOTTEN event is published with its memory count, as forgetUser does; small batches loop until done."""
    tenant = _tenant()
    for i in range(3):
        _remember(container, tenant, "carol", f"carol's memory number {i}")
    _remember(container, tenant, "dave", "dave keeps bees")
    heard: list[Scope] = []
    published: list[MemoryEvent] = []

    class Recording(EventBus):
        def publish(self, event: MemoryEvent) -> None:
            published.append(event)

    def hear(scope: Scope) -> None:
        heard.append(scope)

    erasure = ErasureUseCases(repository=ErasureRepository(container.store, batch_size=2), clock=container.clock,
                              hooks=[hear], events=Recording())
    receipt = erasure.forget_tenant(tenant, confirm=True)
    assert receipt.verified and receipt.users_erased == 2 and receipt.keys_deleted == 0
    assert receipt.nodes_by_label["Memory"] == 4 and receipt.relationships_by_type == {"HAS_MEMORY": 4}
    assert heard == [Scope(tenant, "carol"), Scope(tenant, "dave")]
    assert [(e.kind, e.user_id, e.detail) for e in published] == [
        (EventKind.FORGOTTEN, "carol", {"memories": "3"}), (EventKind.FORGOTTEN, "dave", {"memories": "1"})]


def test_an_erasure_stopped_midway_is_finished_by_running_it_again(container: Container) -> None:
    tenant = _tenant()
    for user in ("u1", "u2", "u3"):
        _remember(container, tenant, user, f"{user} likes green tea")
    assert container.maintenance.run(tenant, "rebalance").changeset is not None

    class Failing(ErasureRepository):
        """Neo4j goes away while the second user is being erased."""

        def erase(self, scope: Scope, *, prove: bool = True) -> ErasureTally:
            if scope.user_id == "u2":
                raise StoreUnavailable("neo4j went away")
            return super().erase(scope, prove=prove)

    stopped = ErasureUseCases(repository=Failing(container.store), clock=container.clock)
    with pytest.raises(StoreUnavailable):
        stopped.forget_tenant(tenant, confirm=True)
    assert ErasureRepository(container.store).remaining(Scope(tenant, "u1")) == (0, 0)
    assert _stamped(container, tenant) > 0  # u2, u3 and the tenant's changeset are still there

    receipt = container.erasure.forget_tenant(tenant, confirm=True)
    assert receipt.verified and receipt.users_erased == 2  # u2 and u3: u1 was erased by the first run
    assert receipt.nodes_by_label["ChangesetCounter"] == 1
    assert _stamped(container, tenant) == 0


# ----- GraphQL -----------------------------------------------------------------------------------------------


def test_graphql_refuses_an_app_key_and_an_unconfirmed_or_mistyped_erasure(
    api_url: str, make_api_key: Callable[[str], str], container: Container
) -> None:
    tenant = _tenant()
    admin = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))
    app_key = BmamClient(ClientConfig(url=api_url, api_key=admin.create_api_key("app")["key"]))
    try:
        _fill(admin, "alice")
        stored = _stamped(container, tenant)
        refusals: list[tuple[Callable[[], object], str, str | None]] = [
            (lambda: app_key.forget_tenant(tenant, confirm=True), "FORBIDDEN", None),
            (lambda: admin.forget_tenant(tenant, confirm=False), "BAD_USER_INPUT", "confirm"),
            (lambda: admin.forget_tenant(tenant.upper(), confirm=True), "BAD_USER_INPUT", "tenant"),
            (lambda: admin.forget_tenant(_tenant(), confirm=True), "BAD_USER_INPUT", "tenant"),
            (lambda: admin.forget_tenant("", confirm=True), "BAD_USER_INPUT", "tenant"),
        ]
        for refused, code, word in refusals:
            with pytest.raises(BmamClientError) as err:
                refused()
            assert err.value.code == code, err.value
            assert word is None or word in err.value.message
        assert _stamped(container, tenant) == stored  # nothing erased by a refusal
        assert admin.forget_tenant(tenant, confirm=True)["verified"] is True
        assert _stamped(container, tenant) == 0
        assert app_key.viewer()["tenant"] == tenant
    finally:
        admin.close()
        app_key.close()
        container.erasure.forget_tenant(tenant, confirm=True, delete_keys=True)


# ----- CLI -----------------------------------------------------------------------------------------------------


def cli(*args: str) -> Result:
    """Run one command; whatever its exit code, it ended by exiting, not by an exception (a traceback)."""
    result = runner.invoke(cli_app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def refused(code: int, *args: str) -> str:
    """A command that must fail with exit `code`: nothing on standard output, one line on standard error."""
    result = cli(*args)
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def keyed_tenant(container: Container) -> Iterator[tuple[str, str]]:
    """A tenant with a user's data and an admin key: (tenant, key id); erased whole afterwards."""
    tenant = _tenant()
    _remember(container, tenant, "erin", "erin rows on Sundays")
    key_id = container.keys.create(tenant, "ops").key.id
    yield tenant, key_id
    if container.erasure._repo.tenant_known(tenant):
        container.erasure.forget_tenant(tenant, confirm=True, delete_keys=True)


def test_cli_forget_tenant_refuses_without_yes_and_an_unknown_tenant(
    container: Container, keyed_tenant: tuple[str, str]
) -> None:
    tenant, _ = keyed_tenant
    assert "--yes" in refused(2, "forget-tenant", tenant)
    assert "--yes" in refused(2, "forget-tenant", tenant, "--keys")
    assert _stamped(container, tenant) > 0  # nothing erased without --yes
    unknown = _tenant()
    assert refused(1, "forget-tenant", unknown, "--yes") == (
        f"error [NOT_FOUND]: tenant {unknown!r} has nothing stored (no data, no API keys)")
    for bad in ("", " ", "a\u200bb", "x" * 300):  # typer's usage error naming the argument, exit 2
        result = cli("forget-tenant", bad, "--yes")
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert "Invalid value for 'tenant'" in result.stderr, result.output


def test_cli_forget_tenant_keeps_the_keys_unless_told_and_then_nothing_is_left(
    container: Container, keyed_tenant: tuple[str, str]
) -> None:
    tenant, key_id = keyed_tenant
    kept = cli("forget-tenant", tenant, "--yes")
    assert kept.exit_code == 0, kept.output
    receipt = json.loads(kept.stdout)
    assert receipt["tenant"] == tenant and receipt["verified"] is True and receipt["users_erased"] == 1
    assert receipt["keys_deleted"] == 0 and receipt["nodes_by_label"]["Memory"] == 1
    assert [k.id for k in container.keys.list(tenant, include_revoked=True)] == [key_id]

    again = cli("forget-tenant", tenant, "--yes")  # the keys are still there: the tenant is known, nothing to erase
    assert again.exit_code == 0 and json.loads(again.stdout)["nodes_removed"] == 0

    container.keys.revoke(key_id, tenant=tenant)
    container.keys.create(tenant, "live")  # revoked or not, --keys deletes them all
    whole = cli("forget-tenant", tenant, "--yes", "--keys")
    assert whole.exit_code == 0, whole.output
    receipt = json.loads(whole.stdout)
    assert receipt["keys_deleted"] == 2 and receipt["nodes_by_label"] == {"ApiKey": 2} and receipt["verified"]
    assert container.keys.list(tenant, include_revoked=True) == []
    assert store_rows(container, "MATCH (n) WHERE n.tenant = $t RETURN count(n) AS n", t=tenant)[0]["n"] == 0
    assert "NOT_FOUND" in refused(1, "forget-tenant", tenant, "--yes", "--keys")


def test_cli_keys_delete_takes_only_a_revoked_key(container: Container, keyed_tenant: tuple[str, str]) -> None:
    tenant, key_id = keyed_tenant
    secret = container.keys.create(tenant, "in use").secret
    live_id = parse_key(secret)[0]  # type: ignore[index]
    message = refused(1, "keys", "delete", live_id)
    assert message.startswith("error [CONFLICT]:") and "revoke it first" in message
    assert container.keys.authenticate(secret).tenant == tenant  # kept, still valid

    assert refused(2, "keys", "delete", secret).startswith("error [BAD_USER_INPUT]")
    assert secret.split("_")[-1] not in refused(2, "keys", "delete", secret)  # never repeats the secret
    assert refused(2, "keys", "delete", "nothex").startswith("error [BAD_USER_INPUT]")

    container.keys.revoke(key_id, tenant=tenant)
    assert refused(1, "keys", "delete", key_id, "--tenant", _tenant()).startswith("error [NOT_FOUND]")
    deleted = cli("keys", "delete", key_id, "--tenant", tenant)
    assert deleted.exit_code == 0, deleted.output
    assert json.loads(deleted.stdout)["id"] == key_id and json.loads(deleted.stdout)["revoked_at"] is not None
    assert [k.id for k in container.keys.list(tenant, include_revoked=True)] == [live_id]
    assert refused(1, "keys", "delete", key_id) == f"error [NOT_FOUND]: API key {key_id} not found"


# ----- bmam remote --------------------------------------------------------------------------------------------


def test_remote_forget_tenant_erases_the_keys_app(
    api_url: str, make_api_key: Callable[[str], str], container: Container
) -> None:
    tenant = _tenant()
    key = make_api_key(tenant)
    _remember(container, tenant, "frank", "frank sails")
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": key}
    try:
        no = runner.invoke(cli_app, ["remote", "forget-tenant", tenant], env=env)
        assert no.exit_code == 2 and "--yes" in no.stderr, no.output
        wrong = runner.invoke(cli_app, ["remote", "forget-tenant", _tenant(), "--yes"], env=env)
        assert wrong.exit_code == 2 and "BAD_USER_INPUT" in wrong.stderr, wrong.output
        assert _stamped(container, tenant) > 0
        done = runner.invoke(cli_app, ["remote", "forget-tenant", tenant, "--yes"], env=env)
        assert done.exit_code == 0, done.output
        receipt = json.loads(done.stdout)
        assert receipt["verified"] is True and receipt["usersErased"] == 1
        assert _stamped(container, tenant) == 0
    finally:
        container.erasure.forget_tenant(tenant, confirm=True, delete_keys=True)
