"""Knowledge out over HTTP: the GraphQL field exportRdf (small exports as one string), the streaming
route GET /export/{userId}.{ttl|nt|jsonld|rdf|graphml|gexf} (API key as for /graphql), and the Neo4j
Browser guide of the cypher/inspect/ queries at GET /guide/bmam.html (no data in it, so no key)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from enum import Enum
from urllib.parse import quote

import strawberry
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from bmam.container import Container
from bmam.usecases.export import browser_guide_html
from graph.errors import BmamError
from graph.graph_export import GraphFormat
from graph.rdf_writers import RdfFormat as RdfFileFormat
from resolvers.auth import ApiError, authenticate, presented_key
from resolvers.context import Info, call
from resolvers.http_guard import error_body

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


_STATUS = {"BAD_USER_INPUT": 400, "LIMIT_EXCEEDED": 413, "NOT_FOUND": 404, "UNAUTHENTICATED": 401,
           "UNAVAILABLE": 503}


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(message, code), status_code=status, headers=headers or {},
                    media_type="application/json")


def export_endpoint(container: Container) -> Callable[[Request], Awaitable[Response]]:
    """GET /export/{userId}.{ext}: the caller's tenant comes from its API key, the format from the
    extension. RDF streams page by page (bounded memory); GraphML and GEXF are built whole."""

    async def export_route(request: Request) -> Response:
        try:
            principal = await authenticate(container, presented_key(request.headers))
        except ApiError as exc:
            return _error(exc.status_code, exc.code, exc.reason, exc.headers)
        name = str(request.path_params["name"])
        user_id, dot, ext = name.rpartition(".")
        if not dot or not user_id:
            return _error(404, "NOT_FOUND", "use /export/{userId}.{ttl|nt|jsonld|rdf|graphml|gexf}")
        filename = quote(f"{user_id}.{ext}", safe="")
        disposition = {"content-disposition": f"attachment; filename*=UTF-8''{filename}"}
        export = container.export
        try:
            if ext.lower() in {f.value for f in GraphFormat}:
                fmt = GraphFormat.parse(ext)
                body = await asyncio.to_thread(export.export_graph, principal.tenant, user_id, fmt)
                return Response(body, media_type=fmt.media_type, headers=disposition)
            rdf = RdfFileFormat.parse(ext)
            # The user is checked before the first byte is sent (NOT_FOUND is still a status then).
            pieces = await asyncio.to_thread(export.export_rdf, principal.tenant, user_id, rdf)
        except BmamError as exc:
            return _error(_STATUS.get(exc.code, 500), exc.code, exc.message)
        return StreamingResponse(pieces, media_type=rdf.media_type, headers=disposition)

    return export_route


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


def export_routes(container: Container) -> list[BaseRoute]:
    """GET /export/{userId}.{ext} and GET /guide/bmam.html, for resolvers/app.py to mount."""
    return [
        # :path, so a user id holding "/" (sent as %2F, which the server decodes before routing) still matches
        Route("/export/{name:path}", export_endpoint(container), methods=["GET"]),
        Route(GUIDE_PATH, guide_route, methods=["GET", "OPTIONS"]),
    ]
