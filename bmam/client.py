"""The project's Python client: speaks GraphQL over HTTP with gql (sync and async), typed methods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gql import Client, GraphQLRequest, gql
from gql.transport.exceptions import TransportQueryError
from gql.transport.requests import RequestsHTTPTransport

MEMORY_FIELDS = """
  id userId text type tier locked presetKind classifiedBy confidence
  weight { passive active preset final }
  createdAt lastRecalledAt lastMentionedAt recallCount mentionCount validFrom validTo
  source { sessionId turn deviceId episodeId }
"""


class BmamClientError(Exception):
    """A GraphQL error answered by the server, with its code (BAD_USER_INPUT, NOT_FOUND, ...)."""

    def __init__(self, code: str, message: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.errors = errors


@dataclass(frozen=True, slots=True)
class ClientConfig:
    url: str  # e.g. http://127.0.0.1:8000 (the /graphql path is added)
    api_key: str | None = None
    timeout_s: float = 60.0


def _headers(config: ClientConfig) -> dict[str, str]:
    return {"X-API-Key": config.api_key} if config.api_key else {}


def _raise_from(exc: TransportQueryError) -> BmamClientError:
    errors: list[dict[str, Any]] = [e for e in (exc.errors or []) if isinstance(e, dict)]
    first: dict[str, Any] = errors[0] if errors else {"message": str(exc)}
    extensions: dict[str, Any] = first.get("extensions") or {}
    return BmamClientError(str(extensions.get("code", "UNKNOWN")), str(first.get("message", exc)), errors)


class BmamClient:
    """Synchronous client. Every method returns plain dicts shaped like the GraphQL answer."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        transport = RequestsHTTPTransport(
            url=config.url.rstrip("/") + "/graphql", headers=_headers(config), timeout=int(config.timeout_s),
            retries=0,
        )
        self._client = Client(transport=transport, fetch_schema_from_transport=False)

    def execute(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            return self._client.execute(GraphQLRequest(gql(document), variable_values=variables or {}))
        except TransportQueryError as exc:
            raise _raise_from(exc) from exc

    # ----- typed operations ---------------------------------------------------------

    def remember(self, user_id: str, text: str, type: str = "FACTUAL", **extra: Any) -> dict[str, Any]:
        doc = f"mutation($input: RememberInput!) {{ remember(input: $input) {{ {MEMORY_FIELDS} }} }}"
        return self.execute(doc, {"input": {"userId": user_id, "text": text, "type": type, **extra}})["remember"]

    def memory(self, user_id: str, memory_id: str) -> dict[str, Any] | None:
        doc = f"query($u: String!, $id: ID!) {{ memory(userId: $u, id: $id) {{ {MEMORY_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "id": memory_id})["memory"]

    def memories(self, user_id: str, *, first: int = 20, after: str | None = None,
                 types: list[str] | None = None, tiers: list[str] | None = None) -> dict[str, Any]:
        doc = (
            "query($u: String!, $first: Int!, $after: String, $types: [MemoryType!], $tiers: [Tier!]) {"
            " memories(userId: $u, first: $first, after: $after, types: $types, tiers: $tiers) {"
            f" edges {{ cursor node {{ {MEMORY_FIELDS} }} }} pageInfo {{ hasNextPage endCursor }} }} }}"
        )
        variables = {"u": user_id, "first": first, "after": after, "types": types, "tiers": tiers}
        return self.execute(doc, variables)["memories"]

    def search(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        doc = (
            "query($u: String!, $q: String!, $k: Int!) { search(userId: $u, query: $q, k: $k) {"
            f" score memory {{ {MEMORY_FIELDS} }} }} }}"
        )
        return self.execute(doc, {"u": user_id, "q": query, "k": k})["search"]

    def add_triple(self, user_id: str, memory_id: str, subject: str, predicate: str, object_: str,
                   **extra: Any) -> dict[str, Any]:
        doc = (
            "mutation($input: TripleInput!) { addTriple(input: $input) {"
            " id predicate polarity memoryId subject { id name kind } object { id name kind } } }"
        )
        variables = {"input": {"userId": user_id, "memoryId": memory_id, "subject": subject,
                               "predicate": predicate, "object": object_, **extra}}
        return self.execute(doc, variables)["addTriple"]

    def triples(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        doc = ("query($u: String!, $m: ID!) { triples(userId: $u, memoryId: $m) {"
               " id predicate polarity memoryId subject { id name kind } object { id name kind } } }")
        return self.execute(doc, {"u": user_id, "m": memory_id})["triples"]

    def associate(self, user_id: str, memory_a: str, memory_b: str, strength: float) -> dict[str, Any]:
        doc = ("mutation($u: String!, $a: ID!, $b: ID!, $s: Float!) {"
               " associate(userId: $u, memoryA: $a, memoryB: $b, strength: $s) { memoryA memoryB strength } }")
        return self.execute(doc, {"u": user_id, "a": memory_a, "b": memory_b, "s": strength})["associate"]

    def associations(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        doc = ("query($u: String!, $m: ID!) { associations(userId: $u, memoryId: $m) {"
               " memoryA memoryB strength } }")
        return self.execute(doc, {"u": user_id, "m": memory_id})["associations"]

    def forget(self, user_id: str, memory_id: str, *, confirm: bool = False) -> dict[str, Any]:
        doc = ("mutation($u: String!, $id: ID!, $c: Boolean!) {"
               " forget(userId: $u, id: $id, confirm: $c) { id forgotten } }")
        return self.execute(doc, {"u": user_id, "id": memory_id, "c": confirm})["forget"]

    def close(self) -> None:
        self._client.close_sync()


class AsyncBmamClient:
    """Asynchronous client over aiohttp; `execute` mirrors BmamClient.execute."""

    def __init__(self, config: ClientConfig) -> None:
        from gql.transport.aiohttp import AIOHTTPTransport

        self.config = config
        transport = AIOHTTPTransport(url=config.url.rstrip("/") + "/graphql", headers=_headers(config),
                                     timeout=int(config.timeout_s))
        self._client = Client(transport=transport, fetch_schema_from_transport=False)

    async def execute(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            return await self._client.execute_async(GraphQLRequest(gql(document), variable_values=variables or {}))
        except TransportQueryError as exc:
            raise _raise_from(exc) from exc

    async def remember(self, user_id: str, text: str, type: str = "FACTUAL", **extra: Any) -> dict[str, Any]:
        doc = f"mutation($input: RememberInput!) {{ remember(input: $input) {{ {MEMORY_FIELDS} }} }}"
        result = await self.execute(doc, {"input": {"userId": user_id, "text": text, "type": type, **extra}})
        return result["remember"]

    async def search(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        doc = (
            "query($u: String!, $q: String!, $k: Int!) { search(userId: $u, query: $q, k: $k) {"
            f" score memory {{ {MEMORY_FIELDS} }} }} }}"
        )
        return (await self.execute(doc, {"u": user_id, "q": query, "k": k}))["search"]
