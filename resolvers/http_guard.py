"""ASGI middleware in front of /graphql: refuses malformed HTTP before GraphQL parses anything.

- methods other than GET and POST: 405;
- POST bodies other than `application/json` (text/plain, forms, multipart): 415;
- a body over the limit (1 MiB): 413, from Content-Length before reading, or while counting a
  streamed (chunked) body, so nothing over the limit is ever buffered or parsed;
- a body (or GET query string) that is not UTF-8, not JSON, nested too deeply to parse, a JSON batch
  (an array), or has a non-string query, non-object variables or extensions: 400.
Every refusal answers a GraphQL-shaped JSON body, `{"errors": [{"message", "extensions": {"code"}}]}`,
so clients (gql) report it like any other error; codes are LIMIT_EXCEEDED for 413 and BAD_USER_INPUT
otherwise. What passes reaches the app with the body replayed unchanged.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Collection
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

JSON_TYPES = frozenset({"application/json"})
_DRAIN_LIMIT = 64 * 1024 * 1024  # after a 413, read (and drop) at most this much so the client sees the answer
_DRAIN_SECONDS = 5.0  # and for at most this long


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def error_body(message: str, code: str) -> bytes:
    return json.dumps({"errors": [{"message": message, "extensions": {"code": code}}]}).encode()


async def send_error(send: Send, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
    body = error_body(message, code)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def check_request_json(data: Any) -> None:
    """The GraphQL-over-HTTP shape: one object with a string query and object-or-null variables."""
    if isinstance(data, list):
        raise Refused(400, "BAD_USER_INPUT", "batched requests (a JSON array) are not supported")
    if not isinstance(data, dict):
        raise Refused(400, "BAD_USER_INPUT", "the request body must be a JSON object")
    if not isinstance(data.get("query"), str):
        raise Refused(400, "BAD_USER_INPUT", "the request must carry a GraphQL document as a string `query`")
    for name in ("variables", "extensions"):
        if not isinstance(data.get(name), (dict, type(None))):
            raise Refused(400, "BAD_USER_INPUT", f"`{name}` must be a JSON object or null")
    if not isinstance(data.get("operationName"), (str, type(None))):
        raise Refused(400, "BAD_USER_INPUT", "`operationName` must be a string or null")


def parse_json(raw: bytes | str, what: str) -> Any:
    try:
        return json.loads(raw)
    except RecursionError as exc:
        raise Refused(400, "BAD_USER_INPUT", f"{what} is nested too deeply") from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int too long
        raise Refused(400, "BAD_USER_INPUT", f"{what} is not valid JSON") from exc


def check_query_string(raw: bytes, max_bytes: int) -> None:
    if len(raw) > max_bytes:
        raise Refused(414, "LIMIT_EXCEEDED", f"the query string is over {max_bytes} bytes")
    try:
        text = raw.decode("ascii")
        for part in text.split("&"):
            unquote_to_bytes(part.replace("+", " ")).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, "BAD_USER_INPUT", "the query string is not valid UTF-8") from exc
    params = dict(parse_qsl(text, keep_blank_values=True))
    for name in ("variables", "extensions"):
        if params.get(name):
            value = parse_json(params[name], f"`{name}`")
            if not isinstance(value, (dict, type(None))):
                raise Refused(400, "BAD_USER_INPUT", f"`{name}` must be a JSON object or null")


class HttpGuard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        paths: Collection[str] = ("/graphql",),
        max_body_bytes: int = 1024 * 1024,
        on_refused: Callable[[int], None] | None = None,
    ) -> None:
        self.app = app
        self.paths = frozenset(paths)
        self.max_body_bytes = max_body_bytes
        self.on_refused = on_refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") not in self.paths:
            await self.app(scope, receive, send)
            return
        try:
            body = await self._check(scope, receive)
        except Refused as refused:
            if self.on_refused:
                self.on_refused(refused.status)
            await send_error(send, refused.status, refused.code, refused.message, refused.headers)
            if refused.status == 413:
                await drain_body(receive)
            return
        if body is None:
            await self.app(scope, receive, send)
            return

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _check(self, scope: Scope, receive: Receive) -> bytes | None:
        """None for a GET that may pass as is; the whole body for a POST that may pass."""
        method = scope["method"]
        if method == "GET":
            check_query_string(scope.get("query_string", b""), self.max_body_bytes)
            return None
        if method != "POST":
            raise Refused(405, "BAD_USER_INPUT", "GraphQL is served over GET (queries) and POST only",
                          {"Allow": "GET, POST"})
        headers = Headers(scope=scope)
        content_type, _, params = headers.get("content-type", "").partition(";")
        if content_type.strip().lower() not in JSON_TYPES:
            raise Refused(415, "BAD_USER_INPUT", "POST bodies must be application/json")
        charset = params.strip().lower()
        if charset and charset.replace(" ", "") not in ("charset=utf-8", "charset=\"utf-8\""):
            raise Refused(415, "BAD_USER_INPUT", "JSON bodies must be UTF-8")
        length = headers.get("content-length")
        if length is not None:
            if not length.strip().isdigit():
                raise Refused(400, "BAD_USER_INPUT", "bad Content-Length")
            if int(length) > self.max_body_bytes:
                raise Refused(413, "LIMIT_EXCEEDED", f"the request body is over {self.max_body_bytes} bytes")
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refused(400, "BAD_USER_INPUT", "the client went away")
            body += message.get("body", b"")
            more = bool(message.get("more_body", False))
            if len(body) > self.max_body_bytes:
                raise Refused(413, "LIMIT_EXCEEDED", f"the request body is over {self.max_body_bytes} bytes")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused(400, "BAD_USER_INPUT", "the request body is not valid UTF-8") from exc
        check_request_json(parse_json(text, "the request body"))
        return bytes(body)


async def drain_body(receive: Receive, *, within_s: float = _DRAIN_SECONDS) -> None:
    """Read what is left of a refused body (up to a bound in bytes and in time: a client that stops sending is
    not waited for), so the client gets to read the refusal: a 413, or any answer given before the body was read
    (POST /import, resolvers/export.py)."""
    seen = 0
    try:
        async with asyncio.timeout(within_s):
            while seen < _DRAIN_LIMIT:
                message = await receive()
                if message["type"] != "http.request":
                    return
                seen += len(message.get("body", b""))
                if not message.get("more_body", False):
                    return
    except TimeoutError:
        return
