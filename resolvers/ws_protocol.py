"""The websocket face of /graphql: graphql-transport-ws only (what the README and the client speak; the
legacy graphql-ws protocol is not served), with each message's shape checked before Strawberry reads it:
a message that is not an object, an id that is not a string (subscribe, complete), or a subscribe payload
that is not an object with a string query, an object or null for variables and extensions and a string or
null for operationName, closes the socket with 4400 (the protocol's "invalid message") instead of a
TypeError in Strawberry's handler (a traceback in the log, the socket dropped with 1006) or an internal
error."""

from __future__ import annotations

from typing import Any

from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler

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
        await super().handle_message(message)
