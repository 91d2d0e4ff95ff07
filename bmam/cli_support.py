"""What every CLI command shares: options, clear error reporting, and a container per invocation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, TypeVar

import typer

from bmam import validate
from bmam.container import Container, ensure_neo4j
from bmam.neo4j_server import Neo4jServerError
from bmam.settings import Settings, load_settings
from graph.errors import BmamError
from graph.model import Memory

T = TypeVar("T")


def tenant_option(value: str | None) -> str | None:
    """--tenant as given, checked like every tenant (bmam keys create's check): "" is no tenant (not the
    default one), nor are blanks, control or invisible characters or more than 256 characters. Left out
    (None), the command uses settings.api.default_tenant."""
    if value is None:
        return None
    if not value.strip():
        raise typer.BadParameter("the tenant must not be empty (leave --tenant out for the default tenant)")
    try:
        return validate.identifier(value, field="tenant")
    except BmamError as exc:
        raise typer.BadParameter(exc.message) from exc


UserOpt = Annotated[str, typer.Option("--user", "-u", help="The user id inside the tenant.")]
TenantOpt = Annotated[str | None, typer.Option("--tenant", help="Tenant (app); default from settings.",
                                               callback=tenant_option)]


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


def settings() -> Settings:
    return load_settings()


@contextmanager
def container(start_neo4j: bool = True) -> Iterator[Container]:
    settings = load_settings()
    with clear_errors():
        if start_neo4j:
            ensure_neo4j(settings)
        c = Container(settings)
        try:
            yield c
        finally:
            c.close()


def run(fn: Callable[[Container], T]) -> T:
    with container() as c, clear_errors():
        return fn(c)


def memory_json(m: Memory) -> dict[str, object]:
    return {
        "id": m.id, "text": m.text, "type": m.type.value, "tier": m.tier.value, "weight": round(m.weight.final, 4),
        "locked": m.locked, "created_at": m.created_at.isoformat(),
        **({"remains_of": m.remains_of} if m.remains_of is not None else {}),
    }
