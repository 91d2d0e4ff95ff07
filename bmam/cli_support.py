"""What every CLI command shares: options, clear error reporting, and a container per invocation."""

from __future__ import annotations

import errno
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, NoReturn, TypeVar

import typer
from neo4j.exceptions import Neo4jError
from pydantic import ValidationError
from pydantic_settings import SettingsError

from bmam import validate
from bmam.container import Container, ensure_neo4j
from bmam.neo4j_server import Neo4jServerError
from bmam.settings import Settings, load_settings
from graph.errors import BadInput, BmamError, NotFound
from graph.model import Memory, MemoryType, PresetKind, Tier
from ingest.tier_policy import Signal

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


def user_option(value: str | None) -> str | None:
    """An optional --user checked as every user id (None when left out): where it is written into a text (the Browser
    guide's :params, a favourite's `// :param` line), a newline would have started a statement of its own."""
    if value is None:
        return None
    try:
        return validate.identifier(value, field="user")
    except BmamError as exc:
        raise typer.BadParameter(exc.message) from exc


UserOpt = Annotated[str, typer.Option("--user", "-u", help="The user id inside the tenant.")]
TenantOpt = Annotated[str | None, typer.Option("--tenant", help="Tenant (app); default from settings.",
                                               callback=tenant_option)]
# The enum options, in any case, defined once for every command: `memories --tier CORE` was refused while GraphQL,
# remote and MCP print CORE, and `remember --type factual` was taken where `memories --type factual` was not
TierOpt = Annotated[Tier, typer.Option("--tier", case_sensitive=False, help="temp, mid or core (any case).")]
TiersOpt = Annotated[list[Tier] | None, typer.Option("--tier", case_sensitive=False,
                                                     help="Only these tiers (any case; repeat for more).")]
TypesOpt = Annotated[list[MemoryType] | None, typer.Option("--type", "-t", case_sensitive=False,
                                                           help="Only these types (any case; repeat for more).")]
ReactionArg = Annotated[Signal, typer.Argument(help="ENGAGED, IGNORED or DISMISSED (any case)", case_sensitive=False)]
PresetOpt = Annotated[PresetKind, typer.Option("--preset", case_sensitive=False,
                                               help="safety (fixed at 1.0), temporary (starts at 0.3) or default.")]


def with_confirm_flag(message: str) -> str:
    """A refusal naming the API's `confirm: true` (forgetting a locked core memory), as a command's --confirm."""
    return message.replace("confirm: true", "--confirm")


def fail(message: str, code: int = 1) -> NoReturn:
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
    except Neo4jError as exc:  # a statement Neo4j refused for a reason bmam does not know (not bad input)
        fail(f"neo4j refused a statement [{exc.code}]: {exc.message}")


def settings_problem(exc: ValidationError | SettingsError) -> str:
    """A bad BMAM_* setting in one line: each variable with why it was refused (the value is left out, it may
    be a secret)."""
    if isinstance(exc, SettingsError):  # a section given whole (BMAM_API='{...}') that does not parse
        field = re.search(r'field "([^"]+)"', str(exc))
        name = f"BMAM_{field.group(1).upper()}" if field else "a BMAM_* variable"
        return f"bad setting {name}: {' '.join(str(exc.__cause__ or exc).split())}"
    problems = []
    for e in exc.errors(include_url=False):
        name = "BMAM_" + "__".join(str(part).upper() for part in e["loc"])
        problems.append(f"{name}: {e['msg']}")
    return "bad setting " + "; ".join(problems)


def settings() -> Settings:
    """The settings from the environment; a bad BMAM_* value is one line and exit 2, not a traceback."""
    try:
        return load_settings()
    except (ValidationError, SettingsError) as exc:
        with clear_errors():
            raise BadInput(settings_problem(exc)) from exc
        raise  # clear_errors has exited


def ensure_schema(c: Container) -> None:
    """Apply cypher/schema/ when the store lacks some of it (a new local Neo4j, a newer bmam), as `bmam serve`
    does at start: a command run first on a fresh store wrote without the uniqueness constraints, and a recall
    failed on the missing full-text index. With settings.deployment.migrate_at_start off, the command stops
    and says to run `bmam migrate`."""
    missing = c.missing_migrations()
    if not missing:
        return
    if not c.settings.deployment.migrate_at_start:
        fail(f"the store lacks {len(missing)} schema steps ({', '.join(missing)}): run `bmam migrate` "
             "(BMAM_DEPLOYMENT__MIGRATE_AT_START is off, so commands do not apply it)")
    typer.secho(f"applying the schema to the store ({len(missing)} steps missing)", err=True)
    c.migrate()


@contextmanager
def container(start_neo4j: bool = True, *, schema: bool = True) -> Iterator[Container]:
    """A container for one command, the local Neo4j started and the schema applied where missing (schema=False
    for `bmam migrate` itself)."""
    settings_ = settings()
    with clear_errors():
        if start_neo4j:
            ensure_neo4j(settings_)
        c = Container(settings_)
        if schema:
            try:
                ensure_schema(c)
            except BaseException:
                c.close()
                raise
        # What the command publishes goes to the shared event log as it goes (a long ingest too) and at its end,
        # so a server's subscribers hear the CLI's changes (bmam/event_relay.py); nothing published, nothing run.
        relay = c.start_event_relay(listen=False)
        try:
            yield c
        finally:
            if relay is not None:
                relay.stop()
            c.close()


def stdout_failed(exc: OSError) -> NoReturn:
    """Standard output could not be written: a reader that went away (`bmam export | head`) ends the command
    quietly with 141, as a shell tool killed by SIGPIPE; anything else (a full disk) is one line and exit 1.
    Either way nothing more goes to standard output, not even Python's flush at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (a test's captured output)
        pass
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        raise typer.Exit(141)
    fail(f"cannot write to standard output: {exc.strerror or exc}")


def echo(text: str) -> None:
    """One line to standard output (typer.echo), its write errors handled by stdout_failed."""
    try:
        typer.echo(text)
    except OSError as exc:
        stdout_failed(exc)


# ingestTurn's arguments, for `bmam ingest-turn` and `bmam remote ingest-turn`
SessionOpt = Annotated[str, typer.Option("--session", "-s", help="The conversation session.")]
SpeakerOpt = Annotated[str, typer.Option("--speaker", help="user, assistant, system or tool.")]
TurnTextArg = Annotated[str, typer.Argument(help="What was said.")]
AtOpt = Annotated[datetime | None, typer.Option("--at", help="When it was said (ISO; no zone: UTC; default: now).")]
TurnOpt = Annotated[int | None, typer.Option("--turn", help="Its index in the session (default: after the last).")]
DeviceOpt = Annotated[str | None, typer.Option("--device", help="The device it came from (provenance).")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Report what would change; change nothing.")]
RequestIdOpt = Annotated[str | None, typer.Option("--request-id", help=(
    "Your name for this remember: sent again (a retry), it prints the memory the first one stored instead of "
    "storing it twice."))]
AfterOpt = Annotated[str | None, typer.Option("--after", help="The page after this cursor (printed on standard error "
                                                               "when there are more).")]
HistoryOpt = Annotated[bool, typer.Option("--include-history", help="Superseded memories too.")]
# `bmam turns` / `forget-session` and their `bmam remote` twins
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object a line.")]
WithMemoriesOpt = Annotated[bool, typer.Option("--with-memories", help=(
    "Also forget the memories derived from this session's turns alone (memories: FORGET); one also derived from "
    "another session's turns, or a locked core memory, is kept and counted."))]
ForgetSessionYes = Annotated[bool, typer.Option("--yes", help="Confirm: erase this conversation's turns.")]
FORGET_SESSION_UNCONFIRMED = "forget-session erases this conversation's turns; pass --yes to confirm"
SESSION_LEFT = "the re-query still finds turns or nodes of this session: run the command again to finish"


def turn_line(turn: int, at: str | None, speaker: str, text: str, device_id: str | None,
              memory_ids: Sequence[str]) -> str:
    """A stored turn as `bmam turns` prints it without --json: its index, time ("-" for none), speaker (and device),
    text, and the memories derived from it."""
    device = f" ({device_id})" if device_id else ""
    memories = f"  [memories: {' '.join(memory_ids)}]" if memory_ids else ""
    return f"{turn}\t{at or '-'}\t{speaker}{device}: {text}{memories}"


def session_receipt_line(session_id: str, *, turns: int, forgotten: int, kept: int, shared: int, locked: int,
                         verified: bool) -> str:
    """A forgetSession receipt as `bmam forget-session` prints it without --json."""
    why = f" ({shared} also from other sessions, {locked} locked core)" if shared or locked else ""
    proof = "verified: none of it is left" if verified else "NOT verified"
    return (f"forgot session {session_id!r}: {turns} turns removed, {forgotten} memories forgotten, {kept} kept{why}; "
            f"{proof}")


def more_after(cursor: str | None) -> None:
    """Say on standard error how to ask for the next page of a listing (a page holds at most 100: the rest of a
    user's memories were out of the CLI's reach)."""
    if cursor is not None:
        typer.echo(f"more: --after {cursor}", err=True)


def echo_json(obj: object) -> None:
    """One JSON value on a line of its own (non-ASCII text as it is), as the commands print their answers."""
    echo(json.dumps(obj, ensure_ascii=False))


def write_stdout(pieces: Iterable[bytes]) -> None:
    """Bytes to standard output as they come, write errors handled by stdout_failed."""
    out = sys.stdout.buffer
    for piece in pieces:  # errors of the source (a lost connection) are not write errors: not caught here
        try:
            out.write(piece)
        except OSError as exc:
            stdout_failed(exc)
    try:
        out.flush()
    except OSError as exc:
        stdout_failed(exc)


def run(fn: Callable[[Container], T], *, schema: bool = True) -> T:
    with container(schema=schema) as c, clear_errors():
        return fn(c)


def tenant_of(c: Container, tenant: str | None) -> str:
    """The command's tenant: --tenant as given, else settings.api.default_tenant (one rule for every command)."""
    return tenant or c.settings.api.default_tenant


def run_for(tenant: str | None, fn: Callable[[Container, str], T]) -> T:
    """run(fn) with the command's tenant (tenant_of) handed to fn, so no command resolves it on its own."""
    return run(lambda c: fn(c, tenant_of(c, tenant)))


def run_for_user(tenant: str | None, user: str, fn: Callable[[Container, str], T], *,
                 empty: Callable[[T], bool]) -> T:
    """run_for(tenant, fn) for a command that reads one user's data. Left without --tenant, an answer with nothing
    in it (`empty`) for a user who has no memories under the default tenant gets one note on standard error naming
    --tenant (`bmam recall -u mei` answered "no memories to recall" while mei's memories lived under the app's
    tenant). Standard output and the exit code stay the command's. The user's count (tiers.usage: one read) is read
    only then: an answer holding anything says the user has memories there."""

    def work(c: Container) -> T:
        chosen = tenant_of(c, tenant)
        answer = fn(c, chosen)
        if tenant is None and empty(answer) and not any(c.tiers.usage(chosen, user).counts.values()):
            typer.echo(f"note: no memories for user {user!r} under tenant {chosen!r} (the default); pass --tenant",
                       err=True)
        return answer

    return run(work)


def found(item: T | None, missing: str) -> T:
    """One item a use-case answers None for when the caller has none (a memory, a conflict, a changeset): the API
    answers null, a command says NOT_FOUND (`missing`) and exits 1."""
    if item is None:
        raise NotFound(missing)
    return item


def memory_json(m: Memory) -> dict[str, object]:
    """A memory as the commands print it. valid_to is set on superseded history (a memory listed with
    --include-history is told from a live one by it, as the API's validTo tells it)."""
    w, src = m.weight, m.provenance
    return {
        "id": m.id, "text": m.text, "type": m.type.value, "tier": m.tier.value, "weight": round(w.final, 4),
        "locked": m.locked, "created_at": m.created_at.isoformat(),
        "valid_from": m.valid_from.isoformat(), "valid_to": m.valid_to.isoformat() if m.valid_to else None,
        "weight_parts": {"passive": round(w.passive, 4), "active": round(w.active, 4), "preset": round(w.preset, 4)},
        "recall_count": m.recall_count, "mention_count": m.mention_count,
        "last_recalled_at": m.last_recalled_at.isoformat() if m.last_recalled_at else None,
        "source": {"session_id": src.session_id, "turn": src.turn, "device_id": src.device_id},
        **({"remains_of": m.remains_of} if m.remains_of is not None else {}),
    }
