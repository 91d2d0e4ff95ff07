"""/metrics shows every tenant at once: in the production profile it asks for the operator's token, and its
operation label carries the root field an operation selected (from the schema), never a client's own text."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from graphql import parse
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from bmam.client import BmamClient, ClientConfig
from bmam.container import Container
from bmam.settings import Settings
from resolvers.app import create_app
from resolvers.observe import root_fields
from tests.ops_support import served

TOKEN = "scrape-" + "x" * 24


def _production(settings: Settings, token: str | None) -> Iterator[str]:
    chosen = settings.model_copy(deep=True)
    chosen.api.profile = "production"
    chosen.api.metrics_token = SecretStr(token) if token else None
    app = create_app(Container(chosen), migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app) as url:
        yield url


@pytest.fixture
def production_without_token(settings: Settings, container: Container) -> Iterator[str]:
    yield from _production(settings, None)


@pytest.fixture
def production_with_token(settings: Settings, container: Container) -> Iterator[str]:
    yield from _production(settings, TOKEN)


def _operations(text: str) -> set[str]:
    return {sample.labels["operation"] for family in text_string_to_metric_families(text)
            for sample in family.samples if sample.name == "bmam_graphql_request_seconds_count"}


def test_production_metrics_refuse_every_caller_until_a_token_is_set(
    production_without_token: str, container: Container
) -> None:
    """It answered anyone, keys or none: client operation names, memories by tier of all tenants. An API key,
    admin or not, is one tenant's: it opens nothing here either."""
    admin_key = container.keys.create(f"test-metrics-{uuid.uuid4().hex[:8]}", "pytest").secret
    for headers in ({}, {"X-API-Key": admin_key}, {"Authorization": f"Bearer {admin_key}"}):
        resp = httpx.get(f"{production_without_token}/metrics", headers=headers)
        assert resp.status_code == 401, headers
        assert resp.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert resp.headers["www-authenticate"].startswith("Bearer")
        assert "bmam_" not in resp.text


def test_production_metrics_answer_the_operators_bearer_token_only(
    production_with_token: str, container: Container
) -> None:
    url = production_with_token
    admin_key = container.keys.create(f"test-metrics-{uuid.uuid4().hex[:8]}", "pytest").secret
    refused = [httpx.get(f"{url}/metrics", headers=h).status_code for h in (
        {}, {"X-API-Key": admin_key}, {"Authorization": f"Bearer {admin_key}"},
        {"Authorization": f"Bearer {TOKEN[:-1]}"}, {"Authorization": f"Bearer {TOKEN}x"}, {"X-API-Key": TOKEN})]
    assert refused == [401] * 6
    scraped = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert scraped.status_code == 200
    assert "bmam_neo4j_up" in scraped.text
    assert "bmam_neo4j_up" in BmamClient(ClientConfig(url=url)).metrics(token=TOKEN)
    rejections = [s for f in text_string_to_metric_families(scraped.text) for s in f.samples
                  if s.name == "bmam_http_rejections_total" and s.labels["status"] == "401"]
    assert rejections and rejections[0].value >= 6  # refused scrapes are counted like any refusal


def test_a_short_token_is_refused_by_the_settings(settings: Settings) -> None:
    with pytest.raises(ValueError):
        Settings.model_validate({**settings.model_dump(), "api": {**settings.api.model_dump(),
                                                                   "metrics_token": "short"}})


def test_the_operation_label_is_the_root_field_never_the_clients_name(client: BmamClient) -> None:
    """The label took the client's operation name (up to 200 of them, first come): a tenant's
    `query Alice_is_pregnant_0` was there for any reader of /metrics, and any client could fill the 200. In the
    dev profile /metrics stays open without a token."""
    for i in range(5):
        client.execute(f"query Alice_is_pregnant_{i} {{ viewer {{ tenant }} }}")
    client.execute("query Q { ...F } fragment F on Query { viewer { tenant } }")
    client.execute("query Two { viewer { tenant } apiKeys { id } }")
    text = client.metrics()
    assert "Alice_is_pregnant" not in text
    operations = _operations(text)
    assert {"viewer", "multiple"} <= operations
    roots = client.execute("{ __schema { queryType { fields { name } } mutationType { fields { name } } "
                           "subscriptionType { fields { name } } } }")["__schema"]
    schema_fields = {f["name"] for kind in roots.values() for f in kind["fields"]}
    assert operations <= schema_fields | {"multiple", "invalid", "other", "__schema", "__type", "__typename"}


@pytest.mark.parametrize(("document", "name", "expected"), [
    ("query Alice_is_pregnant { viewer { tenant } }", None, {"viewer"}),
    ("{ a: viewer { tenant } b: viewer { keyId } }", None, {"viewer"}),
    ("query A { viewer { tenant } } mutation B { remember(input: {userId: \"u\", text: \"t\"}) { id } }", "B",
     {"remember"}),
    ("query A { ...F ... on Query { apiKeys { id } } } fragment F on Query { viewer { tenant } ...F }", None,
     {"viewer", "apiKeys"}),
    ("query A { viewer { tenant } }", "Missing", set()),
])
def test_root_fields_of_an_operation(document: str, name: str | None, expected: set[str]) -> None:
    assert root_fields(parse(document), name) == expected
    assert root_fields(None, name) == set()
