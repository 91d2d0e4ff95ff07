"""CLI against a running server, through the project's gql client (bmam/client.py): `bmam remote ...`
with --server URL and --api-key KEY (or BMAM_SERVER / BMAM_API_KEY)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from gql.transport.exceptions import TransportConnectionFailed, TransportError

from bmam.cli_support import UserOpt, fail
from bmam.client import BmamClient, BmamClientError, ClientConfig, ClientConfigError
from ingest.turns import TurnInput, placed_turns, read_jsonl

T = TypeVar("T")

ServerOpt = Annotated[str, typer.Option("--server", envvar="BMAM_SERVER", help="The server, e.g. http://127.0.0.1:8000.")]
KeyOpt = Annotated[str | None, typer.Option("--api-key", envvar="BMAM_API_KEY", help="An API key of your app.")]


@contextmanager
def _client(server: str, api_key: str | None) -> Iterator[BmamClient]:
    c = BmamClient(ClientConfig(url=server, api_key=api_key))
    try:
        yield c
    finally:
        c.close()


def _call(server: str, api_key: str | None, fn: Callable[[BmamClient], T]) -> T:
    """Run one client call; a server error prints one line with its code and exits non-zero."""
    try:
        with _client(server, api_key) as c:
            return fn(c)
    except ClientConfigError as exc:  # --server or --api-key unusable: said before anything is sent
        fail(f"{'--api-key' if exc.field == 'api_key' else '--server'}: {exc}", 2)
        raise
    except BmamClientError as exc:
        fail(f"error [{exc.code}]: {exc.message}", 2 if exc.code in ("BAD_USER_INPUT", "LIMIT_EXCEEDED") else 1)
        raise  # unreachable: fail() exits
    except (OSError, TransportConnectionFailed) as exc:  # the client's transport wraps the socket error
        fail(f"cannot reach {server}: {exc}")
        raise
    except TransportError as exc:  # an answer that is not GraphQL (a proxy's page, another service)
        fail(f"no GraphQL answer from {server}: {exc}")
        raise


def _echo(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False))


def _turn(t: TurnInput) -> dict[str, Any]:
    """A parsed turn as the API's TurnInput."""
    out: dict[str, Any] = {"userId": t.user_id, "sessionId": t.session_id, "speaker": t.speaker, "text": t.text,
                           "turn": t.turn}
    if t.at is not None:
        out["at"] = t.at.isoformat()
    if t.device_id is not None:
        out["deviceId"] = t.device_id
    return out


def register(app: typer.Typer) -> None:
    remote = typer.Typer(help="Talk to a running bmam server over GraphQL (the gql client).", no_args_is_help=True)
    app.add_typer(remote, name="remote")

    @remote.command("whoami")
    def whoami(server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The tenant your key belongs to."""
        _echo(_call(server, api_key, lambda c: c.viewer()))

    @remote.command("health")
    def health(server: ServerOpt = "http://127.0.0.1:8000") -> None:
        """GET /healthz; exit 1 unless ok."""
        body = _call(server, None, lambda c: c.health())
        _echo(body)
        if body.get("status") != "ok":
            raise typer.Exit(1)

    @remote.command("memories")
    def memories(user: UserOpt, first: int = 20, server: ServerOpt = "http://127.0.0.1:8000",
                 api_key: KeyOpt = None) -> None:
        """A user's memories, newest first, one JSON object a line."""
        page = _call(server, api_key, lambda c: c.memories(user, first=first))
        for edge in page["edges"]:
            _echo(edge["node"])

    @remote.command("search")
    def search(user: UserOpt, query: Annotated[str, typer.Argument()], k: int = 5,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Vector search over a user's memories."""
        for hit in _call(server, api_key, lambda c: c.search(user, query, k=k)):
            _echo({"score": hit["score"], **hit["memory"]})

    @remote.command("remember")
    def remember(user: UserOpt, text: Annotated[str, typer.Argument()],
                 type: Annotated[str, typer.Option("--type", "-t", help="FACTUAL, PROCEDURAL, EPISODIC, SEMANTIC, "
                                                                      "EMOTIONAL")] = "FACTUAL",
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Store a memory for a user (no salience filter, no extraction: `remote ingest` is the pipeline)."""
        _echo(_call(server, api_key, lambda c: c.remember(user, text, type.upper())))

    @remote.command("recall")
    def recall(user: UserOpt, query: Annotated[str, typer.Argument(help="What the user just said.")],
               k: Annotated[int | None, typer.Option("-k", help="At most this many memories.")] = None,
               session: Annotated[str | None, typer.Option("--session", "-s", help="Enables anti-repetition.")] = None,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Recall the memories that matter for QUERY: {gated, reason, bestSimilarity, memories}."""
        _echo(_call(server, api_key, lambda c: c.recall(user, query, session_id=session, k=k)))

    @remote.command("context")
    def context(user: UserOpt, session: Annotated[str, typer.Option("--session", "-s", help="The session.")],
                text: Annotated[str, typer.Argument(help="What the user just said.")],
                budget: Annotated[int | None, typer.Option("--budget", help="Characters.")] = None,
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The context prompt for an LLM (relevant memories and the session's recent turns), as text."""
        typer.echo(_call(server, api_key, lambda c: c.context_prompt(user, session, text, budget=budget))["text"])

    @remote.command("ingest")
    def ingest(file: Annotated[Path, typer.Argument(help="A JSONL file, one turn a line (README: Ingesting "
                                                         "conversations).", exists=True, dir_okay=False,
                                                    readable=True)],
               batch: Annotated[int, typer.Option("--batch", min=1, max=1000, help="Turns per request.")] = 200,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Ingest a conversation file through the server, as `bmam ingest` does locally: bad lines reported with
        their line numbers and the good ones kept (exit 2 when any line was bad); each turn sent with its index,
        so the file's turns keep their places across requests and sending the file again changes nothing."""
        lines = read_jsonl(file)
        good = [(p.line_no, t) for p, t in placed_turns(lines)]
        problems = [(p.line_no, str(p.error)) for p in lines if p.error]
        stored = duplicates = created = 0
        for start in range(0, len(good), batch):
            chunk = good[start:start + batch]
            turns = [_turn(t) for _, t in chunk]
            report = _call(server, api_key, lambda c: c.ingest_conversation(turns))  # noqa: B023 - called at once
            stored, duplicates = stored + report["stored"], duplicates + report["duplicates"]
            for (line_no, _), result in zip(chunk, report["turns"], strict=True):
                created += len(result["memories"])
                problems += [(line_no, f"[{e['code']}] {e['message']}") for e in result["errors"]]
        for line_no, problem in sorted(problems):
            typer.secho(f"line {line_no}: {problem}", fg=typer.colors.RED, err=True)
        typer.echo(f"{len(lines)} lines: {stored} turns stored, {duplicates} already present, {created} memories "
                   f"created, {len({n for n, _ in problems})} bad lines")
        if problems:
            raise typer.Exit(2)

    @remote.command("forget-user")
    def forget_user(user: UserOpt, yes: Annotated[bool, typer.Option("--yes", help="Confirm.")] = False,
                    server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Erase everything of one user of your app; prints the receipt."""
        if not yes:
            fail("forget-user erases everything of this user; pass --yes to confirm", 2)
        _echo(_call(server, api_key, lambda c: c.forget_user(user, confirm=True)))

    @remote.command("events")
    def events(user: UserOpt, server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Follow a user's memory events (websocket subscription) until interrupted."""
        def follow(c: BmamClient) -> None:
            for event in c.memory_events(user):
                _echo(event)
        _call(server, api_key, follow)
