"""The websocket face of /graphql: graphql-transport-ws only (what the README and the client speak; the
legacy graphql-ws protocol is not served), with each message's shape checked before Strawberry reads it:
a message that is not an object, an id that is not a string (subscribe, complete), or a subscribe payload
that is not an object with a string query, an object or null for variables and extensions and a string or
null for operationName, closes the socket with 4400 (the protocol's "invalid message") instead of a
TypeError in Strawberry's handler (a traceback in the log, the socket dropped with 1006) or an internal
error.

One connection carries many operations (queries and mutations too), all on the one context Strawberry made
when it opened. So each new operation first asks whether the connection's key is still unrevoked (a revoked
key's socket is closed with 4403, as one that never was valid) and gets DataLoaders of its own (a loader
caches what it loaded: kept for the connection's life it answered nested fields as they were at its first
operation)."""

from __future__ import annotations

import asyncio
from typing import Any

from graphql import GraphQLError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler

from graph.errors import StoreUnavailable
from resolvers.context import RequestContext

PROTOCOLS = (GRAPHQL_TRANSPORT_WS_PROTOCOL,)


def _well_formed(message: Any) -> bool:
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return False
    kind = message["type"]
    if kind in ("subscribe", "complete") and not isinstance(message.get("id"), str):
        return False
    if kind != "subscribe":
        return True
    payload = message.get("payload")
    return (isinstance(payload, dict) and isinstance(payload.get("query"), str)
            and _absent_or(payload, "variables", dict) and _absent_or(payload, "extensions", dict)
            and _absent_or(payload, "operationName", str))


def _absent_or(payload: dict[str, Any], key: str, kind: type) -> bool:
    """payload[key] missing, null, or of that type (0 or false is not an absent operationName)."""
    return payload.get(key) is None or isinstance(payload[key], kind)


class CheckedTransportWS(BaseGraphQLTransportWSHandler[RequestContext, None]):
    async def handle_message(self, message: Any) -> None:
        if not _well_formed(message):
            await self.handle_invalid_message("Failed to parse message")
            return
        if message["type"] == "subscribe" and self.connection_acknowledged:
            if not await self._key_still_valid(message["id"]):
                return
            self.context.reset_loaders()
        await super().handle_message(message)

    async def _key_still_valid(self, operation_id: str) -> bool:
        """Whether the key the connection opened with may still run an operation. Verified at connection_init
        only, a revoked key kept reading and writing for as long as its socket stayed open."""
        principal = self.context.principal
        if principal is None:  # not acknowledged without one (on_ws_connect): Strawberry closes it with 4401
            return True
        try:
            valid = await asyncio.to_thread(self.context.container.keys.still_valid, principal.key_id)
        except StoreUnavailable as exc:  # as HTTP's 503 before anything ran: this operation only, retry later
            error = GraphQLError(exc.message, extensions={"code": exc.code})
            await self.send_message({"id": operation_id, "type": "error", "payload": [error.formatted]})
            return False
        if not valid:
            await self.websocket.close(code=4403, reason="Forbidden")
        return valid
