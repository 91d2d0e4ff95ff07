"""The sync client's GraphQL-over-HTTP transport for gql: one keep-alive connection through the standard
library's http.client.

Why not gql's requests transport: requests spent ~0.3 ms of each request in its own machinery (proxy
settings read from the whole environment on every call, adapters, urllib3's pool), a quarter of a local
recall's HTTP cost (BENCHMARKS.md "Recall latency"). Behaviour kept from it: a JSON answer with "data" or
"errors" is a result whatever the status (gql raises TransportQueryError for errors); any other answer
with a status of 400 or more is TransportServerError(status), else TransportProtocolError; a connection
that fails is TransportConnectionFailed with the socket error as its cause. Not kept: proxies from the
environment (HTTP_PROXY ...) and requests' CA bundle (HTTPS verifies with the system's certificates).
A request is never sent twice: a kept-alive connection the server has closed is replaced before sending
(as urllib3 does), never retried after.
Bodies are UTF-8 JSON (`encode_json`, Content-Type application/json; charset=utf-8): a CJK character costs
3 bytes, not the 6 of a \\uXXXX escape, which matters against the server's body limit (1 MiB by default).
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

from gql import GraphQLRequest
from gql.transport import Transport
from gql.transport.exceptions import (
    TransportClosed,
    TransportConnectionFailed,
    TransportProtocolError,
    TransportServerError,
)
from graphql import ExecutionResult

CONTENT_TYPE = "application/json; charset=utf-8"


def encode_json(value: Any) -> bytes:
    """value as the bytes of a request body: compact UTF-8 JSON, non-ASCII characters as themselves. A lone
    surrogate (which a JSON file may spell as \\ud800) has no UTF-8 form: it is sent as its JSON escape
    (backslashreplace writes exactly that, and it only occurs inside JSON strings), and the server judges it.
    The size of a list's body is the sum of its items' (`bmam remote ingest` counts on it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")


class HttpTransport(Transport):
    """POSTs each request as JSON to url on one kept-alive connection (a lock makes it one request at a
    time, as gql's sync session is)."""

    def __init__(self, url: str, headers: dict[str, str], timeout_s: float) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._headers = {**headers, "Content-Type": CONTENT_TYPE, "Accept": "application/json"}
        self._timeout_s = timeout_s
        self._connection: http.client.HTTPConnection | None = None
        self.response_headers: http.client.HTTPMessage | None = None  # the last answer's (gql's name for them)
        self.response_status: int | None = None  # the last answer's HTTP status (None: no answer read)
        self._open = False
        self._lock = threading.Lock()

    def connect(self) -> None:
        self._open = True

    def close(self) -> None:
        with self._lock:
            self._open = False
            self._drop()

    def execute(self, request: GraphQLRequest, *args: Any, **kwargs: Any) -> ExecutionResult:
        body = encode_json(request.payload)
        with self._lock:
            if not self._open:
                raise TransportClosed("Transport is not connected")
            self.response_status = None
            try:
                connection = self._usable()
                connection.request("POST", self._path, body=body, headers=self._headers)
                response = connection.getresponse()
                status, text = response.status, response.read()
                self.response_headers, self.response_status = response.headers, status
                if response.will_close:
                    self._drop()
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                raise TransportConnectionFailed(str(exc) or type(exc).__name__) from exc
        return _result(status, text)

    def _usable(self) -> http.client.HTTPConnection:
        """The kept-alive connection, or a new one when there is none or the server has closed it (an idle
        connection the peer closed reads as ready: EOF)."""
        connection = self._connection
        if connection is not None and (connection.sock is None or _closed_by_peer(connection.sock)):
            self._drop()
            connection = None
        if connection is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            connection = cls(self._host, self._port, timeout=self._timeout_s)
            connection.connect()
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._connection = connection
        return connection

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _closed_by_peer(sock: socket.socket) -> bool:
    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable)


def _result(status: int, text: bytes) -> ExecutionResult:
    """The GraphQL result in an answer (see the module's docstring for what raises)."""
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or ("data" not in answer and "errors" not in answer):
        shown = text[:500].decode("utf-8", "replace")
        if status >= 400:
            raise TransportServerError(f"{status} answer: {shown}", status)
        raise TransportProtocolError(f"Server did not return a GraphQL result: {shown}")
    return ExecutionResult(errors=answer.get("errors"), data=answer.get("data"), extensions=answer.get("extensions"))
