"""The ASGI entry point for uvicorn's own process manager, so bmam runs as several worker processes:

    uvicorn bmam.asgi:create_app --factory --workers 2 --timeout-worker-healthcheck 60 --port 8000

`bmam serve --workers 2` does exactly this after starting the local Neo4j (unless NEO4J_URI is set),
applying the schema once and printing the dev API key. Each worker builds its own Container (its own
driver pool and embedding model) from the environment. The workers share nothing but Neo4j: with the
default settings.deployment.session_state = "shared" the session state (working memory, anti-repetition)
is read from Neo4j on every access, so any worker serves any request of any session (README
"Operations: faults, restarts, scale, several machines"). Every HTTP answer names its worker in the
header `X-Bmam-Worker` (the process id), so an operator (and the tests) can see who answered.
"""

from __future__ import annotations

import logging
import os
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bmam.container import Container
from bmam.settings import Settings, load_settings
from graph.errors import StoreUnavailable
from resolvers.loopback import is_loopback

log = logging.getLogger("bmam.asgi")

WORKER_HEADER = "x-bmam-worker"
HEALTHCHECK_TIMEOUT_S = 60


class WorkerHeader:
    """Adds `X-Bmam-Worker: <pid>` to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._value = str(os.getpid()).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def named(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (WORKER_HEADER.encode(), self._value)]}
            await send(message)

        await self.app(scope, receive, named)


def migrate(container: Container, attempts: int = 5) -> None:
    """Apply the schema, retrying: workers starting together may race on the same IF NOT EXISTS statement,
    and Neo4j may still be starting."""
    for attempt in range(1, attempts + 1):
        try:
            container.migrate()
            return
        except Exception as exc:  # a concurrent schema change, or Neo4j not answering yet
            if attempt == attempts:
                raise
            log.warning("schema not applied yet (%s); retrying", exc)
            time.sleep(attempt)


def create_app(settings: Settings | None = None) -> ASGIApp:
    """The app of one worker process (uvicorn --factory calls this with no argument)."""
    from resolvers.app import create_app as create_bmam_app

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s")
        logging.getLogger("neo4j.notifications").setLevel(logging.WARNING)  # query-plan hints, not events
    cfg = settings or load_settings()
    container = Container(cfg)
    if cfg.deployment.migrate_at_start:
        migrate(container)
    # The dev key is announced once by `bmam serve`, not by every worker (they would race on its file).
    app = create_bmam_app(container, migrate=False, dev_key_enabled=False if cfg.deployment.workers > 1 else None)
    return WorkerHeader(app)


def serve_workers(container: Container, *, host: str, port: int, workers: int) -> None:
    """`bmam serve --workers N`, given the parent's container (Neo4j up, the schema applied: bmam serve does both
    first, once): the dev key printed, the container closed, N workers."""
    import uvicorn

    from bmam.usecases.keys import dev_key

    cfg = container.settings
    try:
        if workers > 1 and cfg.deployment.session_state != "shared":
            raise SystemExit("--workers > 1 needs BMAM_DEPLOYMENT__SESSION_STATE=shared (the default): with "
                             "session state held in each process, a session's turns would be split between workers")
        wants_key = cfg.api.dev_key if cfg.api.dev_key is not None else (
            cfg.api.profile == "dev" and is_loopback(host))
        if wants_key:
            try:
                key, created = dev_key(container.keys, cfg.data_dir / "dev-api-key", cfg.api.default_tenant)
                print(f"dev API key for tenant {cfg.api.default_tenant!r} ({'new' if created else 'reused'}, "
                      f"saved in {cfg.data_dir / 'dev-api-key'}): {key}", flush=True)
            except StoreUnavailable as exc:
                log.warning("no dev API key: %s", exc.message)
    finally:
        container.close()
    # The workers are spawned processes: they read their settings from this environment.
    os.environ["BMAM_DEPLOYMENT__MIGRATE_AT_START"] = "false"
    os.environ["BMAM_DEPLOYMENT__WORKERS"] = str(workers)
    # A spawned worker answers uvicorn's health pings only once its imports are done (torch, the driver):
    # on a busy machine that takes longer than uvicorn's default 5 s, and the supervisor would kill and
    # respawn it again and again.
    uvicorn.run("bmam.asgi:create_app", factory=True, host=host, port=port, workers=workers, log_level="info",
                ws_max_size=cfg.limits.max_body_bytes, timeout_worker_healthcheck=HEALTHCHECK_TIMEOUT_S)
