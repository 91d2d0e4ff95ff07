"""POST /import's minimum upload rate (real Neo4j, the real app served by uvicorn, small settings so each test
takes seconds): an upload holds the server's one import slot while its body arrives, and a client sending a few
bytes now and then, each piece within the idle timeout, held it for ever (every other tenant's upload was 503).
Past BMAM_EXPORT__UPLOAD_GRACE_S an upload arriving under BMAM_EXPORT__UPLOAD_MIN_BYTES_PER_S on average is 408,
and so is one sending nothing at all, at the grace or the idle timeout (BMAM_EXPORT__UPLOAD_IDLE_S), whichever
comes first. The slow clients are raw sockets, so they trickle exactly as told."""

from __future__ import annotations

import http.client
import json
import select
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from tests.ops_support import served

GRACE_S = 1.0
MIN_RATE = 1000  # bytes/s: the trickles below send 10 and 200, the normal uploads ~10,000 and more
IDLE_S = 5.0  # longer than the grace: a silent client of RATE_SERVER is cut by the rate check
WITHIN_S = 10.0  # a generous bound on when a refusal arrives (the settings cut at 1 s)


@dataclass(frozen=True)
class Server:
    url: str
    key: str
    tenant: str


@contextmanager
def _server(container: Container, **export: Any) -> Iterator[Server]:
    """The real app on the same Neo4j with a container of its own (the app closes it when it stops), its export
    settings updated with `export`."""
    from resolvers.app import create_app

    base = container.settings
    own = Container(base.model_copy(update={"export": base.export.model_copy(update=export)}))
    tenant = f"test-rate-{uuid.uuid4().hex[:10]}"
    key = own.keys.create(tenant, "pytest").secret
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app) as url:
        yield Server(url, key, tenant)


@pytest.fixture(scope="module")
def rate_server(container: Container) -> Iterator[Server]:
    with _server(container, upload_idle_s=IDLE_S, upload_grace_s=GRACE_S, upload_min_bytes_per_s=MIN_RATE) as s:
        yield s


@pytest.fixture(scope="module")
def data(container: Container, rate_server: Server) -> bytes:
    """A Turtle export of a user holding one memory (a few KB)."""
    user = _user()
    container.memories.remember(rate_server.tenant, RememberRequest(user_id=user, text=f"我对花生过敏 {user}",
                                                                    type="FACTUAL"))
    return b"".join(container.export.export_rdf(rate_server.tenant, user, "ttl"))


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    after_s: float  # from the end of the request's headers

    @property
    def code(self) -> str:
        return str(self.body["errors"][0]["extensions"]["code"])

    @property
    def message(self) -> str:
        return str(self.body["errors"][0]["message"])


@contextmanager
def _trickle(server: Server, piece: bytes, every_s: float) -> Iterator[Answer]:
    """POST /import of a file announced as 100,000 bytes, of which `piece` is sent every `every_s` (nothing if
    empty) until the server answers; the answer. The connection stays open for the block (the client has not
    hung up; the server must not need it to)."""
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=WITHIN_S)
    try:
        sock.sendall(f"POST /import/{_user()}.ttl HTTP/1.1\r\nHost: x\r\nX-API-Key: {server.key}\r\n"
                     "Content-Length: 100000\r\n\r\n".encode())
        started = time.monotonic()
        while not select.select([sock], [], [], every_s)[0]:  # an answer is readable
            if time.monotonic() - started > WITHIN_S:
                pytest.fail(f"no answer within {WITHIN_S} s: the slow upload still holds the import slot")
            if piece:
                try:
                    sock.sendall(piece)
                except OSError:  # the server answered and closed meanwhile: its answer is still to read
                    break
        after_s = time.monotonic() - started
        response = http.client.HTTPResponse(sock)
        response.begin()
        yield Answer(response.status, json.loads(response.read()), after_s)
    finally:
        sock.close()


def _post(server: Server, data: Any) -> requests.Response:
    return requests.post(f"{server.url}/import/{_user()}.ttl", data=data, headers={"X-API-Key": server.key},
                         timeout=120)


def _imported_one_memory(resp: requests.Response) -> bool:
    return resp.status_code == 200 and {c["kind"]: c["created"] for c in resp.json()["counts"]}["Memory"] == 1


def test_a_trickling_upload_is_408_and_the_next_upload_goes_through(rate_server: Server, data: bytes) -> None:
    """3 bytes every 0.3 s, each piece well within the idle timeout: cut once the grace has passed, and the slot is
    free at once (a normal upload goes through while the trickling client is still connected)."""
    with _trickle(rate_server, b"# x", 0.3) as answer:
        assert answer.status == 408 and answer.code == "BAD_USER_INPUT", answer
        assert "arriving too slowly" in answer.message and "BMAM_EXPORT__UPLOAD_MIN_BYTES_PER_S" in answer.message
        assert f"under the {MIN_RATE} bytes/s" in answer.message, answer.message
        assert answer.after_s < WITHIN_S
        assert _imported_one_memory(_post(rate_server, data))


def test_the_minimum_rate_tells_a_normal_upload_from_a_slow_one_sending_alike(
        rate_server: Server, data: bytes) -> None:
    """The same pieces every 0.2 s for longer than the grace: ~10,000 bytes/s goes through, ~200 bytes/s is 408."""
    padded = data + b"\n# " + b"x" * (20_000 - len(data)) + b"\n"  # a comment: the file is good, only longer

    def pieces() -> Iterator[bytes]:  # chunked, 2,000 bytes every 0.2 s: ~2 s, twice the grace
        for i in range(0, len(padded), 2000):
            yield padded[i:i + 2000]
            time.sleep(0.2)

    assert _imported_one_memory(_post(rate_server, pieces()))
    with _trickle(rate_server, b"#" * 40, 0.2) as slow:
        assert slow.status == 408 and slow.code == "BAD_USER_INPUT" and "arriving too slowly" in slow.message, slow


def test_an_upload_sending_nothing_after_its_headers_is_cut_at_the_grace(rate_server: Server, data: bytes) -> None:
    """Nothing ever arrives: the wait for the first piece ends with the grace (1 s), not the idle timeout (5 s)."""
    with _trickle(rate_server, b"", 1.0) as answer:
        assert answer.status == 408 and answer.code == "BAD_USER_INPUT", answer
        assert "0 bytes in" in answer.message and "BMAM_EXPORT__UPLOAD_MIN_BYTES_PER_S" in answer.message
        assert answer.after_s < WITHIN_S
        assert _imported_one_memory(_post(rate_server, data))


def test_an_upload_sending_nothing_is_cut_at_the_idle_timeout_when_it_comes_first(
        container: Container, rate_server: Server, data: bytes) -> None:
    """The idle timeout is a setting now: 1 s, before a 60 s grace, cuts the silent client with its own message."""
    with (_server(container, upload_idle_s=1.0, upload_grace_s=60.0, upload_min_bytes_per_s=MIN_RATE) as server,
          _trickle(server, b"", 1.0) as answer):
        assert answer.status == 408 and answer.code == "BAD_USER_INPUT", answer
        assert "no part of the file arrived for 1 s" in answer.message, answer.message
        assert "BMAM_EXPORT__UPLOAD_IDLE_S" in answer.message and answer.after_s < WITHIN_S
        assert _imported_one_memory(_post(server, data))
