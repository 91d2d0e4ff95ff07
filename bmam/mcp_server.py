"""The MCP face: bmam's memory as Model Context Protocol tools and resources, for agent frameworks.

Tools ingest_turn, remember, recall, related, context_prompt, memories, forget, correct, lock, unlock, react,
feedback, conflicts, resolve_conflict and history, and the resource
`bmam://users/{user_id}/core` (a user's core memories), served over stdio or streamable HTTP with the
`mcp` SDK. Every call goes through the same container use-cases as the GraphQL face (nothing here
touches the store) and is scoped by an API key exactly like the API: the key names the tenant.
- stdio: the key comes from --api-key or BMAM_API_KEY, fixed for the process, checked on every call
  (a revoked key stops working within the key cache time).
- HTTP: each request carries its key in X-API-Key or Authorization: Bearer; no or a bad key is a 401
  before anything MCP happens.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from types import TracebackType
from typing import Annotated, Any, Literal, TypeVar, cast

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import BeforeValidator, StrictBool, ValidationError
from starlette.applications import Starlette
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.errors import BmamError, StoreUnavailable, Unauthenticated
from graph.model import Memory, MemoryType, Tier
from ingest.turns import TurnInput
from resolvers.auth import presented_key
from resolvers.http_guard import error_body

log = logging.getLogger("bmam.mcp")
T = TypeVar("T")

SERVER_NAME = "bmam"
INSTRUCTIONS = (
    "bmam is the user's long-term memory. Call `recall` with what the user just said before answering; "
    "it returns only memories that relate (an empty answer means nothing relates, so do not bring old "
    "topics up). Pass each turn of the conversation to `ingest_turn`: bmam keeps what is worth keeping, settles "
    "changes of mind and takes back 'forget what I just said'. Call `remember` to store one fact, preference or "
    "experience of the user as it is. "
    "`context_prompt` gives recent turns plus relevant memories as ready text. Every tool takes the "
    "user_id of the person inside your app."
)
UNAUTHENTICATED_MESSAGE = "a valid bmam API key is required (X-API-Key or Authorization: Bearer; stdio: BMAM_API_KEY)"
# Any case is taken ("core", as the CLI prints tiers); the tool's schema still lists the values.
_UPPER = BeforeValidator(lambda v: v.strip().upper() if isinstance(v, str) else v)
MemoryTypeName = Annotated[Literal["FACTUAL", "PROCEDURAL", "EPISODIC", "SEMANTIC", "EMOTIONAL"], _UPPER]
TierName = Annotated[Literal["TEMP", "MID", "CORE"], _UPPER]
ReactionName = Annotated[Literal["ENGAGED", "IGNORED", "DISMISSED"], _UPPER]
FeedbackName = Annotated[Literal["LIKE", "DISLIKE", "DWELL", "SKIP"], _UPPER]
ConflictStatusName = Annotated[Literal["OPEN", "RESOLVED", "ALL"], _UPPER]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def memory_dict(m: Memory) -> dict[str, Any]:
    """A memory as plain JSON for a model: text, type, tier, weight and its parts, usage, provenance."""
    return {
        "id": m.id,
        "text": m.text,
        "type": m.type.value,
        "tier": m.tier.name,
        "locked": m.locked,
        "weight": {"final": m.weight.final, "passive": m.weight.passive, "active": m.weight.active,
                   "preset": m.weight.preset},
        "created_at": _iso(m.created_at),
        "last_recalled_at": _iso(m.last_recalled_at),
        "recall_count": m.recall_count,
        "mention_count": m.mention_count,
        "source": {"session_id": m.provenance.session_id, "turn": m.provenance.turn,
                   "device_id": m.provenance.device_id, "episode_id": m.provenance.episode_id},
        "valid_from": _iso(m.valid_from),  # with valid_to: when it held (history)
        "valid_to": _iso(m.valid_to),
    }


def plain(value: Any) -> Any:
    """A use-case result (dataclasses, enums, datetimes, memories) as JSON-ready data."""
    if isinstance(value, Memory):
        return memory_dict(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "value") and isinstance(getattr(value, "value", None), str | int | float):
        return value.value
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    return value


class Keyring:
    """Turns the caller's key into its tenant through the API's key use-case (container.keys)."""

    def __init__(self, container: Container, fixed_key: str | None) -> None:
        self._container = container
        self._fixed_key = fixed_key

    def key_of(self, ctx: Context | None) -> str | None:
        if self._fixed_key is not None:
            return self._fixed_key
        request = None
        if ctx is not None:
            try:
                request = ctx.request_context.request
            except ValueError:
                request = None
        headers = getattr(request, "headers", None)
        return presented_key(headers) if headers is not None else None

    async def tenant(self, ctx: Context | None) -> str:
        key = self.key_of(ctx)
        if not key:
            raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
        principal = await asyncio.to_thread(self._container.keys.authenticate, key)
        return principal.tenant


async def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """A blocking use-case (Neo4j driver, embedding model) off the event loop."""
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))


def _tool_errors(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Domain errors become a tool error the model can read: '[CODE] message'."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            return await fn(*args, **kwargs)
        except BmamError as exc:
            raise ToolError(f"[{exc.code}] {exc.message}") from exc

    return wrapper


class _Server(MCPServer):
    """The SDK's server, with its argument errors answered as bmam's: '[BAD_USER_INPUT] field: reason' (it answered
    pydantic's whole text and link), and an argument the tool does not take refused, not dropped (a model that
    passed preset_kind="SAFETY" to remember believed it stored a safety memory)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            taken = set(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - taken)
            if unknown:
                raise ToolError(f"[BAD_USER_INPUT] {name} takes no argument {', '.join(unknown)} (it takes "
                                f"{', '.join(sorted(taken))})")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ToolError):  # ours, '[CODE] message' (_tool_errors): the SDK put its
                raise ToolError(str(cause)) from cause  # "Error executing tool <name>: " before the code
            if not isinstance(cause, ValidationError):
                raise
            # field and reason only: the rejected values are the caller's data
            reasons = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in cause.errors())
            raise ToolError(f"[BAD_USER_INPUT] {reasons}") from cause


def build_server(container: Container, *, api_key: str | None = None) -> MCPServer:
    """The MCP server. With api_key (stdio) every call runs as that key's tenant; without it (HTTP)
    each request's own key decides."""
    keys = Keyring(container, api_key)
    mcp = _Server(SERVER_NAME, instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING")

    @mcp.tool(description="Ingest one turn of a conversation (as GraphQL's ingestTurn): the user's turns become "
              "memories when they say something worth keeping (a fact, a preference, a change of mind, which "
              "supersedes what it replaces); any speaker's turn goes into the session's recent turns. speaker: user, "
              "assistant, system or tool. Without turn the turn is appended to the session (sending it again "
              "changes nothing); at: ISO 8601, default now. Returns whether it was stored, the memories it made or "
              "repeated, and the memories it took back ('forget what I just said').")
    @_tool_errors
    async def ingest_turn(user_id: str, session_id: str, speaker: str, text: str, at: datetime | None = None,
                          turn: int | None = None, device_id: str | None = None,
                          ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        given = TurnInput(user_id=user_id, session_id=session_id, speaker=speaker, text=text, at=at,
                          device_id=device_id, turn=turn)
        done = await _call(container.ingest.ingest_turn, tenant, given)
        return {"stored": done.stored, "duplicate": done.duplicate, "turn": done.turn, "remembered": done.remembered,
                "reason": done.reason, "memories": [memory_dict(m) for m in done.memories],
                "mentioned": [memory_dict(m) for m in done.mentioned], "forgotten": done.forgotten,
                "errors": plain(done.errors)}

    @mcp.tool(description="Store a memory for a user: text (Chinese or English), its type, the tier it starts in "
              "(temp by default; core is locked) and where it came from. Returns the stored memory. request_id: "
              "your name for this call; sent again (a retry), it returns the memory the first call stored instead "
              "of storing it twice.")
    @_tool_errors
    async def remember(user_id: str, text: str, type: MemoryTypeName = "FACTUAL", tier: TierName = "TEMP",
                       session_id: str | None = None, request_id: str | None = None,
                       ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        request = RememberRequest(user_id=user_id, text=text, type=MemoryType[type], tier=Tier[tier],
                                  session_id=session_id, request_id=request_id)
        return memory_dict(await _call(container.memories.remember, tenant, request))

    @mcp.tool(description="Recall what the user's memory holds about the input: the few memories that relate, "
              "best first, each with its score. `gated` is true when nothing relates: then memories is empty "
              "on purpose. Pass session_id so memories surfaced in the last turns are damped, and time_zone (the "
              "user's IANA zone, e.g. Europe/Berlin) so 'What did I do yesterday?' means the user's yesterday. k "
              "left out takes the server's recall.default_k (5 unless configured).")
    @_tool_errors
    async def recall(user_id: str, query: str, k: int | None = None, session_id: str | None = None,
                     time_zone: str | None = None, ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return await _recall(container, tenant, user_id, query, k=k, session_id=session_id, time_zone=time_zone)

    @mcp.tool(description="Memories related to one memory, following association and entity edges up to "
              "`depth` hops (1..5), each with the strength of its best path. depth and limit left out take the "
              "server's settings (recall.related_depth and related_limit: 2 and 20 unless configured).")
    @_tool_errors
    async def related(user_id: str, memory_id: str, depth: int | None = None, limit: int | None = None,
                      ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return await _related(container, tenant, user_id, memory_id, depth=depth, limit=limit)

    @mcp.tool(description="Text ready for an LLM prompt: the current date and time in the user's time_zone ('Now: "
              "Monday 2026-12-07 14:05 (Europe/Berlin)'), then the session's recent turns plus the relevant (gated) "
              "memories, each marked with its type and age, within a character budget (left out: the server's "
              "recall.context_budget, 2000 unless configured; time_zone: as recall's, left out the server's "
              "recall.time_zone).")
    @_tool_errors
    async def context_prompt(user_id: str, session_id: str, input: str, budget: int | None = None,
                             time_zone: str | None = None, ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return await _context_prompt(container, tenant, user_id, session_id, input, budget=budget,
                                     time_zone=time_zone)

    @mcp.tool(description="What the user's memory holds, newest first: the live memories (with include_history "
              "the superseded ones too), of some types or tiers if given, at most `first` (1..100, default 20). "
              "next_cursor, when not null, is the `after` of the next page.")
    @_tool_errors
    async def memories(user_id: str, types: list[MemoryTypeName] | None = None, tiers: list[TierName] | None = None,
                       first: int = 20, after: str | None = None, include_history: StrictBool = False,
                       ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        page = await _call(container.memories.page, tenant, user_id, types=types,
                           tiers=[Tier[t] for t in tiers] if tiers else None, first=first, after=after,
                           include_history=include_history)
        return {"memories": [memory_dict(m) for m in page.items], "next_cursor": page.next_cursor}

    @mcp.tool(description="Forget one memory of a user. A locked core memory needs confirm=true.")
    @_tool_errors
    async def forget(user_id: str, memory_id: str, confirm: StrictBool = False,
                     ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        forgotten = await _call(container.memories.forget, tenant, user_id, memory_id, confirm=confirm)
        return {"id": forgotten, "forgotten": True}

    @mcp.tool(description="Correct a memory of a user that is wrong: the text (and type, if given) becomes a memory "
              "of its own that supersedes it, in its tier with its lock and weight; the old one stays in the user's "
              "history. Returns the correction and the id it corrects.")
    @_tool_errors
    async def correct(user_id: str, memory_id: str, text: str, type: MemoryTypeName | None = None,
                      ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        done = await _call(container.corrections.correct, tenant, user_id, memory_id, text,
                           MemoryType[type] if type is not None else None)
        return {**memory_dict(done.memory), "corrects": done.corrected.id}

    # The user's own changes to one memory (an agent could forget a memory but not protect or react to one), the
    # use-cases GraphQL's lock, unlock, react and feedback call
    @mcp.tool(description="Mark a memory of a user important: it moves to core and is locked, never deleted, demoted "
              "or evicted by the system. CONFLICT when core is full or the memory is history; a locked one is "
              "returned as it is.")
    @_tool_errors
    async def lock(user_id: str, memory_id: str, ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return memory_dict(await _call(container.tiers.lock, tenant, user_id, memory_id))

    @mcp.tool(description="Unlock a core memory of a user: it goes back to mid, managed by the system again. "
              "A memory not locked is returned as it is; CONFLICT for history.")
    @_tool_errors
    async def unlock(user_id: str, memory_id: str, ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return memory_dict(await _call(container.tiers.unlock, tenant, user_id, memory_id))

    @mcp.tool(description="The user's reaction to a memory that came up: ENGAGED promotes temp to mid, IGNORED "
              "leaves it, DISMISSED deletes a temp memory (a mid one goes back to temp). Returns the memory as it is "
              "after (null when deleted) and the tier moves.")
    @_tool_errors
    async def react(user_id: str, memory_id: str, signal: ReactionName,
                    ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        done = await _call(container.tiers.react, tenant, user_id, memory_id, signal)
        return {"memory_id": done.memory_id, "signal": done.signal.value, "deleted": done.deleted,
                "memory": memory_dict(done.memory) if done.memory is not None else None,
                "tier_changes": [{"memory_id": c.memory_id, "from": c.from_tier.name,  # tiers as memory_dict names
                                  "to": c.to_tier.name if c.to_tier is not None else None, "reason": c.reason.value}
                                 for c in done.changes]}

    @mcp.tool(description="Feedback on a memory's weight: LIKE / DISLIKE move its active part by +/-0.5, DWELL / "
              "SKIP by +/-0.2. Returns the memory as it is after.")
    @_tool_errors
    async def feedback(user_id: str, memory_id: str, signal: FeedbackName,
                       ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return memory_dict(await _call(container.feedback.feedback, tenant, user_id, memory_id, signal))

    @mcp.tool(description="A user's conflicts between a new and an old memory, newest first: OPEN ones (the "
              "default) are held for the user's word (strategy REVIEW): ask the user which is right and settle it "
              "with resolve_conflict. status RESOLVED or ALL for the settled ones too. At most `first` (1..100); "
              "next_cursor, when not null, is the `after` of the next page.")
    @_tool_errors
    async def conflicts(user_id: str, status: ConflictStatusName = "OPEN", first: int = 20, after: str | None = None,
                        ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        page = await _call(container.conflicts.conflict_page, tenant, user_id,
                           status=None if status == "ALL" else status, first=first, after=after)
        return {"conflicts": [plain(c) for c in page.items], "next_cursor": page.next_cursor}

    @mcp.tool(description="Settle a conflict held for review: winner is the id of the one of its two memories the "
              "user says is right; the other becomes history. CONFLICT when it is settled already.")
    @_tool_errors
    async def resolve_conflict(user_id: str, conflict_id: str, winner: str,
                               ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        return cast(dict[str, Any], plain(await _call(container.conflicts.resolve, tenant, user_id, conflict_id,
                                                      winner)))

    @mcp.tool(description="How the user's knowledge changed: the memories about an entity (by name) or one memory, "
              "superseded ones included, each with valid_from / valid_to and what it supersedes or was superseded "
              "by; neither given: every change of mind. For 'Where did I live before?'. Oldest first, at most `first` "
              "(1..100); next_cursor, when not null, is the `after` of the next page.")
    @_tool_errors
    async def history(user_id: str, entity: str | None = None, memory_id: str | None = None, first: int = 50,
                      after: str | None = None, ctx: Context | None = None) -> dict[str, Any]:
        tenant = await keys.tenant(ctx)
        page = await _call(container.conflicts.history_page, tenant, user_id, entity=entity, memory_id=memory_id,
                           first=first, after=after)
        return {"history": [plain(h) for h in page.items], "next_cursor": page.next_cursor}

    @mcp.resource("bmam://users/{user_id}/core", name="core-memories", mime_type="application/json",
                  description="A user's core memories (locked, never evicted by the system), as JSON.")
    async def core_memories(user_id: str, ctx: Context | None = None) -> str:
        # every core memory, a page at a time (core is bounded by its capacity; an import may have gone past it)
        size = container.settings.limits.max_page_size
        core: list[Memory] = []
        after: str | None = None
        try:
            tenant = await keys.tenant(ctx)
            while True:
                page = await _call(container.memories.page, tenant, user_id, tiers=[Tier.CORE], first=size,
                                   after=after)
                core += page.items
                if page.next_cursor is None:
                    break
                after = page.next_cursor
        except BmamError as exc:
            raise ResourceError(f"[{exc.code}] {exc.message}") from exc
        return json.dumps({"user_id": user_id, "memories": [memory_dict(m) for m in core]}, ensure_ascii=False)

    return mcp


# ----- the read use-cases (container.recall, the same ones the GraphQL recall fields call) -------------


async def _recall(container: Container, tenant: str, user_id: str, query: str, *, k: int | None,
                  session_id: str | None, time_zone: str | None = None) -> dict[str, Any]:
    request = RecallRequest(user_id=user_id, query=query, k=k, session_id=session_id, time_zone=time_zone)
    result = await _call(container.recall.recall, tenant, request)
    return {
        "gated": result.gated,
        "reason": result.reason,
        "period": plain(result.period),
        "memories": [{"memory": memory_dict(r.memory), "scores": plain(r.scores), "why": r.why}
                     for r in result.memories],
    }


async def _related(container: Container, tenant: str, user_id: str, memory_id: str, *, depth: int | None,
                   limit: int | None) -> dict[str, Any]:
    found = await _call(container.recall.related, tenant, user_id, memory_id, depth=depth, limit=limit)
    return {
        "memory_id": memory_id,
        "depth": depth if depth is not None else container.settings.recall.related_depth,  # the one searched
        "related": [{"memory": memory_dict(r.memory), "score": r.score, "path": plain(r.path)} for r in found],
    }


async def _context_prompt(container: Container, tenant: str, user_id: str, session_id: str, text: str, *,
                          budget: int | None, time_zone: str | None = None) -> dict[str, Any]:
    prompt = await _call(container.recall.context_prompt, tenant, user_id, session_id, text, budget=budget,
                         time_zone=time_zone)
    return {
        "prompt": prompt.text,
        "gated": prompt.gated,
        "reason": prompt.reason,
        "period": plain(prompt.period),
        "memory_ids": [r.memory.id for r in prompt.memories],
        "reply_style_ids": [m.id for m in prompt.reply_styles],
        "turns": len(prompt.turns),
    }


# ----- stdio ---------------------------------------------------------------------------------------


def unreadable_line_answer(problem: Exception) -> JSONRPCError:
    """The answer to a stdin line the SDK could not read as a JSON-RPC message (its reader hands the error on and
    the SDK then drops it: a caller waited for ever). -32700 as the HTTP transport answers such a body: not JSON,
    or JSON no UTF-8 can hold (a lone surrogate escape, "\\ud800"); -32600 for JSON that is no JSON-RPC message.
    The id is the line's own when Python's json can read it (so the caller waiting on it hears), else null."""
    given: Any = None  # the line (JSON it could not read) or what it read of it (no JSON-RPC message)
    code, why = PARSE_ERROR, str(problem).splitlines()[0] if str(problem) else type(problem).__name__
    if isinstance(problem, ValidationError) and problem.errors():
        first = problem.errors()[0]
        given = first.get("input")
        code = PARSE_ERROR if first.get("type") == "json_invalid" else INVALID_REQUEST
        why = str(first.get("msg") or why)
    request_id: str | int | None = None
    try:
        parsed = json.loads(given) if isinstance(given, str) else given
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("id"), str | int) and not isinstance(parsed["id"], bool):
        request_id = parsed["id"]
    message = "Parse error" if code == PARSE_ERROR else "Invalid Request"
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=f"{message}: {why}"))


class _AnswerUnreadableLines:
    """The read side of the stdio transport, passing the SDK's messages on and answering each line it could not
    read (unreadable_line_answer) on the write side, instead of the SDK's silent drop. What the serving loop uses
    of a read stream: iteration, the sender context of the last item, aclose."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def _answered(self, item: SessionMessage | Exception) -> bool:
        if not isinstance(item, Exception):
            return False
        log.warning("stdin line not read as JSON-RPC: %s", item)
        await self._write.send(SessionMessage(unreadable_line_answer(item)))
        return True

    async def receive(self) -> SessionMessage:
        while await self._answered(item := await self._inner.receive()):
            pass
        return cast(SessionMessage, item)

    def __aiter__(self) -> _AnswerUnreadableLines:
        return self

    async def __anext__(self) -> SessionMessage:
        while await self._answered(item := await self._inner.__anext__()):
            pass
        return cast(SessionMessage, item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _AnswerUnreadableLines:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None:
        await self.aclose()
        return None


async def serve_stdio(server: MCPServer) -> None:
    """MCPServer.run("stdio") with every line answered: the SDK's stdio transport (its claim of fds 0 and 1
    kept), its server run on the read side wrapped by _AnswerUnreadableLines (no patch of the SDK: the SDK's own
    run_stdio_async runs its low-level server on these streams the same way)."""
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(_AnswerUnreadableLines(read_stream, write_stream), write_stream,
                           lowlevel.create_initialization_options())


# ----- HTTP ---------------------------------------------------------------------------------------


class RequireKey(BaseHTTPMiddleware):
    """No or a bad key: 401 before the MCP layer sees the request (like the GraphQL API)."""

    def __init__(self, app: Any, container: Container) -> None:
        super().__init__(app)
        self._container = container

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        key = presented_key(request.headers)
        try:
            if not key:
                raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
            await asyncio.to_thread(self._container.keys.authenticate, key)
        # in the API's error shape ({"errors": [{message, extensions: {code}}]}), as GraphQL and /export answer a
        # 401 (it was {"error": CODE, "message": ...}, a shape of its own)
        except Unauthenticated:
            return Response(error_body(UNAUTHENTICATED_MESSAGE, "UNAUTHENTICATED"), status_code=401,
                            media_type="application/json", headers={"WWW-Authenticate": 'Bearer realm="bmam"'})
        except StoreUnavailable as exc:
            return Response(error_body(exc.message, "UNAVAILABLE"), status_code=503, media_type="application/json",
                            headers={"Retry-After": "5"})
        return await call_next(request)


def http_app(container: Container, *, path: str = "/mcp", host: str = "127.0.0.1") -> Starlette:
    """The streamable-HTTP ASGI app (MCP at `path`), each request scoped by its own API key."""
    server = build_server(container)
    app = server.streamable_http_app(streamable_http_path=path, host=host, stateless_http=True,
                                     json_response=True)
    app.add_middleware(RequireKey, container=container)
    return app
