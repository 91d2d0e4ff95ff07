"""Test fixtures: the real Neo4j server (started if needed), a container, a tenant per test, a live API."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from bmam.client import BmamClient, ClientConfig
from bmam.container import Container, ensure_neo4j
from bmam.settings import Settings, load_settings
from graph.model import Scope
from tests.ops_support import served
from tests.store_support import NumberingStore


@pytest.fixture(scope="session")
def settings() -> Settings:
    # No plan warm-up in the apps tests start: a background rehearsal on some earlier test's user would add
    # its statements to the shared store's timer (tests/test_warm_up.py runs it on purpose). No event relay
    # either, for the same reason (its polls); tests/test_event_relay.py drives relays step by step, and the
    # servers tests/test_workers.py starts relay as deployed.
    base = load_settings()
    return base.model_copy(update={"api": base.api.model_copy(update={"warm_up_plans": False}),
                                   "deployment": base.deployment.model_copy(update={"events": "local"})})


@pytest.fixture(scope="session")
def container(settings: Settings) -> Iterator[Container]:
    """One container for the session: the real Neo4j (local unless NEO4J_URI), schema applied."""
    ensure_neo4j(settings)
    c = Container(settings)
    c.migrate()
    yield c
    c.close()


@pytest.fixture
def tenant() -> str:
    """Every test writes under its own tenant, so tests never see each other's data."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def scope(tenant: str) -> Scope:
    return Scope(tenant=tenant, user_id="alice")


@pytest.fixture(scope="session")
def api_url(container: Container) -> Iterator[str]:
    """uvicorn serving the real app on a free loopback port, for end-to-end tests over HTTP."""
    from resolvers.app import create_app

    app = create_app(container, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app, ws_max_size=container.settings.limits.max_body_bytes) as url:
        yield url


@pytest.fixture(scope="session")
def api_tenant() -> str:
    """The tenant (app) the session's API key belongs to: end-to-end tests write under it."""
    return f"test-api-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def api_key(container: Container, api_tenant: str) -> str:
    """A real API key of the session's test tenant, created once (stored hashed like any other)."""
    return container.keys.create(api_tenant, "pytest").secret


@pytest.fixture
def make_api_key(container: Container) -> Callable[[str], str]:
    """Create a real API key for any tenant (for tests that need two apps)."""
    return lambda tenant: container.keys.create(tenant, "pytest").secret


@pytest.fixture
def client(api_url: str, api_key: str) -> Iterator[BmamClient]:
    """The project's gql client against the live server: how end-to-end tests talk to bmam."""
    c = BmamClient(ClientConfig(url=api_url, api_key=api_key))
    yield c
    c.close()


@pytest.fixture
def numbering(container: Container) -> Iterator[Callable[[list[str]], NumberingStore]]:
    """NumberingStore(calls) on the tests' Neo4j, closed after the test."""
    stores: list[NumberingStore] = []

    def make(calls: list[str]) -> NumberingStore:
        stores.append(NumberingStore(container.store.config, calls))
        return stores[-1]

    yield make
    for store in stores:
        store.close()
