"""BmamClient.metrics() refused by the server raises BmamClientError with a code, as every other client call does
(it raised a bare requests.HTTPError on 401)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.settings import Settings
from resolvers.app import create_app
from tests.ops_support import served

TOKEN = "scrape-" + "y" * 24


@pytest.fixture
def production_url(settings: Settings, container: Container) -> Iterator[str]:
    """A real server in the production profile with an operator's metrics token (as tests/test_metrics_access.py
    starts one)."""
    chosen = settings.model_copy(deep=True)
    chosen.api.profile = "production"
    chosen.api.metrics_token = SecretStr(TOKEN)
    c = Container(chosen)
    try:
        app = create_app(c, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
        with served(app) as url:
            yield url
    finally:
        c.close()


@pytest.mark.parametrize("token", [None, "", TOKEN[:-1], TOKEN + "x", "not-the-token"])
def test_metrics_without_the_right_token_is_unauthenticated(production_url: str, token: str | None) -> None:
    client = BmamClient(ClientConfig(url=production_url))
    with pytest.raises(BmamClientError) as refused:
        client.metrics(token=token)
    assert refused.value.code == "UNAUTHENTICATED"
    assert refused.value.status == 401
    assert refused.value.message  # the server's reason, not an empty line
    assert "bmam_" not in str(refused.value)


def test_metrics_with_the_token_is_the_exposition_text(production_url: str) -> None:
    text = BmamClient(ClientConfig(url=production_url)).metrics(token=TOKEN)
    assert isinstance(text, str)
    assert "bmam_neo4j_up" in text


def test_a_status_without_bmams_json_keeps_the_clients_status_codes() -> None:
    """A proxy's page (no JSON errors) in front of /metrics: the status mapped as the rest of the client maps it,
    HTTP_<status> for the others."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    statuses = {"/a/metrics": 401, "/b/metrics": 503, "/c/metrics": 502}

    async def page(request: Request) -> PlainTextResponse:
        return PlainTextResponse("<html>proxy says no</html>", status_code=statuses[request.url.path])

    app = Starlette(routes=[Route(path, page) for path in statuses])
    with served(app) as url:
        codes = []
        for prefix in ("a", "b", "c"):
            with pytest.raises(BmamClientError) as refused:
                BmamClient(ClientConfig(url=f"{url}/{prefix}")).metrics()
            assert "proxy says no" in refused.value.message
            codes.append((refused.value.code, refused.value.status))
    assert codes == [("UNAUTHENTICATED", 401), ("UNAVAILABLE", 503), ("HTTP_502", 502)]
