"""The project's Python client: speaks GraphQL over HTTP and websockets (graphql-transport-ws) with gql,
sync (BmamClient) and async (AsyncBmamClient), with typed methods. Every request sends the API key
(header X-API-Key; over a websocket also the connection_init payload {"apiKey": ...})."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import quote, urlsplit

import requests
from gql import Client, GraphQLRequest, gql
from gql.transport.exceptions import TransportError, TransportQueryError, TransportServerError
from graphql import DocumentNode

from bmam.http_transport import HttpTransport

MEMORY_FIELDS = """
  id userId text type tier locked presetKind classifiedBy confidence
  weight { passive active preset final }
  createdAt lastRecalledAt lastMentionedAt recallCount mentionCount validFrom validTo
  source { sessionId turn deviceId episodeId }
"""


INGEST_TURN_FIELDS = f"""
  index stored duplicate episodeId userId sessionId turn speaker remembered reason
  memories {{ {MEMORY_FIELDS} }} mentioned {{ {MEMORY_FIELDS} }}
  triples {{ id predicate polarity memoryId subject {{ id name kind }} object {{ id name kind }} }}
  tierChanges {{ memoryId fromTier toTier deleted reason }}
  errors {{ code message field }} forgotten
"""

# ingest_conversation's document (`bmam remote ingest` sizes its requests with it)
INGEST_CONVERSATION = (
    "mutation($turns: [TurnInput!]!) { ingestConversation(turns: $turns) {"
    f" stored duplicates failed turns {{ {INGEST_TURN_FIELDS} }}"
    " tierChanges { memoryId fromTier toTier deleted reason } } }"
)

PERIOD_FIELDS = "period { start end words openQuestion }"
RECALLED_FIELDS = (
    "why scores { vector fulltext graph freshness weight relevance damping final }"
    f" memory {{ {MEMORY_FIELDS} }}"
)


class BmamClientError(Exception):
    """A GraphQL error answered by the server, with its code (BAD_USER_INPUT, NOT_FOUND, ...)."""

    def __init__(self, code: str, message: str, errors: list[dict[str, Any]], status: int | None = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.errors = errors
        self.status = status  # the answer's HTTP status when known (413: the request body was too large)


class ClientConfigError(ValueError):
    """A ClientConfig that cannot work: `field` names what is wrong (url or api_key). The message never
    repeats the key."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class ClientConfig:
    url: str  # e.g. http://127.0.0.1:8000 (the /graphql path is added; one given with it is the same server)
    api_key: str | None = None
    timeout_s: float = 60.0

    def __post_init__(self) -> None:
        """Checked here, before any request: an http(s) URL with a host (and a port in 1..65535), and a key that
        can be sent as a header value (printable ASCII: a line break would end the header and start another)."""
        url = self.url
        try:
            parts = urlsplit(url.strip())
            port = parts.port  # ValueError for a port that is no number or out of range
        except ValueError:
            parts, port = urlsplit(""), None
        if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url.strip()):
            raise ClientConfigError(f"the server must be an http:// or https:// URL with a host, e.g. "
                                    f"http://127.0.0.1:8000 (got {url[:100]!r})", field="url")
        if port == 0:
            raise ClientConfigError(f"the server's port must be between 1 and 65535 (got {url[:100]!r})", field="url")
        if self.api_key is not None and not all("!" <= c <= "~" for c in self.api_key):
            raise ClientConfigError("the API key must be printable ASCII without spaces, control characters or "
                                    "line breaks (a key reads bmam_<id>_<secret>)", field="api_key")
        # http://host:8000/graphql (the GraphiQL address) went to .../graphql/graphql: a bare HTTP_404, no hint
        base = url.strip().rstrip("/")
        object.__setattr__(self, "url", base.removesuffix("/graphql") if base.endswith("/graphql") else base)


def _headers(config: ClientConfig) -> dict[str, str]:
    return {"X-API-Key": config.api_key} if config.api_key else {}


def _raise_from(exc: TransportError) -> BmamClientError:
    """A gql transport error as a BmamClientError with the server's code (or HTTP_<status>, or the
    websocket close reason's code)."""
    if isinstance(exc, TransportServerError):
        status = exc.code if isinstance(exc.code, int) else 0
        code = {401: "UNAUTHENTICATED", 413: "LIMIT_EXCEEDED", 503: "UNAVAILABLE", 504: "TIMEOUT",
                4403: "UNAUTHENTICATED", 4429: "LIMIT_EXCEEDED"}.get(status, f"HTTP_{status}")
        return BmamClientError(code, str(exc), [])
    if not isinstance(exc, TransportQueryError):
        close_code = _ws_close_code(exc)
        if close_code == 4403:  # the server refused the connection_init (no or bad API key)
            return BmamClientError("UNAUTHENTICATED", "the server refused the websocket: a valid API key is required",
                                   [])
        if close_code == 4429:  # over the server's cap of open websockets (of this key, or in all)
            return BmamClientError("LIMIT_EXCEEDED", "the server refused the websocket: too many open connections",
                                   [])
        return BmamClientError("TRANSPORT", str(exc), [])
    return _from_errors(exc.errors, message=str(exc), code="UNKNOWN")


def _from_errors(raw: Any, *, message: str, code: str, status: int | None = None) -> BmamClientError:
    """A server's GraphQL-shaped errors ([{message, extensions: {code}}]) as a BmamClientError: the first one's
    code and message, else `code` and `message`."""
    errors: list[dict[str, Any]] = [e for e in (raw or []) if isinstance(e, dict)]
    first: dict[str, Any] = errors[0] if errors else {"message": message}
    extensions: dict[str, Any] = first.get("extensions") or {}
    return BmamClientError(str(extensions.get("code") or code), str(first.get("message", message)), errors, status)


def _ws_close_code(exc: BaseException) -> int | None:
    """The websocket close code behind a gql transport error, if any."""
    seen: BaseException | None = exc
    while seen is not None:
        received = getattr(seen, "rcvd", None)
        if received is not None and isinstance(getattr(received, "code", None), int):
            return int(received.code)
        seen = seen.__cause__ or seen.__context__
    return None


def _ws_url(config: ClientConfig) -> str:
    base = config.url.rstrip("/")
    return ("wss://" + base[len("https://"):] if base.startswith("https://")
            else "ws://" + base.removeprefix("http://")) + "/graphql"


def _ws_transport(config: ClientConfig) -> Any:
    from gql.transport.websockets import WebsocketsTransport

    return WebsocketsTransport(
        url=_ws_url(config), headers=_headers(config), init_payload={"apiKey": config.api_key or ""},
        subprotocols=["graphql-transport-ws"], connect_timeout=config.timeout_s, ack_timeout=config.timeout_s,
    )


@functools.lru_cache(maxsize=256)
def _parsed(document: str) -> DocumentNode:
    """A document text parsed once (gql parses it on every request otherwise; a syntax error raises here)."""
    return gql(document).document


class _Request(GraphQLRequest):
    """A request that sends the caller's document text as written: gql would print the parsed document
    back to text on every request (~0.5 ms for a 30-field query), and the server keeps checked documents
    by their text."""

    def __init__(self, document: str, variables: dict[str, Any] | None, timings: bool) -> None:
        super().__init__(_parsed(document), variable_values=variables or {},
                         extensions={"timings": True} if timings else None)
        self.text = document

    @property
    def payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"query": self.text}
        if self.operation_name:
            payload["operationName"] = self.operation_name
        if self.variable_values:
            payload["variables"] = self.variable_values
        if self.extensions:
            payload["extensions"] = self.extensions
        return payload


def _request(document: str, variables: dict[str, Any] | None, timings: bool) -> GraphQLRequest:
    return _Request(document, variables, timings)


@dataclass(frozen=True, slots=True)
class Answer:
    """A whole GraphQL answer: data and extensions (e.g. extensions["timings"])."""

    data: dict[str, Any]
    extensions: dict[str, Any]


MEMORY_EVENTS = ("subscription($u: String!) { memoryEvents(userId: $u) {"
                 " kind userId memoryId at detail { key value } } }")
_ERASURE_COUNTS = ("nodesRemoved relationshipsRemoved nodesByLabel { label count }"
                   " relationshipsByType { label count } remainingNodes remainingRelationships verified erasedAt")
ERASURE_FIELDS = f"userId {_ERASURE_COUNTS}"
TENANT_ERASURE_FIELDS = f"tenant usersErased {_ERASURE_COUNTS}"
FORGET_TENANT = ("mutation($t: String!, $c: Boolean!) { forgetTenant(tenant: $t, confirm: $c) {"
                 f" {TENANT_ERASURE_FIELDS} }} }}")
FORGET_SESSION = (
    "mutation($u: String!, $s: String!, $c: Boolean!, $m: SessionMemories!) {"
    " forgetSession(userId: $u, sessionId: $s, confirm: $c, memories: $m) { userId sessionId memories turnsRemoved"
    " nodesRemoved relationshipsRemoved memoriesForgotten forgottenMemoryIds memoriesKept sharedKept lockedKept"
    " remainingTurns remainingNodes verified erasedAt } }")
TURN_FIELDS = "turn speaker text at deviceId episodeId memoryIds"
API_KEY_FIELDS = "id name prefix createdAt revokedAt admin"
CONFLICT_FIELDS = (f"id kind status strategy reason createdAt resolvedAt resolvedBy winnerId loserId"
                   f" newMemory {{ {MEMORY_FIELDS} }} oldMemory {{ {MEMORY_FIELDS} }}")
CHANGESET_FIELDS = ("id kind status createdAt finishedAt dryRun undone undoneAt userId users usersDone decayed"
                    " reweighted merged { survivorId mergedIds } purged damped lifted indexesRebuilt")
CHECK_FIELDS = ("healthy coreMemories unreachableCore { userId id reason }"
                " workingMemory { bytesUsed bytesLimit headroom } minHeadroom indexStates missingIndexes"
                " indexesNotOnline pendingMigrations problems")


class BmamClient:
    """Synchronous client. Every method returns plain dicts shaped like the GraphQL answer."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        transport = HttpTransport(config.url.rstrip("/") + "/graphql", _headers(config), config.timeout_s)
        self._client = Client(transport=transport, fetch_schema_from_transport=False, execute_timeout=config.timeout_s)
        self._session: Any = None  # one keep-alive HTTP session, opened at the first request

    def _connected(self) -> Any:
        if self._session is None:
            self._session = self._client.connect_sync()
        return self._session

    def execute(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.execute_full(document, variables).data

    def execute_full(self, document: str, variables: dict[str, Any] | None = None, *,
                     timings: bool = False) -> Answer:
        """Data and extensions; timings=True asks for extensions["timings"] (embedding, Neo4j, total)."""
        try:
            result = self._connected().execute(_request(document, variables, timings), get_execution_result=True)
        except (TransportQueryError, TransportServerError) as exc:
            error = _raise_from(exc)
            error.status = getattr(self._client.transport, "response_status", None)
            raise error from exc
        return Answer(data=result.data or {}, extensions=result.extensions or {})

    # ----- typed operations ---------------------------------------------------------

    def remember(self, user_id: str, text: str, type: str = "FACTUAL", **extra: Any) -> dict[str, Any]:
        doc = f"mutation($input: RememberInput!) {{ remember(input: $input) {{ {MEMORY_FIELDS} }} }}"
        return self.execute(doc, {"input": {"userId": user_id, "text": text, "type": type, **extra}})["remember"]

    def memory(self, user_id: str, memory_id: str) -> dict[str, Any] | None:
        doc = f"query($u: String!, $id: ID!) {{ memory(userId: $u, id: $id) {{ {MEMORY_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "id": memory_id})["memory"]

    def memories(self, user_id: str, *, first: int = 20, after: str | None = None,
                 types: list[str] | None = None, tiers: list[str] | None = None,
                 include_history: bool = False) -> dict[str, Any]:
        doc = (
            "query($u: String!, $first: Int!, $after: String, $types: [MemoryType!], $tiers: [Tier!],"
            " $h: Boolean!) {"
            " memories(userId: $u, first: $first, after: $after, types: $types, tiers: $tiers, includeHistory: $h) {"
            f" edges {{ cursor node {{ {MEMORY_FIELDS} }} }} pageInfo {{ hasNextPage endCursor }} }} }}"
        )
        variables = {"u": user_id, "first": first, "after": after, "types": types, "tiers": tiers,
                     "h": include_history}
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

    def dissociate(self, user_id: str, memory_a: str, memory_b: str) -> dict[str, Any]:
        doc = ("mutation($u: String!, $a: ID!, $b: ID!) {"
               " dissociate(userId: $u, memoryA: $a, memoryB: $b) { memoryA memoryB removed } }")
        return self.execute(doc, {"u": user_id, "a": memory_a, "b": memory_b})["dissociate"]

    def associations(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        doc = ("query($u: String!, $m: ID!) { associations(userId: $u, memoryId: $m) {"
               " memoryA memoryB strength } }")
        return self.execute(doc, {"u": user_id, "m": memory_id})["associations"]

    def forget(self, user_id: str, memory_id: str, *, confirm: bool = False) -> dict[str, Any]:
        doc = ("mutation($u: String!, $id: ID!, $c: Boolean!) {"
               " forget(userId: $u, id: $id, confirm: $c) { id forgotten } }")
        return self.execute(doc, {"u": user_id, "id": memory_id, "c": confirm})["forget"]

    # ----- ingest and tiers (issue 3) ------------------------------------------------------

    def ingest_turn(self, user_id: str, session_id: str, speaker: str, text: str, **extra: Any) -> dict[str, Any]:
        """extra: at (ISO text), deviceId, turn."""
        doc = (
            "mutation($u: String!, $s: String!, $sp: String!, $t: String!, $at: DateTime, $d: String, $n: Int) {"
            " ingestTurn(userId: $u, sessionId: $s, speaker: $sp, text: $t, at: $at, deviceId: $d, turn: $n) {"
            f" {INGEST_TURN_FIELDS} }} }}"
        )
        variables = {"u": user_id, "s": session_id, "sp": speaker, "t": text, "at": extra.get("at"),
                     "d": extra.get("deviceId"), "n": extra.get("turn")}
        return self.execute(doc, variables)["ingestTurn"]

    def ingest_conversation(self, turns: list[dict[str, Any]]) -> dict[str, Any]:
        """turns: [{userId, sessionId, speaker, text, at?, deviceId?, turn?}]; per-turn errors in the result."""
        return self.execute(INGEST_CONVERSATION, {"turns": turns})["ingestConversation"]

    def react(self, user_id: str, memory_id: str, signal: str) -> dict[str, Any]:
        doc = (
            "mutation($u: String!, $m: ID!, $s: ReactionSignal!) { react(userId: $u, memoryId: $m, signal: $s) {"
            f" memoryId signal deleted memory {{ {MEMORY_FIELDS} }}"
            " tierChanges { memoryId fromTier toTier deleted reason } } }"
        )
        return self.execute(doc, {"u": user_id, "m": memory_id, "s": signal})["react"]

    def lock(self, user_id: str, memory_id: str) -> dict[str, Any]:
        doc = f"mutation($u: String!, $m: ID!) {{ lock(userId: $u, memoryId: $m) {{ {MEMORY_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "m": memory_id})["lock"]

    def unlock(self, user_id: str, memory_id: str) -> dict[str, Any]:
        doc = f"mutation($u: String!, $m: ID!) {{ unlock(userId: $u, memoryId: $m) {{ {MEMORY_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "m": memory_id})["unlock"]

    def sweep_tiers(self, user_id: str, *, dry_run: bool = False) -> list[dict[str, Any]]:
        doc = ("mutation($u: String!, $dry: Boolean!) { sweepTiers(userId: $u, dryRun: $dry) {"
               " memoryId fromTier toTier deleted reason } }")
        return self.execute(doc, {"u": user_id, "dry": dry_run})["sweepTiers"]

    def working_memory(self, user_id: str, session_id: str, n: int | None = None) -> dict[str, Any]:
        doc = (
            "query($u: String!, $s: String!, $n: Int) { workingMemory(userId: $u, sessionId: $s, n: $n) {"
            " userId sessionId headroom sessionsHeld turns { speaker text at turn episodeId } } }"
        )
        return self.execute(doc, {"u": user_id, "s": session_id, "n": n})["workingMemory"]

    def tier_usage(self, user_id: str) -> dict[str, Any]:
        doc = ("query($u: String!) { tierUsage(userId: $u) {"
               " temp mid core tempCapacity midCapacity coreCapacity } }")
        return self.execute(doc, {"u": user_id})["tierUsage"]

    # ----- the API frame (issue 6): who am I, keys, erasure, health, subscription ---------------

    def viewer(self) -> dict[str, Any]:
        return self.execute("query { viewer { tenant keyId keyName admin } }")["viewer"]

    def api_keys(self, *, include_revoked: bool = False) -> list[dict[str, Any]]:
        doc = f"query($r: Boolean!) {{ apiKeys(includeRevoked: $r) {{ {API_KEY_FIELDS} }} }}"
        return self.execute(doc, {"r": include_revoked})["apiKeys"]

    def create_api_key(self, name: str | None = None, *, admin: bool = False) -> dict[str, Any]:
        """{key (shown once), apiKey {...}} for the caller's own app (an app key unless admin)."""
        doc = (f"mutation($n: String, $a: Boolean!) {{ createApiKey(name: $n, admin: $a) {{ key apiKey"
               f" {{ {API_KEY_FIELDS} }} }} }}")
        return self.execute(doc, {"n": name, "a": admin})["createApiKey"]

    def revoke_api_key(self, key_id: str) -> dict[str, Any]:
        doc = f"mutation($id: ID!) {{ revokeApiKey(id: $id) {{ {API_KEY_FIELDS} }} }}"
        return self.execute(doc, {"id": key_id})["revokeApiKey"]

    def forget_user(self, user_id: str, *, confirm: bool = False) -> dict[str, Any]:
        """Erase everything of one user of the caller's app; the receipt proves nothing is left."""
        doc = f"mutation($u: String!, $c: Boolean!) {{ forgetUser(userId: $u, confirm: $c) {{ {ERASURE_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "c": confirm})["forgetUser"]

    def forget_session(self, user_id: str, session_id: str, *, confirm: bool = False,
                       memories: str = "KEEP") -> dict[str, Any]:
        """Erase one session of a user (memories: KEEP, or FORGET those derived from it alone); the receipt proves
        none of its turns or nodes is left."""
        variables = {"u": user_id, "s": session_id, "c": confirm, "m": memories}
        return self.execute(FORGET_SESSION, variables)["forgetSession"]

    def forget_tenant(self, tenant: str, *, confirm: bool = False) -> dict[str, Any]:
        """Erase everything every user of the caller's app stored (an admin key's; tenant: the app's own, typed back);
        the app's keys stay. The receipt proves nothing of the app's data is left."""
        return self.execute(FORGET_TENANT, {"t": tenant, "c": confirm})["forgetTenant"]

    def health(self) -> dict[str, Any]:
        """GET /healthz: {status, neo4j, pending_migrations, indexes_not_online} (200 ok, 503 not)."""
        resp = requests.get(self.config.url.rstrip("/") + "/healthz", timeout=self.config.timeout_s)
        return {"http_status": resp.status_code, **resp.json()}

    def metrics(self, token: str | None = None) -> str:
        """GET /metrics: the Prometheus exposition text. token: the operator's metrics token (the production
        profile asks for it; it is not an API key). A refusal raises BmamClientError, as every other call does, with
        the server's code (UNAUTHENTICATED: no token or a wrong one) and the HTTP status."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        resp = requests.get(self.config.url.rstrip("/") + "/metrics", headers=headers, timeout=self.config.timeout_s)
        if not resp.ok:  # raise_for_status gave a bare requests.HTTPError
            # the statuses as _raise_from maps them; the server's own code (its JSON errors) comes first
            code = {401: "UNAUTHENTICATED", 413: "LIMIT_EXCEEDED", 503: "UNAVAILABLE",
                    504: "TIMEOUT"}.get(resp.status_code, f"HTTP_{resp.status_code}")
            try:
                body = resp.json()
            except ValueError:  # not bmam's answer (a proxy's page)
                raise BmamClientError(code, resp.text[:200] or resp.reason, [], resp.status_code) from None
            raise _from_errors(body.get("errors") if isinstance(body, dict) else None, message=resp.reason,
                               code=code, status=resp.status_code)
        return resp.text

    def memory_events(self, user_id: str) -> Iterator[dict[str, Any]]:
        """memoryEvents(userId) over a websocket, as a blocking iterator (close it to unsubscribe)."""
        client = Client(transport=_ws_transport(self.config), fetch_schema_from_transport=False,
                        execute_timeout=self.config.timeout_s)
        try:
            for result in client.subscribe(_request(MEMORY_EVENTS, {"u": user_id}, False)):
                yield result["memoryEvents"]
        except TransportError as exc:
            raise _raise_from(exc) from exc

    # ----- living memory (issue 5): feedback, conflicts, history, maintenance ------------------

    def feedback(self, user_id: str, memory_id: str, signal: str) -> dict[str, Any]:
        """signal: LIKE | DISLIKE | DWELL | SKIP; the memory as it is afterwards."""
        doc = ("mutation($u: String!, $m: ID!, $s: FeedbackSignal!) {"
               f" feedback(userId: $u, memoryId: $m, signal: $s) {{ {MEMORY_FIELDS} }} }}")
        return self.execute(doc, {"u": user_id, "m": memory_id, "s": signal})["feedback"]

    def conflicts(self, user_id: str, *, status: str | None = "OPEN", first: int = 20) -> list[dict[str, Any]]:
        doc = ("query($u: String!, $s: ConflictStatus, $f: Int!) {"
               f" conflicts(userId: $u, status: $s, first: $f) {{ {CONFLICT_FIELDS} }} }}")
        return self.execute(doc, {"u": user_id, "s": status, "f": first})["conflicts"]

    def conflict(self, user_id: str, conflict_id: str) -> dict[str, Any] | None:
        doc = f"query($u: String!, $id: ID!) {{ conflict(userId: $u, id: $id) {{ {CONFLICT_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "id": conflict_id})["conflict"]

    def check_conflicts(self, user_id: str, memory_id: str, *, strategy: str | None = None) -> list[dict[str, Any]]:
        doc = ("mutation($u: String!, $m: ID!, $s: ConflictStrategy) {"
               f" checkConflicts(userId: $u, memoryId: $m, strategy: $s) {{ {CONFLICT_FIELDS} }} }}")
        return self.execute(doc, {"u": user_id, "m": memory_id, "s": strategy})["checkConflicts"]

    def resolve_conflict(self, user_id: str, conflict_id: str, winner: str) -> dict[str, Any]:
        doc = ("mutation($u: String!, $id: ID!, $w: ID!) {"
               f" resolveConflict(userId: $u, id: $id, winner: $w) {{ {CONFLICT_FIELDS} }} }}")
        return self.execute(doc, {"u": user_id, "id": conflict_id, "w": winner})["resolveConflict"]

    def correct_memory(self, user_id: str, memory_id: str, text: str, *,
                       memory_type: str | None = None) -> dict[str, Any]:
        """correctMemory: {memory, corrected, conflict} (the correction, the memory it superseded, the conflict)."""
        doc = ("mutation($u: String!, $m: ID!, $t: String!, $ty: MemoryType) {"
               f" correctMemory(userId: $u, memoryId: $m, text: $t, type: $ty) {{ memory {{ {MEMORY_FIELDS} }}"
               f" corrected {{ {MEMORY_FIELDS} }} conflict {{ {CONFLICT_FIELDS} }} }} }}")
        return self.execute(doc, {"u": user_id, "m": memory_id, "t": text, "ty": memory_type})["correctMemory"]

    def history(self, user_id: str, *, entity: str | None = None, memory_id: str | None = None,
                first: int = 50) -> list[dict[str, Any]]:
        doc = ("query($u: String!, $e: String, $m: ID, $f: Int!) {"
               " history(userId: $u, entity: $e, memoryId: $m, first: $f) {"
               f" current supersedes supersededBy memory {{ {MEMORY_FIELDS} }} }} }}")
        return self.execute(doc, {"u": user_id, "e": entity, "m": memory_id, "f": first})["history"]

    def run_maintenance(self, kind: str, *, dry_run: bool = False, user_id: str | None = None) -> dict[str, Any]:
        """kind: DECAY | REBALANCE | FULL | CHECK; {kind dryRun changeset check}."""
        doc = ("mutation($k: MaintenanceKind!, $d: Boolean!, $u: String) {"
               " runMaintenance(kind: $k, dryRun: $d, userId: $u) { kind dryRun"
               f" changeset {{ {CHANGESET_FIELDS} }} check {{ {CHECK_FIELDS} }} }} }}")
        return self.execute(doc, {"k": kind, "d": dry_run, "u": user_id})["runMaintenance"]

    def undo_maintenance(self, changeset_id: str) -> dict[str, Any]:
        doc = f"mutation($id: ID!) {{ undoMaintenance(id: $id) {{ {CHANGESET_FIELDS} }} }}"
        return self.execute(doc, {"id": changeset_id})["undoMaintenance"]

    def changesets(self, *, user_id: str | None = None, first: int = 20) -> list[dict[str, Any]]:
        doc = f"query($u: String, $f: Int!) {{ changesets(userId: $u, first: $f) {{ {CHANGESET_FIELDS} }} }}"
        return self.execute(doc, {"u": user_id, "f": first})["changesets"]

    def changeset(self, changeset_id: str) -> dict[str, Any] | None:
        doc = f"query($id: ID!) {{ changeset(id: $id) {{ {CHANGESET_FIELDS} }} }}"
        return self.execute(doc, {"id": changeset_id})["changeset"]

    def export_rdf(self, user_id: str, format: str = "TURTLE") -> str:
        """A user's knowledge as an RDF document; format: TURTLE | N_TRIPLES | JSON_LD | RDF_XML."""
        doc = "query($u: String!, $f: RdfFormat!) { exportRdf(userId: $u, format: $f) }"
        return str(self.execute(doc, {"u": user_id, "f": format})["exportRdf"])

    def _route(self, path: str, ext: str) -> str:
        """The URL of an export or import route: path (/export, /import, or one of them with /{userId}) and ext."""
        return f"{self.config.url.rstrip('/')}{path}.{quote(ext, safe='')}"

    def export_file(self, user_id: str, ext: str = "ttl", *, read_timeout_s: float | None = 3600.0,
                    chunk_bytes: int = 64 * 1024) -> Iterator[bytes]:
        """GET /export/{userId}.{ext} (ext: ttl | nt | jsonld | rdf | graphml | gexf): a user's knowledge as the
        server streams it, piece by piece (exportRdf answers LIMIT_EXCEEDED above its size; this route has no
        such limit). The request is sent here: a refusal raises BmamClientError with the server's code and the
        HTTP status before anything is read; a connection lost while reading raises one with code TRANSPORT."""
        return self._download(self._route(f"/export/{quote(user_id, safe='')}", ext), read_timeout_s, chunk_bytes)

    def export_rdf_all_users(self, ext: str = "ttl", *, read_timeout_s: float | None = 3600.0,
                             chunk_bytes: int = 64 * 1024) -> Iterator[bytes]:
        """GET /export.{ext} (ext: ttl | nt | jsonld | rdf): every user of the caller's app as one RDF document, what
        `bmam export --all-users` writes, streamed as export_file streams a user. An admin key's: an app key raises
        BmamClientError FORBIDDEN (403); an app with no users NOT_FOUND (404), both before anything is read."""
        return self._download(self._route("/export", ext), read_timeout_s, chunk_bytes)

    def _download(self, url: str, read_timeout_s: float | None, chunk_bytes: int) -> Iterator[bytes]:
        """GET an export route: its pieces as they arrive, or BmamClientError (the server's code and HTTP status;
        TRANSPORT for a connection lost while reading)."""
        resp = requests.get(url, headers=_headers(self.config), stream=True,
                            timeout=(self.config.timeout_s, read_timeout_s))
        if not resp.ok:
            with resp:
                try:
                    body = resp.json()
                except ValueError:  # not bmam's answer (a proxy's page)
                    raise BmamClientError(f"HTTP_{resp.status_code}", resp.text[:200] or resp.reason, [],
                                          resp.status_code) from None
            raise _from_errors(body.get("errors") if isinstance(body, dict) else None, message=resp.reason,
                               code=f"HTTP_{resp.status_code}", status=resp.status_code)

        def pieces() -> Iterator[bytes]:
            with resp:
                try:
                    yield from (piece for piece in resp.iter_content(chunk_bytes) if piece)
                except requests.RequestException as exc:  # not the reader's error: a caller writing a file
                    # would take an OSError for its own
                    raise BmamClientError("TRANSPORT", f"the export stopped: {exc}", [], resp.status_code) from exc

        return pieces()

    def import_rdf(self, user_id: str, data: bytes | IO[bytes], ext: str = "ttl", *, source_user: str | None = None,
                   dry_run: bool = False, read_timeout_s: float | None = 3600.0) -> dict[str, Any]:
        """POST /import/{userId}.{ext} (ext: ttl | nt | jsonld | rdf): an RDF export, as bytes or an open binary
        file (streamed, not read whole), into a user of the caller's app; the report as the mutation importRdf
        answers it with every field ({source {tenant userId}, target, counts [{kind created existing}], created
        (all kinds), triples, relationships, ignored, dryRun, capacity [{memoryId fromTier toTier deleted
        reason}], hooksRun, hooksLeft}). read_timeout_s: how long to wait for the answer once the file is sent (a
        large import embeds every memory: minutes, not the config's timeout_s). A refusal raises BmamClientError
        with the server's code and the HTTP status."""
        params = {"dryRun": "true" if dry_run else "false"}
        if source_user is not None:
            params["sourceUserId"] = source_user
        return self._upload(self._route(f"/import/{quote(user_id, safe='')}", ext), data, params, read_timeout_s)

    def import_rdf_all_users(self, data: bytes | IO[bytes], ext: str = "ttl", *, dry_run: bool = False,
                             read_timeout_s: float | None = 3600.0) -> dict[str, Any]:
        """POST /import.{ext}: a tenant-wide export (`bmam export --all-users`, export_rdf_all_users) into the
        caller's app, each user of the file into the user of the same id, as import_rdf imports one; the report as
        the mutation importRdfAllUsers answers it ({users: [an import_rdf report per user], ignored}). Checked
        whole first: a file refused for one user imports nothing for any."""
        params = {"dryRun": "true" if dry_run else "false"}
        return self._upload(self._route("/import", ext), data, params, read_timeout_s)

    def _upload(self, url: str, data: bytes | IO[bytes], params: dict[str, str],
                read_timeout_s: float | None) -> dict[str, Any]:
        """POST a file to an import route: the server's JSON report, or BmamClientError (its code and HTTP status)."""
        resp = requests.post(url, data=data, params=params, timeout=(self.config.timeout_s, read_timeout_s),
                             headers={**_headers(self.config), "Content-Type": "application/octet-stream"})
        try:
            body = resp.json()
        except ValueError:  # not bmam's answer (a proxy's page)
            raise BmamClientError(f"HTTP_{resp.status_code}", resp.text[:200] or resp.reason, [],
                                  resp.status_code) from None
        if resp.ok and isinstance(body, dict) and "errors" not in body:
            return body
        raise _from_errors(body.get("errors") if isinstance(body, dict) else None, message=resp.reason,
                           code=f"HTTP_{resp.status_code}", status=resp.status_code)

    # ----- recall (issue 4) ------------------------------------------------------------------

    def recall(self, user_id: str, query: str, *, session_id: str | None = None, k: int | None = None,
               **extra: Any) -> dict[str, Any]:
        """recall: {gated, reason, bestSimilarity, period, memories: [{memory, scores, why}]}. extra: types, tiers,
        minScore, includeHistory, asOf (ISO string), timeZone (IANA name)."""
        doc = (
            "query($u: String!, $q: String!, $s: String, $k: Int, $types: [MemoryType!], $tiers: [Tier!],"
            " $min: Float! = 0, $hist: Boolean! = false, $asOf: DateTime, $tz: String) {"
            " recall(userId: $u, query: $q, sessionId: $s, k: $k, types: $types, tiers: $tiers, minScore: $min,"
            f" includeHistory: $hist, asOf: $asOf, timeZone: $tz) {{ gated reason bestSimilarity {PERIOD_FIELDS}"
            f" memories {{ {RECALLED_FIELDS} }} }} }}"
        )
        variables = {"u": user_id, "q": query, "s": session_id, "k": k, "types": extra.get("types"),
                     "tiers": extra.get("tiers"), "min": extra.get("minScore", 0.0),
                     "hist": extra.get("includeHistory", False), "asOf": extra.get("asOf"),
                     "tz": extra.get("timeZone")}
        return self.execute(doc, variables)["recall"]

    def related_search(self, user_id: str, memory_id: str, *, depth: int | None = None, limit: int | None = None,
                       min_strength: float | None = None, include_history: bool = False) -> list[dict[str, Any]]:
        """relatedSearch: [{memory, score, path: [{from, to, via, strength, entity}]}], best first. depth, limit
        and min_strength left out (None) take the server's settings (recall.related_depth, related_limit,
        related_min_strength), as the API does; the client had 2, 20 and 0.05 of its own."""
        doc = (
            "query($u: String!, $m: ID!, $d: Int, $l: Int, $s: Float, $h: Boolean!) {"
            " relatedSearch(userId: $u, memoryId: $m, depth: $d, limit: $l, minStrength: $s, includeHistory: $h) {"
            f" score path {{ from to via strength entity }} memory {{ {MEMORY_FIELDS} }} }} }}"
        )
        variables = {"u": user_id, "m": memory_id, "d": depth, "l": limit, "s": min_strength, "h": include_history}
        return self.execute(doc, variables)["relatedSearch"]

    def context_prompt(self, user_id: str, session_id: str, text: str, *, budget: int | None = None,
                       time_zone: str | None = None) -> dict[str, Any]:
        """contextPrompt: {text, gated, reason, period, memories, turns, replyStyles} for an LLM within budget
        characters."""
        doc = (
            "query($u: String!, $s: String!, $i: String!, $b: Int, $tz: String) {"
            " contextPrompt(userId: $u, sessionId: $s, input: $i, budget: $b, timeZone: $tz) { text gated reason"
            f" {PERIOD_FIELDS} turns {{ speaker text at turn }} memories {{ {RECALLED_FIELDS} }}"
            f" replyStyles {{ {MEMORY_FIELDS} }} }} }}"
        )
        return self.execute(doc, {"u": user_id, "s": session_id, "i": text, "b": budget,
                                  "tz": time_zone})["contextPrompt"]

    # ----- operations (issue 8) --------------------------------------------------------------

    def served_by(self) -> str | None:
        """The worker process that answered the last request (header X-Bmam-Worker, set when bmam runs
        as several uvicorn workers, bmam/asgi.py), else None."""
        headers = getattr(self._client.transport, "response_headers", None)
        return str(headers.get("x-bmam-worker")) if headers and headers.get("x-bmam-worker") else None

    def close(self) -> None:
        if self._session is not None:
            self._client.close_sync()
            self._session = None

    # ----- paged listings: users, sessions, conflicts and history a page at a time -------------------

    def _connection(self, field: str, declared: str, arguments: str, node: str,
                    variables: dict[str, Any]) -> dict[str, Any]:
        """One page of a connection field: {edges: [{cursor, node}], pageInfo: {hasNextPage, endCursor}}; pass
        pageInfo.endCursor as `after` for the next page."""
        doc = (f"query({declared}) {{ {field}({arguments}) {{ edges {{ cursor node {{ {node} }} }}"
               " pageInfo { hasNextPage endCursor } } }")
        return self.execute(doc, variables)[field]

    def users(self, *, first: int = 20, after: str | None = None) -> dict[str, Any]:
        """A page of the app's users in id order (users): nodes {userId, memoryCount, historyCount, lastActiveAt}."""
        return self._connection("users", "$f: Int!, $a: String", "first: $f, after: $a",
                                "userId memoryCount historyCount lastActiveAt", {"f": first, "a": after})

    def sessions(self, user_id: str, *, first: int = 20, after: str | None = None) -> dict[str, Any]:
        """A page of a user's sessions, the newest started first (sessions): nodes {sessionId, turnCount,
        firstTurnAt, lastTurnAt}."""
        return self._connection("sessions", "$u: String!, $f: Int!, $a: String", "userId: $u, first: $f, after: $a",
                                "sessionId turnCount firstTurnAt lastTurnAt", {"u": user_id, "f": first, "a": after})

    def turns(self, user_id: str, session_id: str, *, first: int = 50, after: str | None = None) -> dict[str, Any]:
        """A page of a session's stored turns in turn order (turns): nodes {turn, speaker, text, at, deviceId,
        episodeId, memoryIds}; NOT_FOUND for a session the user does not have."""
        return self._connection("turns", "$u: String!, $s: String!, $f: Int!, $a: String",
                                "userId: $u, sessionId: $s, first: $f, after: $a", TURN_FIELDS,
                                {"u": user_id, "s": session_id, "f": first, "a": after})

    def conflicts_page(self, user_id: str, *, status: str | None = "OPEN", first: int = 20,
                       after: str | None = None) -> dict[str, Any]:
        """A page of a user's conflicts, newest first (conflictsConnection; status None: all)."""
        return self._connection("conflictsConnection", "$u: String!, $s: ConflictStatus, $f: Int!, $a: String",
                                "userId: $u, status: $s, first: $f, after: $a", CONFLICT_FIELDS,
                                {"u": user_id, "s": status, "f": first, "a": after})

    def history_page(self, user_id: str, *, entity: str | None = None, memory_id: str | None = None,
                     first: int = 50, after: str | None = None) -> dict[str, Any]:
        """A page of a user's history, oldest first (historyConnection)."""
        return self._connection("historyConnection", "$u: String!, $e: String, $m: ID, $f: Int!, $a: String",
                                "userId: $u, entity: $e, memoryId: $m, first: $f, after: $a",
                                f"current supersedes supersededBy memory {{ {MEMORY_FIELDS} }}",
                                {"u": user_id, "e": entity, "m": memory_id, "f": first, "a": after})


class AsyncBmamClient:
    """Asynchronous client over aiohttp; `execute` mirrors BmamClient.execute."""

    def __init__(self, config: ClientConfig) -> None:
        from gql.transport.aiohttp import AIOHTTPTransport

        self.config = config
        transport = AIOHTTPTransport(url=config.url.rstrip("/") + "/graphql", headers=_headers(config),
                                     timeout=int(config.timeout_s))
        self._client = Client(transport=transport, fetch_schema_from_transport=False, execute_timeout=config.timeout_s)
        self._session: Any = None

    async def _connected(self) -> Any:
        if self._session is None:
            self._session = await self._client.connect_async()
        return self._session

    async def execute(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        return (await self.execute_full(document, variables)).data

    async def execute_full(self, document: str, variables: dict[str, Any] | None = None, *,
                           timings: bool = False) -> Answer:
        try:
            session = await self._connected()
            result = await session.execute(_request(document, variables, timings), get_execution_result=True)
        except (TransportQueryError, TransportServerError) as exc:
            raise _raise_from(exc) from exc
        return Answer(data=result.data or {}, extensions=result.extensions or {})

    async def memory(self, user_id: str, memory_id: str) -> dict[str, Any] | None:
        doc = f"query($u: String!, $id: ID!) {{ memory(userId: $u, id: $id) {{ {MEMORY_FIELDS} }} }}"
        return (await self.execute(doc, {"u": user_id, "id": memory_id}))["memory"]

    async def memories(self, user_id: str, *, first: int = 20, after: str | None = None) -> dict[str, Any]:
        doc = ("query($u: String!, $first: Int!, $after: String) { memories(userId: $u, first: $first, after: $after)"
               f" {{ edges {{ cursor node {{ {MEMORY_FIELDS} }} }} pageInfo {{ hasNextPage endCursor }} }} }}")
        return (await self.execute(doc, {"u": user_id, "first": first, "after": after}))["memories"]

    async def forget_user(self, user_id: str, *, confirm: bool = False) -> dict[str, Any]:
        doc = f"mutation($u: String!, $c: Boolean!) {{ forgetUser(userId: $u, confirm: $c) {{ {ERASURE_FIELDS} }} }}"
        return (await self.execute(doc, {"u": user_id, "c": confirm}))["forgetUser"]

    async def forget_session(self, user_id: str, session_id: str, *, confirm: bool = False,
                             memories: str = "KEEP") -> dict[str, Any]:
        variables = {"u": user_id, "s": session_id, "c": confirm, "m": memories}
        return (await self.execute(FORGET_SESSION, variables))["forgetSession"]

    async def forget_tenant(self, tenant: str, *, confirm: bool = False) -> dict[str, Any]:
        return (await self.execute(FORGET_TENANT, {"t": tenant, "c": confirm}))["forgetTenant"]

    async def memory_events(self, user_id: str) -> AsyncIterator[dict[str, Any]]:
        """memoryEvents(userId) over graphql-transport-ws; leave the loop (or cancel) to unsubscribe."""
        client = Client(transport=_ws_transport(self.config), fetch_schema_from_transport=False,
                        execute_timeout=self.config.timeout_s)
        try:
            async with client as session:
                async for result in session.subscribe(_request(MEMORY_EVENTS, {"u": user_id}, False)):
                    yield result["memoryEvents"]
        except TransportError as exc:
            raise _raise_from(exc) from exc

    async def close(self) -> None:
        if self._session is not None:
            await self._client.close_async()
            self._session = None

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
