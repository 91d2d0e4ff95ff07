"""The websocket face of /graphql: graphql-transport-ws only (what the README and the client speak; the
legacy graphql-ws protocol is not served), with each message's shape checked before Strawberry reads it:
a message that is not an object, or a subscribe whose id is not a string or whose payload is not an object
with a string query, closes the socket with 4400 (the protocol's "invalid message") instead of a TypeError
in Strawberry's handler (a traceback in the log, the socket dropped with 1006)."""

from __future__ import annotations

from typing import Any

from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler

from resolvers.context import RequestContext

PROTOCOLS = (GRAPHQL_TRANSPORT_WS_PROTOCOL,)


def _well_formed(message: Any) -> bool:
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return False
    if message["type"] != "subscribe":
        return True
    payload = message.get("payload")
    return (isinstance(message.get("id"), str) and isinstance(payload, dict)
            and isinstance(payload.get("query"), str)
            and isinstance(payload.get("variables") or {}, dict)
            and isinstance(payload.get("operationName") or "", str))


class CheckedTransportWS(BaseGraphQLTransportWSHandler[RequestContext, None]):
    async def handle_message(self, message: Any) -> None:
        if not _well_formed(message):
            await self.handle_invalid_message("Failed to parse message")
            return
        await super().handle_message(message)
