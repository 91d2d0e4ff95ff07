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
operation).

Open connections are capped per API key and per process (ConnectionCap; settings.api.max_ws_connections_per_key,
max_ws_connections): Strawberry caps the operations of one connection (100), not the connections, and 500
connections of one key with 100 subscriptions each slowed every request of every tenant to 0.5-4.9 s. A
connection over a cap is closed with 4429 and a reason before connection_ack; an acknowledged one gives its
place back when it ends, however it ends (closed, dropped, its key revoked)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ConnectionInitMessage

from graph.errors import StoreUnavailable
from resolvers.context import RequestContext

PROTOCOLS = (GRAPHQL_TRANSPORT_WS_PROTOCOL,)

# 429's code in the protocol's 4xxx range (graphql-ws clients take it as final, not one to reconnect at once).
TOO_MANY_CONNECTIONS = 4429
PER_KEY_REASON = "Too many connections for this API key"
TOTAL_REASON = "Too many connections to this server"


class TooManyConnections(Exception):
    """A connection over a cap: closed with TOO_MANY_CONNECTIONS and the reason, never acknowledged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class ConnectionSlot:
    """One acknowledged connection's place under the caps; released once, however often asked."""

    cap: ConnectionCap
    key_id: str
    released: bool = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.cap.give_back(self.key_id)


class ConnectionCap:
    """The open websocket connections of this process, per API key and in all. Used on the event loop only
    (connection_init and the handler's shutdown), so the counts need no lock."""

    def __init__(self, *, per_key: int, total: int) -> None:
        self.per_key = per_key
        self.total = total
        self._by_key: dict[str, int] = {}
        self._open = 0

    def take(self, key_id: str) -> ConnectionSlot:
        """A place for one more connection of key_id, or TooManyConnections."""
        if self._by_key.get(key_id, 0) >= self.per_key:
            raise TooManyConnections(PER_KEY_REASON)
        if self._open >= self.total:
            raise TooManyConnections(TOTAL_REASON)
        self._by_key[key_id] = self._by_key.get(key_id, 0) + 1
        self._open += 1
        return ConnectionSlot(self, key_id)

    def give_back(self, key_id: str) -> None:
        left = self._by_key.get(key_id, 0) - 1
        if left > 0:
            self._by_key[key_id] = left
        else:
            self._by_key.pop(key_id, None)  # no entry kept per key ever seen
        self._open = max(0, self._open - 1)

    def open_connections(self, key_id: str | None = None) -> int:
        """Connections open now: of key_id, or in all."""
        return self._open if key_id is None else self._by_key.get(key_id, 0)


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
    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        try:
            await super().handle_connection_init(message)  # on_ws_connect takes the connection's slot
        except TooManyConnections as exc:
            await self.websocket.close(code=TOO_MANY_CONNECTIONS, reason=exc.reason)

    async def shutdown(self) -> None:
        try:
            await super().shutdown()
        finally:  # every way a connection ends comes here (handle's finally): the slot never leaks
            slot = self.context.ws_slot
            if slot is not None:
                slot.release()

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
