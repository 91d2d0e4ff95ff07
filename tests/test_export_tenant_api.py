"""A whole tenant out through the API (real Neo4j, the real app served by uvicorn): GET /export.{ttl|nt|jsonld|rdf}
streams every user of the key's tenant, what `bmam export --all-users` writes, for an admin key only (an app key is
403 FORBIDDEN, a tenant with no users 404 NOT_FOUND), and the file imports back through POST /import.{ext} into a
fresh tenant as the same graph; BmamClient.export_rdf_all_users and `bmam remote export --all-users` read it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import requests
from rdflib import URIRef
from rdflib import namespace as ns
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from graph.rdf import parse_rdf
from graph.rdf_terms import BASE, BMAM, user_iri
from graph.rdf_writers import RdfFormat
from tests.knowledge_fixture import load
from tests.test_rdf import assert_isomorphic, mapped

runner = CliRunner()
USERS = ("alice", "碧")


def _fresh() -> str:
    return f"test-exp-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def source(container: Container) -> str:
    """A tenant of two users, each with the knowledge fixture's conversation."""
    tenant = _fresh()
    for user in USERS:
        load(container, tenant, user)
    return tenant


@pytest.fixture(scope="module")
def admin_key(container: Container, source: str) -> str:
    return container.keys.create(source, "pytest").secret  # the operator's CLI makes admin keys


def _get(api_url: str, key: str | None, path: str, **params: str) -> requests.Response:
    headers = {"X-API-Key": key} if key else {}
    return requests.get(f"{api_url}{path}", params=params, headers=headers, timeout=120)


def _code(resp: requests.Response) -> str:
    return str(resp.json()["errors"][0]["extensions"]["code"])


def _local(container: Container, tenant: str, fmt: str) -> bytes:
    """What `bmam export --all-users --tenant T -f fmt` writes."""
    return b"".join(container.export.export_rdf(tenant, None, fmt))


def test_an_admin_key_downloads_every_user_as_the_cli_writes_them(container: Container, source: str,
                                                                  admin_key: str, api_url: str) -> None:
    for ext, media in (("ttl", "text/turtle"), ("nt", "application/n-triples"), ("jsonld", "application/ld+json"),
                       ("rdf", "application/rdf+xml")):
        got = _get(api_url, admin_key, f"/export.{ext}")
        assert got.status_code == 200, (ext, got.text)
        assert got.headers["content-type"].startswith(media)
        assert got.headers["content-disposition"] == f"attachment; filename*=UTF-8''{source}.{ext}"
        assert got.content == _local(container, source, ext), ext
    whole = parse_rdf(_get(api_url, admin_key, "/export.ttl").content, RdfFormat.TURTLE)
    assert set(whole.subjects(ns.RDF.type, BMAM.User)) == {URIRef(user_iri(source, u)) for u in USERS}


def test_the_download_imports_back_into_a_fresh_tenant_as_the_same_graph(
        container: Container, source: str, admin_key: str, api_url: str,
        make_api_key: Callable[[str], str]) -> None:
    data = _get(api_url, admin_key, "/export.ttl").content
    target = _fresh()
    target_key = make_api_key(target)
    done = requests.post(f"{api_url}/import.ttl", data=data, headers={"X-API-Key": target_key}, timeout=300)
    assert done.status_code == 200, done.text
    assert [(u["target"]["userId"], u["dryRun"]) for u in done.json()["users"]] == [(u, False) for u in USERS]
    back = _get(api_url, target_key, "/export.nt")
    assert back.status_code == 200, back.text
    before = parse_rdf(_local(container, source, "nt"), RdfFormat.NTRIPLES)
    after = parse_rdf(back.content, RdfFormat.NTRIPLES)
    assert len(after) > 100
    assert_isomorphic(mapped(before, f"{BASE}t/{source}", f"{BASE}t/{target}"), after)


def test_an_app_key_is_forbidden_and_other_refusals_are_coded(container: Container, source: str,
                                                              admin_key: str, api_url: str) -> None:
    app_key = container.keys.create(source, "app", admin=False).secret
    forbidden = _get(api_url, app_key, "/export.ttl")
    assert forbidden.status_code == 403 and _code(forbidden) == "FORBIDDEN", forbidden.text
    assert forbidden.headers["content-type"] == "application/json"
    assert "admin key" in forbidden.json()["errors"][0]["message"]
    assert _get(api_url, app_key, f"/export/{USERS[0]}.ttl").status_code == 200  # one user: any key of the app

    no_key = _get(api_url, None, "/export.ttl")
    assert no_key.status_code == 401 and _code(no_key) == "UNAUTHENTICATED"
    for ext in ("graphml", "gexf", "csv"):
        wrong = _get(api_url, admin_key, f"/export.{ext}")
        assert wrong.status_code == 400 and _code(wrong) == "BAD_USER_INPUT", (ext, wrong.text)
    extra = _get(api_url, admin_key, "/export.ttl", foo="1")
    assert extra.status_code == 400 and "'foo'" in extra.json()["errors"][0]["message"]
    posted = requests.post(f"{api_url}/export.ttl", headers={"X-API-Key": admin_key}, timeout=30)
    assert (posted.status_code, posted.headers["allow"], _code(posted)) == (405, "GET", "BAD_USER_INPUT")


def test_a_tenant_with_no_users_is_not_found(api_url: str, make_api_key: Callable[[str], str]) -> None:
    empty = _get(api_url, make_api_key(_fresh()), "/export.nt")
    assert empty.status_code == 404 and _code(empty) == "NOT_FOUND", empty.text
    assert "has no users" in empty.json()["errors"][0]["message"]


def test_the_client_and_remote_export_all_users(container: Container, source: str, admin_key: str, api_url: str,
                                                tmp_path: Path) -> None:
    c = BmamClient(ClientConfig(url=api_url, api_key=admin_key))
    try:
        assert b"".join(c.export_rdf_all_users("nt")) == _local(container, source, "nt")
    finally:
        c.close()
    app_client = BmamClient(ClientConfig(url=api_url, api_key=container.keys.create(source, "app", admin=False).secret))
    try:
        with pytest.raises(BmamClientError) as err:
            app_client.export_rdf_all_users("ttl")
        assert (err.value.code, err.value.status) == ("FORBIDDEN", 403)
    finally:
        app_client.close()

    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": admin_key}
    out = tmp_path / "tenant.jsonld"
    written = runner.invoke(cli_app, ["remote", "export", "--all-users", "-f", "json-ld", "-o", str(out)], env=env)
    assert written.exit_code == 0, written.output
    assert out.read_bytes() == _local(container, source, "jsonld")
    printed = runner.invoke(cli_app, ["remote", "export", "--all-users", "-f", "nt"], env=env)
    assert printed.exit_code == 0 and printed.stdout_bytes == _local(container, source, "nt")
    for args in ([], ["--all-users", "-u", "alice"]):
        both = runner.invoke(cli_app, ["remote", "export", *args], env=env)
        assert both.exit_code == 2 and "--all-users" in both.output, (args, both.output)
    graph = runner.invoke(cli_app, ["remote", "export", "--all-users", "-f", "graphml"], env=env)
    assert graph.exit_code == 2 and "one user at a time" in graph.output
