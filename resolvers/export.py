"""Knowledge out and back in over HTTP: the GraphQL field exportRdf (small exports as one string), the streaming
route GET /export/{userId}.{ttl|nt|jsonld|rdf|graphml|gexf} (API key as for /graphql) and, for an admin key, the
whole tenant's GET /export.{ttl|nt|jsonld|rdf}; the GraphQL mutation importRdf (small files as one string) and the
upload POST /import/{userId}.{ttl|nt|jsonld|rdf} (same key, answering importRdf's report as JSON), and for a
tenant-wide file importRdfAllUsers and POST /import.{ttl|nt|jsonld|rdf} (each user into the same id); and the Neo4j
Browser guide of the cypher/inspect/ queries at GET /guide/bmam.html (no data in it, so no key)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Any
from urllib.parse import quote, unquote_to_bytes

import strawberry
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send
from strawberry.schema.config import StrawberryConfig
from strawberry.types.base import StrawberryObjectDefinition
from strawberry.types.enum import StrawberryEnumDefinition

from bmam.container import Container
from bmam.usecases.export import TenantImportReport as TenantImports
from bmam.usecases.inspect_guide import browser_guide_html
from bmam.usecases.keys import Principal
from graph import knowledge_io
from graph.errors import BadInput, BmamError
from graph.graph_export import GraphFormat
from graph.model import Tier as TierValue
from graph.rdf_writers import RdfFormat as RdfFileFormat
from resolvers.auth import ApiError, authenticate, presented_key
from resolvers.context import Info, call
from resolvers.errors import INTERNAL_MESSAGE
from resolvers.http_guard import Refused, drain_body, error_body
from resolvers.ingest import TierChange
from resolvers.ws_protocol import PER_KEY_REASON, ConnectionCap, ConnectionSlot, TooManyConnections

log = logging.getLogger("bmam.api")

GUIDE_PATH = "/guide/bmam.html"


@strawberry.enum(description="An RDF serialization of an export.")
class RdfFormat(Enum):
    TURTLE = "ttl"
    N_TRIPLES = "nt"
    JSON_LD = "jsonld"
    RDF_XML = "rdf"


@strawberry.type
class ExportQuery:
    @strawberry.field(description=(
        "A user's knowledge as an RDF document (memories with their metadata and provenance, entities, "
        "triples; the model is in README \"Knowledge out\"). For small exports: answers LIMIT_EXCEEDED "
        "above the configured size; download larger ones from GET /export/{userId}.{ttl|nt|jsonld|rdf}."))
    async def export_rdf(self, info: Info, user_id: str, format: RdfFormat = RdfFormat.TURTLE) -> str:
        ctx = info.context
        return await call(ctx.container.export.export_rdf_text, ctx.tenant, user_id, RdfFileFormat(format.value))


@strawberry.type(description="Nodes of one kind in an imported file: how many the import created, and how many "
                             "the target user held already (left as they were).")
class ImportCount:
    kind: str = strawberry.field(description="Memory, Entity, Session, Episode or Conflict.")
    created: int
    existing: int


@strawberry.type(description="A user an import read from (the file's) or wrote into (the caller's tenant).")
class ImportUser:
    tenant: str
    user_id: str


@strawberry.type(description="What importRdf (or POST /import) wrote, or with dryRun would write: per node kind "
                             "created and existing, knowledge triples and relationships, what the file held that "
                             "bmam does not read (ignored), the tier moves that brought mid and temp back within "
                             "their capacities, and the stored-memory hooks run for the new memories.")
class ImportReport:
    source: ImportUser
    target: ImportUser
    counts: list[ImportCount]
    created: int = strawberry.field(description="Nodes created, all kinds (0 when the file was imported before).")
    triples: int
    relationships: int
    ignored: int
    dry_run: bool
    capacity: list[TierChange] = strawberry.field(
        description="Memories moved by the mid and temp capacities after the writes (toTier null: evicted).")
    hooks_run: int = strawberry.field(description="New memories whose conflict and association hooks went through.")
    hooks_left: int = strawberry.field(
        description="New memories whose hooks are left pending: they run at the user's next ingest or server start.")

    @classmethod
    def of(cls, r: knowledge_io.ImportReport) -> ImportReport:
        kinds = list(dict.fromkeys([*r.created, *r.existing]))
        return cls(
            source=ImportUser(tenant=r.source.tenant, user_id=r.source.user_id),
            target=ImportUser(tenant=r.target.tenant, user_id=r.target.user_id),
            counts=[ImportCount(kind=k, created=r.created.get(k, 0), existing=r.existing.get(k, 0)) for k in kinds],
            created=sum(r.created.values()), triples=r.triples, relationships=r.relationships, ignored=r.ignored,
            dry_run=r.dry_run,
            capacity=[TierChange(memory_id=strawberry.ID(str(c["memory_id"])), from_tier=TierValue(str(c["from"])),
                                 to_tier=TierValue(c["to"]) if c["to"] is not None else None,
                                 deleted=c["to"] is None, reason=str(c["reason"])) for c in r.capacity],
            hooks_run=r.hooks_run, hooks_left=r.hooks_left)


@strawberry.type(description="What importRdfAllUsers (or POST /import.{ext}) wrote, or with dryRun would write: a "
                             "report per user of the file, each restored into the caller's user of the same id.")
class TenantImportReport:
    users: list[ImportReport] = strawberry.field(description="One report per user of the file, in user id order.")
    ignored: int = strawberry.field(description="Statements of the file under none of its users (not imported).")

    @classmethod
    def of(cls, whole: TenantImports) -> TenantImportReport:
        return cls(users=[ImportReport.of(r) for r in whole.reports], ignored=whole.ignored)


_NAMES = StrawberryConfig().name_converter  # the schema's naming (resolvers/schema.py keeps the default: camelCase)


def answer_json(value: Any) -> Any:
    """A Strawberry object as a GraphQL answer selecting every one of its fields holds it: fields under their GraphQL
    names (camelCase), enums by their GraphQL names, nested objects and lists alike. The uploads answer with it, so
    POST /import's report is importRdf's (and POST /import.{ext}'s importRdfAllUsers's) to the field and type: code
    written against one reads the other. Plain fields only (an attribute each): none of the reports has a resolver."""
    definition = getattr(type(value), "__strawberry_definition__", None)
    if isinstance(definition, StrawberryObjectDefinition):
        return {_NAMES.from_field(f): answer_json(getattr(value, f.python_name)) for f in definition.fields}
    if isinstance(definition, StrawberryEnumDefinition):
        return next(_NAMES.from_enum_value(definition, v) for v in definition.values if v.value == value.value)
    if isinstance(value, list):
        return [answer_json(v) for v in value]
    return value


@strawberry.type
class ExportMutation:
    @strawberry.mutation(description=(
        "Import an RDF export (as exportRdf or GET /export writes it) into a user of the caller's app: the whole "
        "file is parsed and checked first (BAD_USER_INPUT naming the line, or the node and property; nothing "
        "written), CONFLICT when its core memories do not fit in the user's core or its turns clash with the "
        "user's; importing the same file again creates nothing. sourceUserId picks one user of a tenant-wide "
        "export; dryRun checks and counts, writing nothing. For small files: LIMIT_EXCEEDED above the "
        "configured size (BMAM_EXPORT__GRAPHQL_IMPORT_MAX_BYTES, 512 KiB); upload larger ones to "
        "POST /import/{userId}.{ttl|nt|jsonld|rdf}."))
    async def import_rdf(self, info: Info, user_id: str, data: str, format: RdfFormat = RdfFormat.TURTLE,
                         source_user_id: str | None = None, dry_run: bool = False) -> ImportReport:
        ctx = info.context
        report = await call(ctx.container.export.import_rdf_text, ctx.tenant, user_id, data,
                            RdfFileFormat(format.value), source_user=source_user_id, dry_run=dry_run)
        return ImportReport.of(report)

    @strawberry.mutation(description=(
        "Import a tenant-wide RDF export (`bmam export --all-users`) into the caller's app: each user of the file "
        "into the user of the same id, each as importRdf imports one. Every user's part is checked before anything "
        "is written (BAD_USER_INPUT naming the line, or the node and property; CONFLICT when a user's core "
        "memories do not fit or turns clash): a file refused for one user imports nothing. Importing the same file "
        "again creates nothing. dryRun checks and counts, writing nothing. For small files: LIMIT_EXCEEDED above "
        "the configured size (as importRdf's); upload larger ones to POST /import.{ttl|nt|jsonld|rdf}."))
    async def import_rdf_all_users(self, info: Info, data: str, format: RdfFormat = RdfFormat.TURTLE,
                                   dry_run: bool = False) -> TenantImportReport:
        ctx = info.context
        whole = await call(ctx.container.export.import_rdf_all_users_text, ctx.tenant, data,
                           RdfFileFormat(format.value), dry_run=dry_run)
        return TenantImportReport.of(whole)


_STATUS = {"BAD_USER_INPUT": 400, "LIMIT_EXCEEDED": 413, "NOT_FOUND": 404, "UNAUTHENTICATED": 401, "FORBIDDEN": 403,
           "CONFLICT": 409, "UNAVAILABLE": 503, "TIMEOUT": 504}


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(message, code), status_code=status, headers=headers or {},
                    media_type="application/json")


def _user_and_ext(request: Request, route: str) -> tuple[str, str]:
    """{userId}.{ext} of a route's path (the user id may hold dots: the extension is after the last one). A path
    whose percent-escapes are no UTF-8 is refused (the server decodes them with U+FFFD, which would name another
    user, as the GraphQL API refuses such an id)."""
    try:
        unquote_to_bytes(request.scope.get("raw_path") or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "BAD_USER_INPUT", "the path is not valid UTF-8 once its %-escapes are decoded") from None
    user_id, dot, ext = str(request.path_params["name"]).rpartition(".")
    if not dot or not user_id:
        raise Refused(404, "NOT_FOUND", f"use {route}")
    return user_id, ext


async def _export_caller(container: Container, request: Request) -> Principal:
    """Who asks a GET /export route (Refused 401 without a valid key), once its query is known to be empty: GET
    /export takes no parameter, as POST /import refuses one it does not know (?foo=1 was silently ignored here)."""
    try:
        principal = await authenticate(container, presented_key(request.headers))
    except ApiError as exc:
        raise Refused(exc.status_code, exc.code, exc.reason, exc.headers) from exc
    if request.query_params:
        raise Refused(400, "BAD_USER_INPUT", f"unknown query parameter {sorted(request.query_params)[0]!r}; "
                                             "GET /export takes none")
    return principal


def _attachment(filename: str) -> dict[str, str]:
    return {"content-disposition": f"attachment; filename*=UTF-8''{quote(filename, safe='')}"}


def export_endpoint(container: Container) -> Callable[[Request], Awaitable[Response]]:
    """GET /export/{userId}.{ext}: the caller's tenant comes from its API key, the format from the
    extension. RDF streams page by page (bounded memory); GraphML and GEXF are built whole."""

    async def export_route(request: Request) -> Response:
        try:
            principal = await _export_caller(container, request)
            user_id, ext = _user_and_ext(request, "/export/{userId}.{ttl|nt|jsonld|rdf|graphml|gexf}")
        except Refused as refused:
            return _error(refused.status, refused.code, refused.message, refused.headers)
        disposition = _attachment(f"{user_id}.{ext}")
        export = container.export
        try:
            if ext.lower() in {f.value for f in GraphFormat}:
                fmt = GraphFormat.parse(ext)
                body = await asyncio.to_thread(export.export_graph, principal.tenant, user_id, fmt)
                return Response(body, media_type=fmt.media_type, headers=disposition)
            try:
                rdf = RdfFileFormat.parse(ext)
            except BadInput:  # the route serves the graph formats too: name them all
                return _error(400, "BAD_USER_INPUT", f"unknown export format {ext!r}; one of ttl, nt, jsonld, rdf, "
                              "graphml, gexf")
            # The user is checked before the first byte is sent (NOT_FOUND is still a status then).
            pieces = await asyncio.to_thread(export.export_rdf, principal.tenant, user_id, rdf)
        except BmamError as exc:
            return _error(_STATUS.get(exc.code, 500), exc.code, exc.message)
        return StreamingResponse(pieces, media_type=rdf.media_type, headers=disposition)

    return export_route


def tenant_export_endpoint(container: Container) -> Callable[[Request], Awaitable[Response]]:
    """GET /export.{ttl|nt|jsonld|rdf}: every user of the caller's tenant as one RDF document, what `bmam export
    --all-users` writes, streamed page by page as GET /export/{userId}.{ext} streams a user (bounded memory). An admin
    key's only (403 FORBIDDEN for an app key: a dump of every user at once is an operator's tool); 404 NOT_FOUND for
    a tenant with no users; both answered before the first byte is sent."""

    async def tenant_export_route(request: Request) -> Response:
        try:
            principal = await _export_caller(container, request)
        except Refused as refused:
            return _error(refused.status, refused.code, refused.message, refused.headers)
        ext = str(request.path_params["ext"])
        try:
            pieces = await asyncio.to_thread(container.export.export_tenant_rdf, principal, ext)
        except BmamError as exc:
            return _error(_STATUS.get(exc.code, 500), exc.code, exc.message)
        rdf = RdfFileFormat.parse(ext)  # export_tenant_rdf took it: it is one
        return StreamingResponse(pieces, media_type=rdf.media_type, headers=_attachment(f"{principal.tenant}.{ext}"))

    return tenant_export_route


IMPORT_PARAMS = ("dryRun", "sourceUserId")
_BOOLEAN = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
IMPORT_ALL_USERS = "/import.{ttl|nt|jsonld|rdf}"


def _import_target(request: Request) -> tuple[str | None, str]:
    """The user an upload goes into and the file's extension: {userId}.{ext} of POST /import/{userId}.{ext}, or no
    user for POST /import.{ext}, a tenant-wide file whose every user goes into the user of the same id (there
    sourceUserId, which picks one user of such a file, is refused)."""
    if "ext" not in request.path_params:
        return _user_and_ext(request, "/import/{userId}.{ttl|nt|jsonld|rdf}")
    if "sourceUserId" in request.query_params:
        raise Refused(400, "BAD_USER_INPUT", f"POST {IMPORT_ALL_USERS} imports every user of the file; "
                                             "sourceUserId picks one, for POST /import/{userId}.{ext}")
    return None, str(request.path_params["ext"])


class _Upload:
    """The request body of an upload, counted as it arrives and bounded: 413 from Content-Length before reading,
    or as soon as the count passes the limit (nothing more is kept)."""

    def __init__(self, request: Request) -> None:
        self._request = request
        self._complete = False  # the last piece arrived (or the client went away)

    def check_length(self, limit: int) -> None:
        """413 from Content-Length, before anything is read."""
        length = self._request.headers.get("content-length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            raise Refused(413, "LIMIT_EXCEEDED", f"the file is {int(length)} bytes, over the {limit} bytes an "
                                                 "import takes (BMAM_EXPORT__IMPORT_MAX_BYTES)")

    async def read(self, limit: int, *, idle_s: float, grace_s: float, min_bytes_per_s: int) -> bytes:
        """The whole body, refused with 408 when no piece arrives for idle_s, or when, grace_s after the read
        began, the bytes received per second since then are under min_bytes_per_s (0: no such check): a client
        trickling a byte at a time would otherwise hold the import slot for ever."""
        self.check_length(limit)
        body = bytearray()
        loop = asyncio.get_running_loop()
        started = loop.time()
        while not self._complete:
            wait = idle_s
            rate_bound = False  # the wait ends when the average would fall under the minimum, not at idle_s
            if min_bytes_per_s > 0:
                # With nothing more arriving, the average len/elapsed falls under the minimum len/min seconds
                # after the start, and is not checked before the grace ends. Waiting no longer also cuts a client
                # that sends nothing at all.
                until_falls = max(grace_s, len(body) / min_bytes_per_s) - (loop.time() - started)
                if until_falls < wait:
                    wait, rate_bound = max(until_falls, 0.0), True
            try:  # a client that stops sending does not hold the import slot
                message = await asyncio.wait_for(self._request.receive(), wait)
            except TimeoutError:
                # Not drained: reading on would hold the slot for a slow client again.
                self._complete = True
                if rate_bound:
                    raise self._too_slow(len(body), loop.time() - started, grace_s, min_bytes_per_s) from None
                raise Refused(408, "BAD_USER_INPUT", f"no part of the file arrived for {idle_s:g} s "
                                                     "(BMAM_EXPORT__UPLOAD_IDLE_S); send it again") from None
            if message["type"] == "http.disconnect":
                self._complete = True
                raise Refused(400, "BAD_USER_INPUT", "the client went away before the whole file arrived")
            body += message.get("body", b"")
            self._complete = not message.get("more_body", False)
            if len(body) > limit:
                raise Refused(413, "LIMIT_EXCEEDED", f"the file is over the {limit} bytes an import takes "
                                                     "(BMAM_EXPORT__IMPORT_MAX_BYTES)")
            elapsed = loop.time() - started
            # Not on the last piece: the file is whole, refusing it now would free nothing.
            if (not self._complete and min_bytes_per_s > 0 and elapsed >= grace_s
                    and len(body) < min_bytes_per_s * elapsed):
                self._complete = True
                raise self._too_slow(len(body), elapsed, grace_s, min_bytes_per_s)
        return bytes(body)

    @staticmethod
    def _too_slow(received: int, elapsed: float, grace_s: float, min_bytes_per_s: int) -> Refused:
        rate = int(received / elapsed) if elapsed > 0 else 0  # rounded down: never shown as the minimum itself
        return Refused(408, "BAD_USER_INPUT",
                       f"the file is arriving too slowly: {received} bytes in {elapsed:.1f} s, {rate} bytes/s, "
                       f"under the {min_bytes_per_s} bytes/s an import takes once {grace_s:g} s have passed "
                       "(BMAM_EXPORT__UPLOAD_MIN_BYTES_PER_S); send it again over a faster link")

    async def drain(self) -> None:
        """Read what is left of a refused body (bounded), so the client, still sending, gets to read the answer.
        Not once it all arrived: the server would wait for another piece that never comes."""
        if not self._complete:
            self._complete = True
            await drain_body(self._request.receive)


def _import_slot(slots: ConnectionCap, tenant: str) -> ConnectionSlot:
    """One more import of the tenant under the per-tenant and per-process caps, or 503 naming the full one."""
    try:
        return slots.take(tenant)
    except TooManyConnections as exc:
        if exc.reason == PER_KEY_REASON:
            raise Refused(503, "UNAVAILABLE", "another import is running in this server for this app: this app's "
                                              f"imports in progress are at their limit of {slots.per_key} at once; "
                                              "send the file again once one of them has ended "
                                              "(BMAM_EXPORT__MAX_CONCURRENT_IMPORTS_PER_TENANT)",
                          {"Retry-After": "5"}) from None
        raise Refused(503, "UNAVAILABLE", "another import is running in this server; send the file again in "
                                          "a few seconds (BMAM_EXPORT__MAX_CONCURRENT_IMPORTS)",
                      {"Retry-After": "5"}) from None


def import_endpoint(container: Container) -> Callable[[Request], Awaitable[Response]]:
    """POST /import/{userId}.{ext}: the file is the request body, its format the extension (as GET /export
    names them), the tenant the API key's; ?dryRun=true checks and counts only, ?sourceUserId= picks one user
    of a tenant-wide export. POST /import.{ext}: such a file whole, each of its users into the user of the same id
    (the answer: importRdfAllUsers's {"users": [a report per user], "ignored": n}). Answers the import's report as
    importRdf answers it (camelCase, every field: answer_json), or an error in GET /export's shape."""

    # Bounds the memory uploads take: a refused upload keeps none of its body (the client retries later). Slots
    # per tenant and in all, so a tenant uploading slowly holds only its own; counted on the event loop, as
    # websocket connections are per key (the key here is the tenant).
    cfg = container.settings.export
    slots = ConnectionCap(per_key=cfg.max_concurrent_imports_per_tenant, total=cfg.max_concurrent_imports)

    async def import_route(request: Request) -> Response:
        upload = _Upload(request)
        settings = container.settings.export
        limit = settings.import_max_bytes
        try:
            # Everything but the body is checked before the import slot is taken: a client with no key, or
            # announcing a file over the limit, never holds it.
            try:
                principal = await authenticate(container, presented_key(request.headers))
            except ApiError as exc:
                raise Refused(exc.status_code, exc.code, exc.reason, exc.headers) from exc
            user_id, ext = _import_target(request)
            # Refused before the body is read: a typo (dry_run=true), or the flag given twice with two values, must
            # not turn a dry run into an import.
            unknown = sorted(set(request.query_params) - set(IMPORT_PARAMS))
            if unknown:
                raise Refused(400, "BAD_USER_INPUT", f"unknown query parameter {unknown[0]!r}; "
                                                     f"one of {', '.join(IMPORT_PARAMS)}")
            twice = sorted(p for p in IMPORT_PARAMS if len(request.query_params.getlist(p)) > 1)
            if twice:
                raise Refused(400, "BAD_USER_INPUT", f"query parameter {twice[0]!r} is given twice; give it once")
            dry_run = _BOOLEAN.get(request.query_params.get("dryRun", "false").strip().lower())
            if dry_run is None:
                raise Refused(400, "BAD_USER_INPUT", "dryRun must be true or false")
            source_user = request.query_params.get("sourceUserId")
            fmt = RdfFileFormat.parse(ext)
            upload.check_length(limit)
            slot = _import_slot(slots, principal.tenant)
        except (Refused, BmamError) as exc:
            return await _refuse(upload, exc)
        try:  # the slot is given back however the read and the import end
            try:
                data = await upload.read(limit, idle_s=settings.upload_idle_s,
                                         grace_s=settings.upload_grace_s,
                                         min_bytes_per_s=settings.upload_min_bytes_per_s)
            except Refused as exc:
                refused = exc
            else:
                return await _import(principal.tenant, user_id, data, fmt, source_user=source_user,
                                     dry_run=dry_run)
        finally:
            slot.release()
        # Out of the slot: draining what is left of a refused body (up to seconds) holds no other upload back.
        return await _refuse(upload, refused)

    async def _refuse(upload: _Upload, exc: Refused | BmamError) -> Response:
        refused = exc if isinstance(exc, Refused) else Refused(_STATUS.get(exc.code, 400), exc.code, exc.message)
        await upload.drain()
        return _error(refused.status, refused.code, refused.message, refused.headers)

    async def _import(tenant: str, user_id: str | None, data: bytes, fmt: RdfFileFormat, *,
                      source_user: str | None, dry_run: bool) -> Response:
        """The import into the user, or (user_id None) of every user of the file into the user of the same id."""
        export = container.export
        try:
            # the answer is the mutation's report, as GraphQL answers it with every field selected
            answer: Any
            if user_id is None:
                whole = await asyncio.to_thread(export.import_rdf_all_users, tenant, data, fmt, dry_run=dry_run)
                answer = answer_json(TenantImportReport.of(whole))
            else:
                report = await asyncio.to_thread(export.import_rdf, tenant, user_id, data, fmt,
                                                 source_user=source_user, dry_run=dry_run)
                answer = answer_json(ImportReport.of(report))
        except BmamError as exc:
            return _error(_STATUS.get(exc.code, 500), exc.code, exc.message)
        except Exception:  # as /graphql does: the detail goes to the log, never to the client
            log.exception("unexpected error in POST /import")
            return _error(500, "INTERNAL_SERVER_ERROR", INTERNAL_MESSAGE)
        return JSONResponse(answer)

    return import_route


_GUIDE_CORS = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, OPTIONS",
    # Neo4j Browser fetches guides with pragma and cache-control headers: a CORS preflight comes first.
    "access-control-allow-headers": "pragma, cache-control, accept, content-type",
    "access-control-max-age": "600",
}


async def guide_route(request: Request) -> Response:
    """The Browser guide (`:guide http://localhost:8000/guide/bmam.html` in Neo4j Browser). The Browser
    fetches it from its own origin (127.0.0.1:7474), so it is served with CORS open: it holds the
    queries of cypher/inspect/, no data."""
    if request.method == "OPTIONS":
        return Response(status_code=204, headers=_GUIDE_CORS)
    return HTMLResponse(browser_guide_html(), headers={**_GUIDE_CORS, "cache-control": "no-cache"})


class _Only:
    """The answer to any method a route does not serve (the router tries the route serving `method` first). An ASGI
    app, not a function: Starlette gives a function route GET alone when no methods are named."""

    def __init__(self, method: str, route: str) -> None:
        self._method = method
        self._route = route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = _error(405, "BAD_USER_INPUT", f"{self._route} is served over {self._method} only",
                          {"Allow": self._method})
        await response(scope, receive, send)


def export_routes(container: Container) -> list[BaseRoute]:
    """GET /export/{userId}.{ext}, GET /export.{ext}, POST /import/{userId}.{ext}, POST /import.{ext} and
    GET /guide/bmam.html, for resolvers/app.py to mount."""
    imports = import_endpoint(container)  # one endpoint for both import routes: they share its import slot
    return [
        # :path, so a user id holding "/" (sent as %2F, which the server decodes before routing) still matches
        Route("/export/{name:path}", export_endpoint(container), methods=["GET"]),
        Route("/export.{ext}", tenant_export_endpoint(container), methods=["GET"]),  # every user: an admin key's
        Route("/import/{name:path}", imports, methods=["POST"]),
        Route("/import.{ext}", imports, methods=["POST"]),  # a tenant-wide file, every user of it
        # any other method: a 405 in the routes' JSON error shape (Starlette's own is plain text), as /graphql's
        Route("/export/{name:path}", _Only("GET", "/export/{userId}.{ext}")),
        Route("/export.{ext}", _Only("GET", "/export.{ext}")),
        Route("/import/{name:path}", _Only("POST", "/import/{userId}.{ext}")),
        Route("/import.{ext}", _Only("POST", "/import.{ext}")),
        Route(GUIDE_PATH, guide_route, methods=["GET", "OPTIONS"]),
    ]
