"""The `bmam` command line: serve, migrate, the local Neo4j, and the memory use-cases."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, TypeVar

import typer

from bmam.container import Container, ensure_neo4j
from bmam.neo4j_server import LocalNeo4j, Neo4jServerError
from bmam.settings import Settings, load_settings
from bmam.usecases.memories import RememberRequest
from graph.errors import BmamError
from graph.model import Memory, MemoryType, Tier

T = TypeVar("T")

app = typer.Typer(help="bmam: a knowledge-memory service for conversational AI.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
neo4j_app = typer.Typer(help="The project's local Neo4j server (not used when NEO4J_URI is set).",
                        no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")

UserOpt = Annotated[str, typer.Option("--user", "-u", help="The user id inside the tenant.")]
TenantOpt = Annotated[str | None, typer.Option("--tenant", help="Tenant (app); default from settings.")]


def fail(message: str, code: int = 1) -> None:
    typer.secho(message, fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


@contextmanager
def clear_errors() -> Iterator[None]:
    """Known failures become a message and a non-zero exit, never a stack trace."""
    try:
        yield
    except BmamError as exc:
        fail(f"error [{exc.code}]: {exc.message}", 2 if exc.code in ("BAD_USER_INPUT", "LIMIT_EXCEEDED") else 1)
    except Neo4jServerError as exc:
        fail(f"neo4j: {exc}")


def _settings() -> Settings:
    return load_settings()


@contextmanager
def container(start_neo4j: bool = True) -> Iterator[Container]:
    settings = _settings()
    with clear_errors():
        if start_neo4j:
            ensure_neo4j(settings)
        c = Container(settings)
        try:
            yield c
        finally:
            c.close()


def _run(fn: Callable[[Container], T]) -> T:
    with container() as c, clear_errors():
        return fn(c)


def _memory_json(m: Memory) -> dict[str, object]:
    return {
        "id": m.id, "text": m.text, "type": m.type.value, "tier": m.tier.value, "weight": m.weight.final,
        "locked": m.locked, "created_at": m.created_at.isoformat(),
    }


# ----- server ---------------------------------------------------------------------------


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8000).")] = None,
) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql) with uvicorn; starts the local Neo4j if needed."""
    import uvicorn

    from resolvers.app import create_app

    settings = _settings()
    with clear_errors():
        ensure_neo4j(settings)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    c = Container(settings)
    uvicorn.run(create_app(c), host=host or settings.api.host, port=port or settings.api.port,
                log_level="info")


@app.command()
def migrate() -> None:
    """Apply the schema in cypher/schema/ (idempotent)."""
    report = _run(lambda c: c.migrate())
    typer.echo(f"applied {len(report.applied)} schema files ({report.statements_run} statements)")


# ----- the local Neo4j ------------------------------------------------------------------


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j (idempotent) and wait until Bolt answers."""
    settings = _settings()
    if not settings.neo4j.is_local:
        fail(f"NEO4J_URI is set ({settings.neo4j.uri}); bmam starts no server of its own.")
    try:
        status = LocalNeo4j(settings.neo4j).start()
    except Neo4jServerError as exc:
        fail(f"neo4j did not start: {exc}")
        return
    typer.echo(f"neo4j running (pid {status.pid}) at {status.bolt_uri}; Browser: {status.http_url}")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j cleanly (SIGTERM); the data stays in the data folder."""
    try:
        stopped = LocalNeo4j(_settings().neo4j).stop()
    except Neo4jServerError as exc:
        fail(str(exc))
    typer.echo("neo4j stopped" if stopped else "neo4j was not running")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs; exit 1 when it does not."""
    settings = _settings()
    if not settings.neo4j.is_local:
        typer.echo(f"using external Neo4j at {settings.neo4j.uri}")
        return
    status = LocalNeo4j(settings.neo4j).status()
    if status.running:
        typer.echo(f"running (pid {status.pid}) at {status.bolt_uri}; Browser: {status.http_url}; "
                   f"data in {status.home}")
    else:
        typer.echo(f"not running (data in {status.home})")
        raise typer.Exit(1)


# ----- memories --------------------------------------------------------------------------


@app.command()
def remember(
    user: UserOpt,
    text: Annotated[str, typer.Argument(help="What to remember.")],
    type: Annotated[str, typer.Option("--type", "-t", help="FACTUAL, PROCEDURAL, EPISODIC, SEMANTIC, EMOTIONAL")]
    = "FACTUAL",
    tier: Annotated[Tier, typer.Option(help="temp, mid or core")] = Tier.TEMP,
    tenant: TenantOpt = None,
) -> None:
    """Store a memory for a user and print it as JSON."""
    def work(c: Container) -> Memory:
        return c.memories.remember(tenant or c.settings.api.default_tenant,
                                   RememberRequest(user_id=user, text=text, type=type, tier=tier))
    typer.echo(json.dumps(_memory_json(_run(work)), ensure_ascii=False))


@app.command("memories")
def list_memories(
    user: UserOpt,
    type: Annotated[list[MemoryType] | None, typer.Option("--type", "-t")] = None,
    tier: Annotated[list[Tier] | None, typer.Option("--tier")] = None,
    first: int = 20,
    tenant: TenantOpt = None,
) -> None:
    """List a user's memories, newest first, one JSON object a line."""
    page = _run(lambda c: c.memories.page(tenant or c.settings.api.default_tenant, user,
                                          types=type, tiers=tier, first=first))
    for m in page.items:
        typer.echo(json.dumps(_memory_json(m), ensure_ascii=False))


@app.command()
def search(
    user: UserOpt,
    query: Annotated[str, typer.Argument()],
    k: int = 5,
    tenant: TenantOpt = None,
) -> None:
    """Vector search over a user's memories."""
    hits = _run(lambda c: c.memories.search(tenant or c.settings.api.default_tenant, user, query, k=k))
    for hit in hits:
        typer.echo(json.dumps({"score": round(hit.score, 4), **_memory_json(hit.memory)}, ensure_ascii=False))


@app.command()
def forget(
    user: UserOpt,
    memory_id: Annotated[str, typer.Argument()],
    confirm: Annotated[bool, typer.Option(help="Needed to forget a locked core memory.")] = False,
    tenant: TenantOpt = None,
) -> None:
    """Forget one memory."""
    forgotten = _run(lambda c: c.memories.forget(tenant or c.settings.api.default_tenant, user, memory_id,
                                                 confirm=confirm))
    typer.echo(f"forgot {forgotten}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
