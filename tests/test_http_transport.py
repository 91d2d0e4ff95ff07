"""The sync client's HTTP transport (bmam/http_transport.py) against a real local HTTP server answering
what a GraphQL server may answer: results, errors, non-GraphQL answers, closed keep-alive connections."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from gql.transport.exceptions import TransportConnectionFailed, TransportProtocolError

from bmam.client import BmamClient, BmamClientError, ClientConfig


class _Answers(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless an answer says otherwise
    received: list[dict[str, object]] = []  # noqa: RUF012 - the test server's log, reset per test
    connections: set[int] = set()  # noqa: RUF012

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.received.append({"body": body, "key": self.headers.get("X-API-Key")})
        self.connections.add(self.client_address[1])
        mode = body.get("variables", {}).get("mode", "ok")
        if mode == "ok":
            self._send(200, json.dumps({"data": {"echo": body["variables"]}, "extensions": {"t": 1}}))
        elif mode == "refused":
            self._send(401, json.dumps({"errors": [{"message": "no key", "extensions": {"code": "UNAUTHENTICATED"}}]}))
        elif mode == "too-large":
            self._send(413, "request body too large", content_type="text/plain")
        elif mode == "not-graphql":
            self._send(200, json.dumps({"hello": 1}))
        elif mode == "hang-up":  # answers, then closes the connection without saying so
            self._send(200, json.dumps({"data": {"echo": body["variables"]}}))
            self.close_connection = True

    def _send(self, status: int, text: str, content_type: str = "application/json") -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Bmam-Worker", "4242")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Answers.received = []
    _Answers.connections = set()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


QUERY = "query($mode: String) { echo }"


def test_results_errors_and_non_graphql_answers(server: str) -> None:
    client = BmamClient(ClientConfig(url=server, api_key="k1"))
    answer = client.execute_full(QUERY, {"mode": "ok", "n": 1})
    assert answer.data == {"echo": {"mode": "ok", "n": 1}} and answer.extensions == {"t": 1}
    assert _Answers.received[-1] == {"body": {"query": QUERY, "variables": {"mode": "ok", "n": 1}}, "key": "k1"}
    assert client.served_by() == "4242"  # the answer's headers are kept
    with pytest.raises(BmamClientError) as refused:  # a GraphQL answer with a 401: its error's code
        client.execute(QUERY, {"mode": "refused"})
    assert refused.value.code == "UNAUTHENTICATED"
    with pytest.raises(BmamClientError) as too_large:  # not GraphQL, status >= 400: the status
        client.execute(QUERY, {"mode": "too-large"})
    assert too_large.value.code == "LIMIT_EXCEEDED"
    with pytest.raises(TransportProtocolError):
        client.execute(QUERY, {"mode": "not-graphql"})
    assert len(_Answers.received) == 4 and len(_Answers.connections) == 1  # one kept-alive connection
    client.close()


def test_a_connection_the_server_closed_is_replaced_and_nothing_is_sent_twice(server: str) -> None:
    """An idle kept-alive connection the server has closed (as uvicorn does after its keep-alive timeout) is
    seen closed before the next request, which goes on a new connection, once."""
    client = BmamClient(ClientConfig(url=server))
    for i in range(3):
        assert client.execute(QUERY, {"mode": "hang-up", "i": i}) == {"echo": {"mode": "hang-up", "i": i}}
        time.sleep(0.2)  # idle: the server's close has arrived
    assert [r["body"]["variables"]["i"] for r in _Answers.received] == [0, 1, 2]  # type: ignore[index]
    assert len(_Answers.connections) == 3
    client.close()


def test_a_refused_connection_fails_with_its_cause() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = BmamClient(ClientConfig(url=f"http://127.0.0.1:{port}", timeout_s=2))
    with pytest.raises(TransportConnectionFailed) as failed:
        client.execute(QUERY, {"mode": "ok"})
    assert isinstance(failed.value.__cause__, ConnectionRefusedError)
    client.close()
