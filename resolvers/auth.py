"""Who is calling: the API key a request presents (header `X-API-Key`, or `Authorization: Bearer`),
verified into a Principal (its tenant). For every HTTP route that serves tenant data, not only /graphql.

HTTP answers for a request without a valid key: 401 with a GraphQL-shaped JSON body whose
extensions.code is UNAUTHENTICATED (and `WWW-Authenticate: Bearer`); 503 UNAVAILABLE when Neo4j cannot
be asked whether the key is valid.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Mapping

from cross_web import HTTPException

from bmam.container import Container
from bmam.usecases.keys import UNAUTHENTICATED_MESSAGE, Principal
from graph.errors import StoreUnavailable, Unauthenticated


class ApiError(HTTPException):
    """An HTTP-level refusal with a GraphQL error code (answered as JSON by the GraphQL view)."""

    def __init__(self, status_code: int, code: str, reason: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status_code, reason)
        self.code = code
        self.headers = dict(headers or {})


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The API key of an HTTP request: X-API-Key, else Authorization: Bearer (the API and the MCP face)."""
    key = headers.get("x-api-key")
    if key and key.strip():
        return key.strip()
    return bearer_token(headers)


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of `Authorization: Bearer <token>`, if any."""
    scheme, _, token = (headers.get("authorization") or "").strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def metrics_token_matches(headers: Mapping[str, str], expected: str) -> bool:
    """Whether the request presents the operator's /metrics token (`Authorization: Bearer`). Compared as
    SHA-256 digests in constant time: neither the bytes that match nor the token's length show in the timing."""
    presented = bearer_token(headers)
    if presented is None:
        return False
    return hmac.compare_digest(hashlib.sha256(presented.encode()).digest(), hashlib.sha256(expected.encode()).digest())


async def authenticate(container: Container, key: str | None) -> Principal:
    """The principal of a presented key, or ApiError 401 / 503."""
    keys = container.keys
    cached = keys.cached(key) if key else None
    if cached is not None:
        return cached
    try:
        return await asyncio.to_thread(keys.authenticate, key)
    except Unauthenticated as exc:
        raise ApiError(401, "UNAUTHENTICATED", UNAUTHENTICATED_MESSAGE,
                       {"WWW-Authenticate": 'Bearer realm="bmam"'}) from exc
    except StoreUnavailable as exc:
        raise ApiError(503, "UNAVAILABLE", exc.message, {"Retry-After": "5"}) from exc
