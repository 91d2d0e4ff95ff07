"""POST /import's slots per tenant (real Neo4j, the real app served by uvicorn): an upload holds an import slot while
its body arrives, and at the minimum rate (BMAM_EXPORT__UPLOAD_MIN_BYTES_PER_S, 16 KiB/s) a 256 MiB file holds it for
~4.5 h. With one process-wide slot that tenant stopped every other tenant's imports; now a tenant runs at most
BMAM_EXPORT__MAX_CONCURRENT_IMPORTS_PER_TENANT imports at once (503 UNAVAILABLE past it, naming this app's imports)
and BMAM_EXPORT__MAX_CONCURRENT_IMPORTS stays the bound of them all. The slow client is a raw socket that sends its
headers and a piece of the file, then waits, still connected, until the test lets it finish."""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from bmam.container import Container
from bmam.usecases.keys import Principal
from bmam.usecases.memories import RememberRequest
from tests.ops_support import served

WITHIN_S = 30.0


@dataclass(frozen=True)
class Tenant:
    name: str
    key: str


@dataclass(frozen=True)
class Slots:
    url: str
    a: Tenant
    b: Tenant
    authenticated: dict[str, threading.Event]  # per tenant: set once the server has checked one of its keys


@contextmanager
def _slots_server(container: Container, monkeypatch: pytest.MonkeyPatch, *, total: int) -> Iterator[Slots]:
    """The real app on the same Neo4j, its own container (closed by the app when it stops) allowing `total` imports
    at once and one per tenant, no rate check within the test (a 60 s grace), two tenants with a key each."""
    from resolvers.app import create_app

    base = container.settings
    export = base.export.model_copy(update={"max_concurrent_imports": total, "max_concurrent_imports_per_tenant": 1,
                                            "upload_grace_s": 60.0, "upload_idle_s": 60.0})
    own = Container(base.model_copy(update={"export": export}))
    run = uuid.uuid4().hex[:8]
    a, b = (Tenant(name, own.keys.create(name, "pytest").secret) for name in (f"test-slots-a-{run}",
                                                                               f"test-slots-b-{run}"))
    authenticated = {a.name: threading.Event(), b.name: threading.Event()}
    check = own.keys.authenticate

    def checked(presented: str | None) -> Principal:
        """The key checked as the server does, and the tenant's event set: the route takes its import slot right
        after (nothing it awaits comes between)."""
        principal = check(presented)
        authenticated[principal.tenant].set()
        return principal

    monkeypatch.setattr(own.keys, "authenticate", checked)
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app) as url:
        yield Slots(url, a, b, authenticated)


@pytest.fixture(scope="module")
def data(container: Container) -> bytes:
    """A Turtle export of a user holding one memory (a few KB)."""
    tenant, user = f"test-slots-src-{uuid.uuid4().hex[:8]}", _user()
    container.memories.remember(tenant, RememberRequest(user_id=user, text=f"我对花生过敏 {user}", type="FACTUAL"))
    return b"".join(container.export.export_rdf(tenant, user, "ttl"))


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


class SlowUpload:
    """POST /import of `data` over a raw socket: the headers and the first bytes now, the rest when told."""

    def __init__(self, url: str, tenant: Tenant, data: bytes) -> None:
        host, port = url.removeprefix("http://").split(":")
        self._sock = socket.create_connection((host, int(port)), timeout=WITHIN_S)
        self._data = data
        self._sock.sendall(f"POST /import/{_user()}.ttl HTTP/1.1\r\nHost: x\r\nX-API-Key: {tenant.key}\r\n"
                           f"Content-Length: {len(data)}\r\n\r\n".encode() + data[:10])

    def answered(self) -> bool:
        return bool(select.select([self._sock], [], [], 0)[0])

    def finish(self) -> tuple[int, dict[str, Any]]:
        """The rest of the file sent, and the server's answer."""
        self._sock.sendall(self._data[10:])
        response = http.client.HTTPResponse(self._sock)
        response.begin()
        return response.status, json.loads(response.read())

    def close(self) -> None:
        self._sock.close()


@contextmanager
def _holding(slots: Slots, tenant: Tenant, data: bytes) -> Iterator[SlowUpload]:
    """A slow upload of `tenant`, holding its import slot for the block."""
    upload = SlowUpload(slots.url, tenant, data)
    try:
        assert slots.authenticated[tenant.name].wait(WITHIN_S), "the slow upload never reached the server"
        yield upload
    finally:
        upload.close()


def _post(slots: Slots, tenant: Tenant, data: bytes) -> requests.Response:
    return requests.post(f"{slots.url}/import/{_user()}.ttl", data=data, headers={"X-API-Key": tenant.key},
                         timeout=120)


def _error(resp: requests.Response) -> tuple[int, str, str]:
    error = resp.json()["errors"][0]
    return resp.status_code, str(error["extensions"]["code"]), str(error["message"])


def _imported_one_memory(resp: requests.Response) -> bool:
    return resp.status_code == 200 and {c["kind"]: c["created"] for c in resp.json()["counts"]}["Memory"] == 1


def test_a_tenant_uploading_slowly_holds_only_its_own_slot(container: Container, data: bytes,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Two slots in all, one per tenant: while A's upload trickles, B's import goes through, A's second upload is
    503 UNAVAILABLE with Retry-After naming this app's imports in progress, and once A's upload ends (imported)
    A's next one goes through."""
    with _slots_server(container, monkeypatch, total=2) as slots, _holding(slots, slots.a, data) as slow:
        assert _imported_one_memory(_post(slots, slots.b, data))
        refused = _post(slots, slots.a, data)
        status, code, message = _error(refused)
        assert (status, code) == (503, "UNAVAILABLE") and refused.headers["retry-after"] == "5", refused.text
        assert "this app's imports in progress" in message, message
        assert "BMAM_EXPORT__MAX_CONCURRENT_IMPORTS_PER_TENANT" in message, message
        assert not slow.answered(), "the slow upload was answered before it finished sending"
        status, body = slow.finish()
        assert status == 200 and {c["kind"]: c["created"] for c in body["counts"]}["Memory"] == 1, body
        assert _imported_one_memory(_post(slots, slots.a, data))


def test_the_process_cap_still_bounds_every_tenant(container: Container, data: bytes,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """One slot in all: A's slow upload holding it, B is refused by the process cap (its own message and setting),
    not by the tenant cap, and B goes through once A's upload ended."""
    with _slots_server(container, monkeypatch, total=1) as slots, _holding(slots, slots.a, data) as slow:
        refused = _post(slots, slots.b, data)
        status, code, message = _error(refused)
        assert (status, code) == (503, "UNAVAILABLE") and refused.headers["retry-after"] == "5", refused.text
        assert "another import is running in this server;" in message, message
        assert "BMAM_EXPORT__MAX_CONCURRENT_IMPORTS)" in message and "this app" not in message, message
        status, body = slow.finish()
        assert status == 200 and {c["kind"]: c["created"] for c in body["counts"]}["Memory"] == 1, body
        assert _imported_one_memory(_post(slots, slots.b, data))
