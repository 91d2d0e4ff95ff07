"""The ASGI app served by uvicorn: /graphql (HTTP and graphql-transport-ws; GraphiQL in dev), /healthz,
/metrics, behind the HTTP guard (resolvers/http_guard.py).

Every GraphQL request carries an API key (`X-API-Key: <key>` or `Authorization: Bearer <key>`; over a
websocket also the connection_init payload `{"apiKey": "<key>"}`). Without a valid key the answer is
HTTP 401 with `{"errors": [{"extensions": {"code": "UNAUTHENTICATED"}}]}` (a websocket is closed with
4403; one over the per-key or per-process connection cap with 4429). The tenant every resolver sees comes
from the key, and from nothing else.

/metrics shows every tenant at once, so it takes no API key: in the production profile it asks for the
operator's token (settings.api.metrics_token, `Authorization: Bearer`), and without one set it refuses
everyone; in the dev profile it is open unless a token is set.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.types.unset import UNSET, UnsetType

from bmam.container import Container
from bmam.metrics import CONTENT_TYPE, Metrics
from bmam.timing import current_timings
from bmam.usecases.health import Health
from bmam.usecases.keys import dev_key
from bmam.usecases.warm_up import RestartWatch, WarmUpReport
from graph.errors import StoreUnavailable
from resolvers.access_log import drop_query_strings
from resolvers.auth import ApiError, authenticate, metrics_token_matches, presented_key
from resolvers.context import RequestContext
from resolvers.export import export_routes
from resolvers.http_guard import HttpGuard, error_body
from resolvers.loopback import is_loopback
from resolvers.schema import build_schema
from resolvers.ui_routes import ui_routes
from resolvers.ws_protocol import PROTOCOLS, CheckedTransportWS, ConnectionCap

log = logging.getLogger("bmam.api")

_HTTP_CODES = {401: "UNAUTHENTICATED", 404: "NOT_FOUND", 413: "LIMIT_EXCEEDED", 503: "UNAVAILABLE"}
METRICS_UNAUTHENTICATED = "/metrics needs the operator's metrics token (Authorization: Bearer)"


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


class BmamGraphQL(GraphQL[RequestContext, None]):
    graphql_transport_ws_handler_class = CheckedTransportWS  # resolvers/ws_protocol.py

    def __init__(self, container: Container, metrics: Metrics | None = None, *, ws_cap: ConnectionCap,
                 **kwargs: Any) -> None:
        self.container = container
        self.metrics = metrics
        self.ws_cap = ws_cap
        super().__init__(subscription_protocols=PROTOCOLS, **kwargs)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as exc:
            response = self._refusal(exc)
        await response(scope, receive, send)

    def _refusal(self, exc: HTTPException) -> Response:
        """Strawberry's and our HTTP-level refusals as GraphQL-shaped JSON with a code."""
        code = exc.code if isinstance(exc, ApiError) else _HTTP_CODES.get(exc.status_code, "BAD_USER_INPUT")
        headers = exc.headers if isinstance(exc, ApiError) else {}
        if self.metrics:
            self.metrics.observe_rejection(exc.status_code)
        return Response(error_body(exc.reason, code), status_code=exc.status_code, headers=headers,
                        media_type="application/json")

    async def get_context(self, request: Any, response: Any) -> RequestContext:
        ctx = RequestContext(container=self.container, request=request, response=response, metrics=self.metrics)
        current_timings.set(ctx.timings)
        key = presented_key(request.headers)
        if self.is_websocket_request(request):
            if key:  # else the connection_init payload must carry it (on_ws_connect)
                try:
                    ctx.principal = await authenticate(self.container, key)
                except ApiError:
                    ctx.principal = None
            return ctx
        ctx.want_timings = _truthy(request.headers.get("x-bmam-timings"))
        if request.method == "GET" and self.graphql_ide and "query" not in request.query_params:
            return ctx  # the GraphiQL page itself; it sends the key with each query it runs
        ctx.principal = await authenticate(self.container, key)
        return ctx

    async def on_ws_connect(self, context: RequestContext) -> UnsetType | dict[str, object] | None:
        if context.principal is None:
            params = context.connection_params if isinstance(context.connection_params, dict) else {}
            key = params.get("apiKey") or params.get("X-API-Key")
            try:
                context.principal = await authenticate(self.container, key if isinstance(key, str) else None)
            except ApiError as exc:
                raise ConnectionRejectionError({"code": exc.code, "message": exc.reason}) from exc
        # Counted once the key is known (a refused key takes no place); over a cap: TooManyConnections, which
        # CheckedTransportWS answers with 4429. Given back in CheckedTransportWS.shutdown.
        context.ws_slot = self.ws_cap.take(context.principal.key_id)
        return UNSET


async def _announce_dev_key(container: Container) -> None:
    settings = container.settings
    path = settings.data_dir / "dev-api-key"
    try:
        key, created = await asyncio.to_thread(dev_key, container.keys, path, settings.api.default_tenant)
    except StoreUnavailable as exc:  # serve anyway: /healthz tells what is wrong
        log.warning("no dev API key: %s", exc.message)
        return
    print(f"dev API key for tenant {settings.api.default_tenant!r} ({'new' if created else 'reused'}, "
          f"saved in {path}): {key}", flush=True)


async def _warm_up_plans(container: Container, rewarm_check_s: float) -> None:
    """The plan warm-up at start; then, every rewarm_check_s, again after Neo4j restarted under this process."""
    store = container.store

    def started() -> int | None:  # while Neo4j is down: None after one ping, not a read retried for 10 s
        return store.server_started() if store.ping() else None

    watch = RestartWatch(container.plan_warm_up.run, started)
    try:
        start = await asyncio.to_thread(started) if rewarm_check_s > 0 else None
        report = await asyncio.to_thread(container.plan_warm_up.run)
    except Exception as exc:  # a rehearsal is only a head start: the first requests compile what it did not
        log.warning("plan warm-up failed: %r", exc)
        return
    _log_warm_up(report, "")
    if start is None:  # not asked, or Neo4j does not say: no watch
        return
    watch.warmed(start)
    while True:
        await asyncio.sleep(rewarm_check_s)
        try:
            report_again = await asyncio.to_thread(watch.check)
        except Exception as exc:  # Neo4j down for now: asked again at the next check
            log.warning("plan re-warm check failed: %r", exc)
            continue
        if report_again is not None:
            _log_warm_up(report_again, " after a Neo4j restart")


def _log_warm_up(report: WarmUpReport, occasion: str) -> None:
    if report.users:
        log.info("plan warm-up%s: %d rehearsed recalls and relatedSearch at %d depths on %s in %.1f s", occasion,
                 report.recalls, report.related_depths, ", ".join(report.users), report.seconds)


SHUTDOWN_WAIT_S = 30.0  # at most this long for background statements to end before the driver is closed


async def _threads_done(executor: ThreadPoolExecutor, *, timeout_s: float) -> None:
    """Shut the executor down (queued jobs cancelled) and wait, without blocking the loop, for its running jobs
    to end, at most timeout_s."""
    waiter = threading.Thread(target=executor.shutdown, kwargs={"wait": True, "cancel_futures": True},
                              name="bmam-shutdown", daemon=True)
    waiter.start()
    deadline = time.monotonic() + timeout_s
    while waiter.is_alive() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if waiter.is_alive():
        log.warning("closing the Neo4j driver while background work still runs (waited %.0f s)", timeout_s)


async def _resume_hooks(container: Container) -> None:
    try:
        resumed = await asyncio.to_thread(container.ingest.resume_hooks)
    except Exception as exc:  # Neo4j away at start: the next ingest of each user tries again
        log.warning("could not resume the stored-memory hooks left pending: %r", exc)
        return
    if resumed:
        log.warning("ran the stored-memory hooks of %d memories left pending", resumed)


def create_app(
    container: Container, *, migrate: bool = True, bind_host: str | None = None, dev_key_enabled: bool | None = None
) -> Starlette:
    """The app. `bind_host` is where uvicorn listens (dev mode prints a key only on loopback);
    `dev_key_enabled` overrides settings.api.dev_key (tests pass False)."""
    settings = container.settings
    limits = settings.limits
    dev = settings.api.profile == "dev"
    drop_query_strings()
    schema = build_schema(
        max_depth=limits.max_query_depth, max_aliases=limits.max_aliases, max_tokens=limits.max_tokens,
        max_selections=limits.max_selections, max_cost=limits.max_query_cost, max_page_size=limits.max_page_size,
        null_sizes={"Query.recall": settings.recall.default_k,
                    "Query.workingMemory": settings.ingest.working_memory_turns,
                    "Query.relatedSearch": settings.recall.related_limit},
        introspection=dev,
    )
    served = schema._schema
    root_fields = [name for root in (served.query_type, served.mutation_type, served.subscription_type)
                   if root is not None for name in root.fields]
    health = Health(container.store)
    metrics = Metrics(tier_counts=health.memories_by_tier,
                      tier_cache_s=settings.api.tier_count_cache_s, root_fields=root_fields)
    graphql = BmamGraphQL(
        container,
        metrics,
        ws_cap=ConnectionCap(per_key=settings.api.max_ws_connections_per_key,
                             total=settings.api.max_ws_connections),
        schema=schema,
        graphql_ide="graphiql" if dev else None,
        allow_queries_via_get=True,
    )
    host = bind_host or settings.api.host
    wants_dev_key = dev_key_enabled if dev_key_enabled is not None else settings.api.dev_key
    if wants_dev_key is None:
        wants_dev_key = dev and is_loopback(host)

    async def healthz(_: Request) -> Response:
        report = await asyncio.to_thread(health.check)
        body = {"status": "ok" if report.ok else "unavailable", "neo4j": report.neo4j,
                "pending_migrations": report.pending_migrations, "indexes_not_online": report.indexes_not_online}
        return JSONResponse(body, status_code=200 if report.ok else 503)

    metrics_token = settings.api.metrics_token.get_secret_value() if settings.api.metrics_token else None
    metrics_open = dev and metrics_token is None
    if settings.api.metrics and not metrics_open and metrics_token is None:
        log.warning("/metrics refuses every request: the production profile needs BMAM_API__METRICS_TOKEN")

    async def metrics_endpoint(request: Request) -> Response:
        if not metrics_open and (metrics_token is None or not metrics_token_matches(request.headers, metrics_token)):
            metrics.observe_rejection(401)
            return Response(error_body(METRICS_UNAUTHENTICATED, "UNAUTHENTICATED"), status_code=401,
                            headers={"WWW-Authenticate": 'Bearer realm="bmam-metrics"'}, media_type="application/json")
        return Response(await asyncio.to_thread(metrics.render), media_type=CONTENT_TYPE)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        executor = ThreadPoolExecutor(max_workers=settings.api.worker_threads, thread_name_prefix="bmam")
        loop.set_default_executor(executor)
        if migrate:
            await asyncio.to_thread(container.migrate)
        # Load the embedding model before the first request, not during it.
        embedder = await asyncio.to_thread(container.load_embedding_model)
        listeners = getattr(embedder, "listeners", None)
        if isinstance(listeners, list):
            listeners.append(metrics.observe_embedding)
        container.store.timer.listeners.append(metrics.observe_query)
        if settings.api.freeze_startup_heap:
            gc.collect()
            gc.freeze()
        # In the background: a slow or absent Neo4j must not hold up the start.
        announcing = asyncio.create_task(_announce_dev_key(container)) if wants_dev_key else None
        # Hooks of memories stored before a stop and never finished (conflicts, associations): again, in the
        # background (an ingest also resumes its user's before its own).
        resuming = asyncio.create_task(_resume_hooks(container))
        warming = asyncio.create_task(_warm_up_plans(container, settings.api.rewarm_check_s)) \
            if settings.api.warm_up_plans else None
        # The maintenance schedule (daily check, weekly rebalance, monthly full) is off unless configured.
        scheduler = container.scheduler if settings.maintenance.schedule else None
        if scheduler is not None:
            scheduler.start()
        # Memory events to and from the other processes serving this store (subscriptions hear them all).
        relay = await asyncio.to_thread(lambda: container.start_event_relay(listen=True))
        try:
            yield
        finally:
            if scheduler is not None:
                await asyncio.to_thread(scheduler.stop)
            if relay is not None:
                await asyncio.to_thread(relay.stop)
            if announcing is not None:
                announcing.cancel()
            resuming.cancel()
            if warming is not None:
                warming.cancel()
            container.store.timer.listeners.remove(metrics.observe_query)
            if isinstance(listeners, list):
                listeners.remove(metrics.observe_embedding)
            # A cancelled task's thread (a warm-up, a hooks resume) may still be inside a statement: the driver
            # closing its connections under it failed the shutdown (BufferError in the driver's outbox).
            await _threads_done(executor, timeout_s=SHUTDOWN_WAIT_S)
            container.close()
            if settings.api.freeze_startup_heap:
                gc.unfreeze()  # frozen objects are never freed at exit: native modules would report them leaked

    routes = [
        Route("/graphql", graphql, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", graphql),
        Route("/healthz", healthz, methods=["GET"]),
        *ui_routes(),  # the memory inspector at /ui (resolvers/ui_routes.py)
        *export_routes(container),  # GET /export/{userId}.{ext}, GET /guide/bmam.html (resolvers/export.py)
    ]
    if settings.api.metrics:
        routes.append(Route("/metrics", metrics_endpoint, methods=["GET"]))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(HttpGuard, max_body_bytes=limits.max_body_bytes, on_refused=metrics.observe_rejection)
    return app
