"""The ASGI app served by uvicorn: /graphql (GraphiQL in dev) and /healthz."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL

from bmam.container import Container
from graph.migrations import missing_migrations
from resolvers.context import RequestContext
from resolvers.schema import build_schema

log = logging.getLogger("bmam.api")


class BmamGraphQL(GraphQL[RequestContext, None]):
    def __init__(self, container: Container, **kwargs: Any) -> None:
        self.container = container
        super().__init__(**kwargs)

    async def get_context(self, request: Any, response: Any) -> RequestContext:
        return RequestContext(
            container=self.container,
            tenant=self.container.settings.api.default_tenant,
            request=request,
            response=response,
        )


def create_app(container: Container, *, migrate: bool = True) -> Starlette:
    settings = container.settings
    limits = settings.limits
    schema = build_schema(
        max_depth=limits.max_query_depth, max_aliases=limits.max_aliases, max_tokens=limits.max_tokens
    )
    dev = settings.api.profile == "dev"
    graphql = BmamGraphQL(
        container,
        schema=schema,
        graphql_ide="graphiql" if dev else None,
        allow_queries_via_get=True,
    )

    async def healthz(_: Request) -> Response:
        reachable = await asyncio.to_thread(container.store.ping)
        pending: list[str] = []
        if reachable:
            try:
                pending = await asyncio.to_thread(missing_migrations, container.store)
            except Exception:  # the store went away between the two calls
                reachable = False
        ok = reachable and not pending
        body = {"status": "ok" if ok else "unavailable", "neo4j": reachable, "pending_migrations": pending}
        return JSONResponse(body, status_code=200 if ok else 503)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if migrate:
            await asyncio.to_thread(container.migrate)
        # Load the embedding model before the first request, not during it.
        await asyncio.to_thread(lambda: container.embedder)
        yield
        container.close()

    return Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/healthz", healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
