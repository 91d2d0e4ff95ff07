"""The `bmam` command line: serve, migrate, the local Neo4j, the memory use-cases; areas register more."""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Annotated

import typer

from bmam.cli_support import (
    FORGET_SESSION_UNCONFIRMED,
    SESSION_LEFT,
    AfterOpt,
    DeviceOpt,
    ForgetSessionYes,
    HistoryOpt,
    JsonOpt,
    PresetOpt,
    RequestIdOpt,
    SessionOpt,
    TenantOpt,
    TierOpt,
    TiersOpt,
    TypesOpt,
    UserOpt,
    WithMemoriesOpt,
    clear_errors,
    echo,
    echo_json,
    fail,
    found,
    memory_json,
    more_after,
    run,
    run_for,
    run_for_user,
    session_receipt_line,
    settings,
    turn_line,
    with_confirm_flag,
)
from bmam.container import Container, ensure_neo4j
from bmam.neo4j_server import LocalNeo4j, Neo4jServerError
from bmam.usecases.memories import RememberRequest
from bmam.usecases.sessions import SessionErasureReceipt, SessionMemories
from graph.errors import Conflict, StoreTimeout, StoreUnavailable
from graph.migrations import DATA_STEPS
from graph.model import PresetKind, Tier

# As settings.deployment.workers allows (BMAM_DEPLOYMENT__WORKERS).
MAX_WORKERS = 64

# Each area's commands live in bmam/commands/<name>.py and expose register(app).
COMMAND_MODULES: tuple[str, ...] = ("ingest", "mcp", "living", "export", "keys", "remote", "recall", "links")

app = typer.Typer(help="bmam: a knowledge-memory service for conversational AI.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
neo4j_app = typer.Typer(help="The project's local Neo4j server (not used when NEO4J_URI is set).",
                        no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")


class _QuietStoreRetries(logging.Filter):
    """graph.store's warnings (a read retried, Neo4j unavailable) only where logging is set up: in the log of
    `bmam serve` and `bmam mcp`, and with --verbose. A command that sets none would print each through Python's
    last-resort handler, several lines of driver text on standard error before its one error line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or bool(logging.getLogger().handlers)


_QUIET_STORE_RETRIES = _QuietStoreRetries()


@app.callback()
def _options(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show Neo4j's retries and failures as "
                                                                  "warnings on standard error.")] = False,
) -> None:
    store_log = logging.getLogger("graph.store")
    if verbose:
        store_log.removeFilter(_QUIET_STORE_RETRIES)
    else:
        store_log.addFilter(_QUIET_STORE_RETRIES)


# ----- server ---------------------------------------------------------------------------


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8000).")] = None,
    workers: Annotated[int | None, typer.Option(help="uvicorn worker processes (default 1; README "
                                                     "\"Operations\").")] = None,
) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql) with uvicorn; starts the local Neo4j if needed."""
    import uvicorn

    from resolvers.app import create_app

    cfg = settings()
    # checked before anything starts: the socket layer would take 99999 as 99999 mod 65536, and 0 or fewer
    # workers as one
    port_from = "--port" if port is not None else "BMAM_API__PORT"
    port = cfg.api.port if port is None else port
    workers = cfg.deployment.workers if workers is None else workers
    if not 1 <= port <= 65535:
        fail(f"{port_from} must be between 1 and 65535 (got {port})", 2)
    if not 1 <= workers <= MAX_WORKERS:
        fail(f"--workers must be between 1 and {MAX_WORKERS} (got {workers})", 2)
    with clear_errors():
        ensure_neo4j(cfg)
        c = Container(cfg)
        schema_applied(c)
    if workers > 1:  # issue 8: several worker processes (bmam/asgi.py)
        from bmam.asgi import serve_workers

        return serve_workers(c, host=host or cfg.api.host, port=port, workers=workers)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    bind = host or cfg.api.host
    uvicorn.run(create_app(c, bind_host=bind, migrate=False), host=bind, port=port,
                log_level="info", ws_max_size=cfg.limits.max_body_bytes)


def schema_applied(c: Container) -> None:
    """`bmam serve` applies the schema before uvicorn starts, in one process however many workers follow: Neo4j
    out of reach (after BMAM_NEO4J__RETRY_TIME_S of retries) is one line naming where it was looked for, not
    uvicorn's pages of start-up traceback and "Application startup failed" (four of them with --workers 2)."""
    try:
        c.migrate()
    except BaseException as exc:
        c.close()
        if isinstance(exc, StoreUnavailable) and not isinstance(exc, StoreTimeout):
            raise StoreUnavailable(f"cannot reach Neo4j at {c.settings.neo4j.bolt_uri}: {_reason(exc)}") from exc
        raise


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in one line: the deepest cause that says something ("[Errno 111] Connection
    refused"), not the driver's whole chain."""
    reason, cause = str(exc), exc.__cause__
    while cause is not None:
        reason = str(cause) or reason
        cause = cause.__cause__
    return " ".join(reason.split())


@app.command()
def migrate() -> None:
    """Apply the schema in cypher/schema/ (idempotent) and the data steps not yet done (graph/migrations.py)."""
    report = run(lambda c: c.migrate(), schema=False)
    steps = [name for name in report.applied if name in DATA_STEPS]
    echo(f"applied {len(report.applied) - len(steps)} schema files ({report.statements_run} statements)"
         + (f" and the data steps {', '.join(steps)}" if steps else ""))


# ----- the local Neo4j ------------------------------------------------------------------


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j (idempotent) and wait until Bolt answers."""
    cfg = settings()
    if not cfg.neo4j.is_local:
        fail(f"NEO4J_URI is set ({cfg.neo4j.uri}); bmam starts no server of its own.")
    try:
        status = LocalNeo4j(cfg.neo4j).start()
    except Neo4jServerError as exc:
        fail(f"neo4j did not start: {exc}")
        return
    echo(f"neo4j running (pid {status.pid}) at {status.bolt_uri}; Browser: {status.http_url}")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j cleanly (SIGTERM); the data stays in the data folder."""
    try:
        stopped = LocalNeo4j(settings().neo4j).stop()
    except Neo4jServerError as exc:
        fail(str(exc))
    echo("neo4j stopped" if stopped else "neo4j was not running")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs; exit 1 when it does not."""
    cfg = settings()
    if not cfg.neo4j.is_local:
        echo(f"using external Neo4j at {cfg.neo4j.uri}")
        return
    status = LocalNeo4j(cfg.neo4j).status()
    if status.running:
        echo(f"running (pid {status.pid}) at {status.bolt_uri}; Browser: {status.http_url}; "
             f"data in {status.home}")
    else:
        echo(f"not running (data in {status.home})")
        raise typer.Exit(1)


# ----- memories --------------------------------------------------------------------------


@app.command()
def remember(
    user: UserOpt,
    text: Annotated[str, typer.Argument(help="What to remember.")],
    type: Annotated[str, typer.Option("--type", "-t", help="FACTUAL, PROCEDURAL, EPISODIC, SEMANTIC, EMOTIONAL")]
    = "FACTUAL",
    tier: TierOpt = Tier.TEMP,
    # as remember's input over GraphQL and MCP (the CLI had no preset kind, session or device)
    preset: PresetOpt = PresetKind.DEFAULT,
    session: Annotated[str | None, typer.Option("--session", "-s", help="The session it was said in.")] = None,
    device: DeviceOpt = None,
    request_id: RequestIdOpt = None,
    tenant: TenantOpt = None,
) -> None:
    """Store a memory for a user and print it as JSON."""
    memory = run_for(tenant, lambda c, t: c.memories.remember(
        t, RememberRequest(user_id=user, text=text, type=type, tier=tier, preset_kind=preset, session_id=session,
                           device_id=device, request_id=request_id)))
    echo_json(memory_json(memory))


@app.command("memories")
def list_memories(
    user: UserOpt,
    type: TypesOpt = None,
    tier: TiersOpt = None,
    first: int = 20,
    after: AfterOpt = None,
    include_history: HistoryOpt = False,
    tenant: TenantOpt = None,
) -> None:
    """List a user's memories, newest first, one JSON object a line."""
    page = run_for_user(tenant, user, lambda c, t: c.memories.page(t, user, types=type, tiers=tier, first=first,
                                                                   after=after, include_history=include_history),
                        empty=lambda p: not p.items)
    for m in page.items:
        echo_json(memory_json(m))
    more_after(page.next_cursor)


@app.command("users")
def list_users(first: int = 20, after: AfterOpt = None, tenant: TenantOpt = None) -> None:
    """List the tenant's users in id order, one JSON object a line: the live memories each holds, the superseded
    ones it keeps as history, and when it was last active (its newest memory or turn)."""
    page = run_for(tenant, lambda c, t: c.users.users(t, first=first, after=after))
    for u in page.items:
        echo_json({"user_id": u.user_id, "memory_count": u.memory_count, "history_count": u.history_count,
                   "last_active_at": u.last_active_at.isoformat() if u.last_active_at else None})
    more_after(page.next_cursor)


@app.command("sessions")
def list_sessions(user: UserOpt, first: int = 20, after: AfterOpt = None, tenant: TenantOpt = None) -> None:
    """List a user's sessions, the newest started first, one JSON object a line: each one's turns and when its
    first and last turns were said."""
    page = run_for(tenant, lambda c, t: c.users.sessions(t, user, first=first, after=after))
    for s in page.items:
        echo_json({"session_id": s.session_id, "turn_count": s.turn_count,
                   "first_turn_at": s.first_turn_at.isoformat() if s.first_turn_at else None,
                   "last_turn_at": s.last_turn_at.isoformat() if s.last_turn_at else None})
    more_after(page.next_cursor)


@app.command("turns")
def list_turns(user: UserOpt, session: SessionOpt, first: int = 50, after: AfterOpt = None, as_json: JsonOpt = False,
               tenant: TenantOpt = None) -> None:
    """List a session's stored turns in turn order, a line each (with --json one JSON object a line), with the
    memories derived from each. NOT_FOUND (exit 1) for a session the user does not have."""
    page = run_for(tenant, lambda c, t: c.sessions.turns(t, user, session, first=first, after=after))
    for t in page.items:
        at = t.at.isoformat() if t.at else None
        if as_json:
            echo_json({"turn": t.turn, "speaker": t.speaker, "text": t.text, "at": at, "device_id": t.device_id,
                       "episode_id": t.episode_id, "memory_ids": list(t.memory_ids)})
        else:
            echo(turn_line(t.turn, at, t.speaker, t.text, t.device_id, t.memory_ids))
    more_after(page.next_cursor)


def session_receipt_json(r: SessionErasureReceipt) -> dict[str, object]:
    return {"tenant": r.tenant, "user_id": r.user_id, "session_id": r.session_id, "memories": r.memories.value,
            "turns_removed": r.turns_removed, "nodes_removed": r.nodes_removed,
            "relationships_removed": r.relationships_removed, "memories_forgotten": r.memories_forgotten,
            "forgotten_memory_ids": list(r.forgotten_memory_ids), "memories_kept": r.memories_kept,
            "shared_kept": r.shared_kept, "locked_kept": r.locked_kept, "remaining_turns": r.remaining_turns,
            "remaining_nodes": r.remaining_nodes, "verified": r.verified, "at": r.at.isoformat()}


@app.command("forget-session")
def forget_session(user: UserOpt, session: SessionOpt, yes: ForgetSessionYes = False,
                   with_memories: WithMemoriesOpt = False, as_json: JsonOpt = False, tenant: TenantOpt = None) -> None:
    """Erase one session of a user: its turns, its session node and its anti-repetition state (the memories derived
    from it stay unless --with-memories); print the receipt. Stopped midway, running it again finishes it."""
    if not yes:
        fail(FORGET_SESSION_UNCONFIRMED, 2)
    memories = SessionMemories.FORGET if with_memories else SessionMemories.KEEP
    r = run_for(tenant, lambda c, t: c.sessions.forget_session(t, user, session, confirm=True, memories=memories))
    if as_json:
        echo_json(session_receipt_json(r))
    else:
        echo(session_receipt_line(r.session_id, turns=r.turns_removed, forgotten=r.memories_forgotten,
                                  kept=r.memories_kept, shared=r.shared_kept, locked=r.locked_kept,
                                  verified=r.verified))
    if not r.verified:
        fail(SESSION_LEFT, 1)


@app.command("memory")
def one_memory(user: UserOpt, memory_id: Annotated[str, typer.Argument()], tenant: TenantOpt = None) -> None:
    """One memory of a user, as JSON (NOT_FOUND when the user has none by that id)."""

    echo_json(memory_json(run_for(tenant, lambda c, t: found(c.memories.get(t, user, memory_id),
                                                             f"memory {memory_id} not found"))))


@app.command()
def search(
    user: UserOpt,
    query: Annotated[str, typer.Argument()],
    k: Annotated[int, typer.Option("-k", "--k", help="At most this many memories.")] = 5,
    tenant: TenantOpt = None,
) -> None:
    """Vector search over a user's memories."""
    hits = run_for_user(tenant, user, lambda c, t: c.memories.search(t, user, query, k=k), empty=lambda h: not h)
    for hit in hits:
        echo_json({"score": round(hit.score, 4), **memory_json(hit.memory)})


@app.command()
def forget(
    user: UserOpt,
    memory_id: Annotated[str, typer.Argument()],
    confirm: Annotated[bool, typer.Option(help="Needed to forget a locked core memory.")] = False,
    tenant: TenantOpt = None,
) -> None:
    """Forget one memory."""

    def forget_one(c: Container, t: str) -> str:
        try:
            return c.memories.forget(t, user, memory_id, confirm=confirm)
        except Conflict as exc:  # the refusal names the API's argument; here it is this command's flag
            if exc.field != "confirm":
                raise
            raise Conflict(with_confirm_flag(exc.message), field="confirm") from exc

    echo(f"forgot {run_for(tenant, forget_one)}")


for _name in COMMAND_MODULES:
    importlib.import_module(f"bmam.commands.{_name}").register(app)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
