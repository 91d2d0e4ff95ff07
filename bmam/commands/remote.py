"""CLI against a running server, through the project's gql client (bmam/client.py): `bmam remote ...`
with --server URL and --api-key KEY (or BMAM_SERVER / BMAM_API_KEY)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from gql.transport.exceptions import TransportConnectionFailed, TransportError

from bmam.cli_support import (
    FORGET_SESSION_UNCONFIRMED,
    SESSION_LEFT,
    AfterOpt,
    AtOpt,
    DeviceOpt,
    DryRunOpt,
    ForgetSessionYes,
    HistoryOpt,
    JsonOpt,
    PresetOpt,
    ReactionArg,
    RequestIdOpt,
    SessionOpt,
    SpeakerOpt,
    TierOpt,
    TiersOpt,
    TurnOpt,
    TurnTextArg,
    TypesOpt,
    UserOpt,
    WithMemoriesOpt,
    echo,
    echo_json,
    fail,
    more_after,
    session_receipt_line,
    turn_line,
    with_confirm_flag,
)
from bmam.client import INGEST_CONVERSATION, BmamClient, BmamClientError, ClientConfig, ClientConfigError
from bmam.commands.export import FORMATS as EXPORT_FORMATS
from bmam.commands.export import export_ext, one_or_all, rdf_format_of, writable, write_output
from bmam.commands.living import maintenance_kind
from bmam.http_transport import encode_json
from graph.graph_export import GraphFormat
from graph.model import PresetKind, Tier
from ingest.turns import TurnInput, clashes, mixed_times, numbered, placed_turns, read_jsonl

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


_CLIENT_ERRORS = (ClientConfigError, BmamClientError, OSError, TransportError)


def _failure(server: str, exc: Exception) -> tuple[str, int]:
    """The one line to print for an error of _CLIENT_ERRORS, and the exit code."""
    if isinstance(exc, ClientConfigError):  # --server or --api-key unusable: said before anything is sent
        return f"{'--api-key' if exc.field == 'api_key' else '--server'}: {exc}", 2
    if isinstance(exc, BmamClientError):
        return f"error [{exc.code}]: {exc.message}", 2 if exc.code in ("BAD_USER_INPUT", "LIMIT_EXCEEDED") else 1
    if isinstance(exc, (OSError, TransportConnectionFailed)):  # the client's transport wraps the socket error
        return f"cannot reach {server}: {exc}", 1
    return f"no GraphQL answer from {server}: {exc}", 1  # not GraphQL (a proxy's page, another service)


def _call(server: str, api_key: str | None, fn: Callable[[BmamClient], T]) -> T:
    """Run one client call; a server error prints one line with its code and exits non-zero."""
    try:
        with _client(server, api_key) as c:
            return fn(c)
    except _CLIENT_ERRORS as exc:
        fail(*_failure(server, exc))
        raise  # unreachable: fail() exits


OneUserOpt = Annotated[str | None, typer.Option("--user", "-u", help="The user id inside the tenant (or --all-users).")]


def _found(answer: dict[str, Any] | None, missing: str) -> dict[str, Any]:
    """One item the API answers null for when the caller has none (memory, conflict, changeset): a command
    says NOT_FOUND, as the local one does, with exit 1."""
    if answer is None:
        raise BmamClientError("NOT_FOUND", missing, [])
    return answer


def _turn(t: TurnInput) -> dict[str, Any]:
    """A parsed turn as the API's TurnInput."""
    out: dict[str, Any] = {"userId": t.user_id, "sessionId": t.session_id, "speaker": t.speaker, "text": t.text,
                           "turn": t.turn}
    if t.at is not None:
        out["at"] = t.at.isoformat()
    if t.device_id is not None:
        out["deviceId"] = t.device_id
    return out


GRAPHQL_INT_MAX = 2**31 - 1  # TurnInput.turn is a GraphQL Int (32-bit signed)
BATCH_BYTES = 512 * 1024  # half the server's default body limit (settings limits.max_body_bytes, 1 MiB)
_EMPTY_BODY = len(encode_json({"query": INGEST_CONVERSATION, "variables": {"turns": []}}))


@dataclass(slots=True)
class _Line:
    """A good line of the file as the API's TurnInput, with its size in a request body (its comma included)."""

    line_no: int
    turn: dict[str, Any]
    size: int


def _body_bytes(lines: list[_Line]) -> int:
    """The size of the ingestConversation request that carries `lines` (exact: the transport's encoding)."""
    return _EMPTY_BODY + sum(x.size for x in lines) - (1 if lines else 0)


def _batches(lines: list[_Line], most_turns: int, most_bytes: int) -> Iterator[list[_Line]]:
    """lines in order, cut into requests of at most most_turns turns and most_bytes bytes (a line bigger than
    that alone is not in `lines`: the caller has reported it)."""
    chunk: list[_Line] = []
    size = _EMPTY_BODY - 1
    for line in lines:
        if chunk and (len(chunk) >= most_turns or size + line.size > most_bytes):
            yield chunk
            chunk, size = [], _EMPTY_BODY - 1
        chunk.append(line)
        size += line.size
    if chunk:
        yield chunk


def _span(lines: list[_Line]) -> str:
    first, last = lines[0].line_no, lines[-1].line_no
    return f"line {first}" if first == last else f"lines {first}-{last}"


@dataclass(slots=True)
class _Tally:
    """What `remote ingest` has sent and what the server stored, so far."""

    stored: int = 0
    duplicates: int = 0
    created: int = 0
    taken_back: int = 0  # memories forgotten by turns that took the one before back
    sent: int = 0  # turns the server answered for
    requests: int = 0  # requests it answered with a report (a 413 not counted)
    splits: int = 0  # requests refused as too large and sent again in halves
    done: int = 0  # the file's good lines dealt with (answered, or refused alone as too large), in order
    problems: list[tuple[int, str]] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)  # errors of stored lines (a core promotion refused)


def _too_large(exc: BmamClientError) -> bool:
    """The server (or a proxy before it) refused the request body as too large: HTTP 413."""
    return exc.status == 413


def _send(c: BmamClient, chunk: list[_Line], tally: _Tally) -> None:
    """One ingestConversation request for chunk; refused as too large (413), it is split in halves and each
    sent again, down to one turn, which is then reported as a bad line. Any other error is raised."""
    try:
        report = c.ingest_conversation([x.turn for x in chunk])
    except BmamClientError as exc:
        if not _too_large(exc):
            raise
        if len(chunk) == 1:
            tally.problems.append((chunk[0].line_no, f"refused by the server as too large ({exc.message}): "
                                                     f"{_body_bytes(chunk)} bytes with this turn alone; not stored"))
            tally.done += 1
            return
        tally.splits += 1
        typer.secho(f"note: the server refused {_span(chunk)} ({len(chunk)} turns, {_body_bytes(chunk)} bytes) as "
                    f"too large; sending them in two requests (a smaller --batch-bytes avoids this)",
                    fg=typer.colors.YELLOW, err=True)
        half = len(chunk) // 2
        _send(c, chunk[:half], tally)
        _send(c, chunk[half:], tally)
        return
    tally.requests += 1
    tally.sent += len(chunk)
    tally.done += len(chunk)
    tally.stored, tally.duplicates = tally.stored + report["stored"], tally.duplicates + report["duplicates"]
    for line, result in zip(chunk, report["turns"], strict=True):
        tally.created += len(result["memories"])
        tally.taken_back += len(result.get("forgotten") or [])
        found = tally.notes if result["stored"] else tally.problems
        found += [(line.line_no, f"[{e['code']}] {e['message']}") for e in result["errors"]]


def register(app: typer.Typer) -> None:
    remote = typer.Typer(help="Talk to a running bmam server over GraphQL (the gql client).", no_args_is_help=True)
    app.add_typer(remote, name="remote")

    tiers = typer.Typer(help="The three tiers (temp, mid, core) of a user's memories.", no_args_is_help=True)
    remote.add_typer(tiers, name="tiers")
    keys = typer.Typer(help="Your app's API keys (an admin key's only).", no_args_is_help=True)
    remote.add_typer(keys, name="keys")

    @tiers.command("usage")
    def tier_usage(user: UserOpt, server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Memories per tier and the capacities (tierUsage), as JSON."""
        echo_json(_call(server, api_key, lambda c: c.tier_usage(user)))

    @tiers.command("sweep")
    def sweep(user: UserOpt, dry_run: DryRunOpt = False, server: ServerOpt = "http://127.0.0.1:8000",
              api_key: KeyOpt = None) -> None:
        """Delete stale temp memories, let faded mid ones fall back to temp, restore the capacities (sweepTiers):
        the moves, one JSON object a line."""
        changes = _call(server, api_key, lambda c: c.sweep_tiers(user, dry_run=dry_run))
        for change in changes:
            echo_json(change)
        typer.echo(f"{len(changes)} changes{' (dry run: nothing changed)' if dry_run else ''}", err=True)

    @keys.command("list")
    def list_keys(include_revoked: Annotated[bool, typer.Option("--revoked", help="Include revoked keys.")] = False,
                  server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Your app's keys (never their secrets), one JSON object a line."""
        for key in _call(server, api_key, lambda c: c.api_keys(include_revoked=include_revoked)):
            echo_json(key)

    @keys.command("create")
    def create_key(name: Annotated[str | None, typer.Option("--name", help="A label to recognise the key by.")]
                   = None,
                   admin: Annotated[bool, typer.Option("--admin", help="An admin key, which may manage the keys "
                                                                       "(default: an app key).")] = False,
                   server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Create another key of your app and print it: it is shown this once."""
        created = _call(server, api_key, lambda c: c.create_api_key(name, admin=admin))
        echo(created["key"])
        key = created["apiKey"]
        typer.secho(f"id {key['id']}, {'admin' if key['admin'] else 'app'} key; store the key now, it is not "
                    "shown again", err=True)

    @keys.command("revoke")
    def revoke_key(key_id: Annotated[str, typer.Argument(help="The key's id (see `bmam remote keys list`).")],
                   server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Revoke one of your app's keys (at once on this server)."""
        echo_json(_call(server, api_key, lambda c: c.revoke_api_key(key_id)))

    @remote.command("whoami")
    def whoami(server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The tenant your key belongs to."""
        echo_json(_call(server, api_key, lambda c: c.viewer()))

    @remote.command("health")
    def health(server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """GET /healthz; exit 1 unless ok. It needs no key: --api-key is taken, as by every remote command."""
        del api_key  # /healthz is open (a script passing the key to every remote call must not break here)
        body = _call(server, None, lambda c: c.health())
        echo_json(body)
        if body.get("status") != "ok":
            raise typer.Exit(1)

    @remote.command("memories")
    def memories(user: UserOpt, type: TypesOpt = None, tier: TiersOpt = None, first: int = 20,
                 after: AfterOpt = None, include_history: HistoryOpt = False,
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """A user's memories, newest first, one JSON object a line."""
        page = _call(server, api_key, lambda c: c.memories(
            user, first=first, after=after, types=[t.name for t in type] if type else None,
            tiers=[t.name for t in tier] if tier else None, include_history=include_history))
        for edge in page["edges"]:
            echo_json(edge["node"])
        more_after(page["pageInfo"]["endCursor"] if page["pageInfo"]["hasNextPage"] else None)

    @remote.command("memory")
    def memory(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """One memory of a user, as JSON (NOT_FOUND when the user has none by that id)."""
        echo_json(_call(server, api_key, lambda c: _found(c.memory(user, memory_id),
                                                          f"memory {memory_id} not found")))

    @remote.command("search")
    def search(user: UserOpt, query: Annotated[str, typer.Argument()],
               k: Annotated[int, typer.Option("-k", "--k", help="At most this many memories.")] = 5,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Vector search over a user's memories."""
        for hit in _call(server, api_key, lambda c: c.search(user, query, k=k)):
            echo_json({"score": hit["score"], **hit["memory"]})

    @remote.command("remember")
    def remember(user: UserOpt, text: Annotated[str, typer.Argument()],
                 type: Annotated[str, typer.Option("--type", "-t", help="FACTUAL, PROCEDURAL, EPISODIC, SEMANTIC, "
                                                                      "EMOTIONAL")] = "FACTUAL",
                 tier: TierOpt = Tier.TEMP,  # as `bmam remember --tier` (remote had none)
                 preset: PresetOpt = PresetKind.DEFAULT,  # and its preset kind, session and device (RememberInput)
                 session: Annotated[str | None, typer.Option("--session", "-s", help="The session it was said in.")]
                 = None,
                 device: DeviceOpt = None, request_id: RequestIdOpt = None,
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Store a memory for a user (no salience filter, no extraction: `remote ingest` is the pipeline)."""
        echo_json(_call(server, api_key, lambda c: c.remember(user, text, type.upper(), tier=tier.name,
                                                              presetKind=preset.name, sessionId=session,
                                                              deviceId=device, requestId=request_id)))

    @remote.command("correct")
    def correct(user: UserOpt, memory_id: Annotated[str, typer.Argument(help="The live memory to correct.")],
                text: Annotated[str, typer.Argument(help="What the memory should say.")],
                type: Annotated[str | None, typer.Option("--type", "-t", help="Another type (default: the memory's).")]
                = None,
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Correct a memory (correctMemory): prints {memory, corrected, conflict}."""
        echo_json(_call(server, api_key, lambda c: c.correct_memory(user, memory_id, text,
                                                                    memory_type=type.upper() if type else None)))

    @remote.command("triples")
    def triples(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The triples a memory asserts, one JSON object a line."""
        for triple in _call(server, api_key, lambda c: c.triples(user, memory_id)):
            echo_json(triple)

    @remote.command("add-triple")
    def add_triple(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
                   subject: Annotated[str, typer.Argument()], predicate: Annotated[str, typer.Argument()],
                   object_: Annotated[str, typer.Argument(metavar="OBJECT")],
                   subject_kind: Annotated[str, typer.Option("--subject-kind")] = "thing",
                   object_kind: Annotated[str, typer.Option("--object-kind")] = "thing",
                   negated: Annotated[bool, typer.Option("--negated", help="The memory denies it.")] = False,
                   server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Add a triple the memory asserts (its conflicts and associations are checked again)."""
        echo_json(_call(server, api_key, lambda c: c.add_triple(user, memory_id, subject, predicate, object_,
                                                            subjectKind=subject_kind, objectKind=object_kind,
                                                            polarity=-1 if negated else 1)))

    @remote.command("associations")
    def associations(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
                     server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """A memory's associations, strongest first, one JSON object a line."""
        for association in _call(server, api_key, lambda c: c.associations(user, memory_id)):
            echo_json(association)

    @remote.command("associate")
    def associate(user: UserOpt, memory_a: Annotated[str, typer.Argument()], memory_b: Annotated[str, typer.Argument()],
                  strength: Annotated[float, typer.Option("--strength", "-s", help="In [0, 1]; 0: not related.")],
                  server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Set the association of two memories (the user's word on the pair)."""
        echo_json(_call(server, api_key, lambda c: c.associate(user, memory_a, memory_b, strength)))

    @remote.command("dissociate")
    def dissociate(user: UserOpt, memory_a: Annotated[str, typer.Argument()],
                   memory_b: Annotated[str, typer.Argument()],
                   server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Remove the association of two memories ({removed: false} when they had none)."""
        echo_json(_call(server, api_key, lambda c: c.dissociate(user, memory_a, memory_b)))

    # The user's own changes to one memory, as the CLI's forget, lock, unlock, react and feedback (remote had
    # forget-user but no way to forget, protect or react to one memory)
    @remote.command("forget")
    def forget(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
               confirm: Annotated[bool, typer.Option(help="Needed to forget a locked core memory.")] = False,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Forget one memory: prints {id, forgotten}."""

        def forget_one(c: BmamClient) -> dict[str, Any]:
            try:
                return c.forget(user, memory_id, confirm=confirm)
            except BmamClientError as exc:  # the server names the API's confirm: true; here it is --confirm
                raise BmamClientError(exc.code, with_confirm_flag(exc.message), exc.errors, exc.status) from exc

        echo_json(_call(server, api_key, forget_one))

    @remote.command("lock")
    def lock(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
             server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Mark a memory important: it moves to core, locked. Prints the memory."""
        echo_json(_call(server, api_key, lambda c: c.lock(user, memory_id)))

    @remote.command("unlock")
    def unlock(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Unlock a core memory: it goes back to mid. Prints the memory."""
        echo_json(_call(server, api_key, lambda c: c.unlock(user, memory_id)))

    @remote.command("react")
    def react(user: UserOpt, memory_id: Annotated[str, typer.Argument()], signal: ReactionArg,
              server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The user's reaction to a memory (react): prints {memoryId, signal, deleted, memory, tierChanges}."""
        echo_json(_call(server, api_key, lambda c: c.react(user, memory_id, signal.value)))

    @remote.command("feedback")
    def feedback(user: UserOpt, memory_id: Annotated[str, typer.Argument()],
                 signal: Annotated[str, typer.Argument(help="LIKE, DISLIKE (+/-0.5), DWELL, SKIP (+/-0.2); any case")],
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Feedback on a memory's weight: prints the memory as it is afterwards."""
        echo_json(_call(server, api_key, lambda c: c.feedback(user, memory_id, signal.strip().upper())))

    # The review queue, the history and the working memory, as the CLI's (remote had none of them)
    @remote.command("conflicts")
    def conflicts(user: UserOpt,
                  all_: Annotated[bool, typer.Option("--all", help="Resolved ones too (default: the review "
                                                                  "queue).")] = False,
                  first: int = 20, after: AfterOpt = None,
                  server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """A user's conflicts, newest first, one JSON object a line (the next page's cursor on standard error)."""
        _echo_page(_call(server, api_key, lambda c: c.conflicts_page(user, status=None if all_ else "OPEN",
                                                                     first=first, after=after)))

    @remote.command("conflict")
    def conflict(user: UserOpt, conflict_id: Annotated[str, typer.Argument()],
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """One conflict of a user, as JSON (NOT_FOUND when the user has none by that id)."""
        echo_json(_call(server, api_key, lambda c: _found(c.conflict(user, conflict_id),
                                                          f"conflict {conflict_id} not found")))

    @remote.command("check-conflicts")
    def check_conflicts(user: UserOpt, memory_id: Annotated[str, typer.Argument(help="The stored memory to check.")],
                        strategy: Annotated[str | None, typer.Option(
                            "--strategy", help="LATEST, STRONGER or REVIEW, any case (default: the server's).")]
                        = None,
                        server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Run conflict detection for one memory now (checkConflicts): its conflicts, one JSON object a line."""
        for found in _call(server, api_key, lambda c: c.check_conflicts(
                user, memory_id, strategy=strategy.strip().upper() if strategy else None)):
            echo_json(found)

    @remote.command("resolve")
    def resolve(user: UserOpt, conflict_id: Annotated[str, typer.Argument()],
                winner: Annotated[str, typer.Argument(help="The id of the memory that wins.")],
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Settle a conflict held for review (resolveConflict)."""
        echo_json(_call(server, api_key, lambda c: c.resolve_conflict(user, conflict_id, winner)))

    @remote.command("history")
    def history(user: UserOpt,
                entity: Annotated[str | None, typer.Option("--entity", help="Memories about this entity.")] = None,
                memory: Annotated[str | None, typer.Option("--memory", help="One memory's chain.")] = None,
                first: int = 50, after: AfterOpt = None,
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Memories with their supersession chains, oldest first, one JSON object a line (the next page's cursor on
        standard error)."""
        _echo_page(_call(server, api_key, lambda c: c.history_page(user, entity=entity, memory_id=memory,
                                                                   first=first, after=after)))

    @remote.command("maintain")
    def maintain(full: Annotated[bool, typer.Option("--full", help="Monthly: decay, merge, purge, rebuild "
                                                                   "indexes.")] = False,
                 rebalance: Annotated[bool, typer.Option("--rebalance", help="Weekly: decay, damp, lift.")] = False,
                 decay: Annotated[bool, typer.Option("--decay", help="Bring every weight up to now.")] = False,
                 undo: Annotated[str | None, typer.Option("--undo", metavar="ID", help="Undo the changeset ID.")]
                 = None,
                 dry_run: DryRunOpt = False,
                 user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user.")] = None,
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Run maintenance over your app (runMaintenance) or undo a run (undoMaintenance); prints the changeset."""
        kind = maintenance_kind(full, rebalance, decay, undo, [("--dry-run", dry_run), ("--user", user is not None)],
                                tenant_from="your API key")
        if kind is None:
            assert undo is not None
            echo_json(_call(server, api_key, lambda c: c.undo_maintenance(undo)))
            return
        echo_json(_call(server, api_key, lambda c: c.run_maintenance(kind.value, dry_run=dry_run,
                                                                     user_id=user))["changeset"])

    @remote.command("check")
    def check(user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user's core memories.")]
              = None,
              server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Quick check of your app (runMaintenance CHECK): prints the report; exit 1 when anything is unhealthy."""
        report = _call(server, api_key, lambda c: c.run_maintenance("CHECK", user_id=user))["check"]
        echo_json(report)
        if not report["healthy"]:
            raise typer.Exit(1)

    @remote.command("changesets")
    def changesets(user: Annotated[str | None, typer.Option("--user", "-u")] = None, first: int = 20,
                   server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Your app's maintenance changesets, newest first, one JSON object a line."""
        for found in _call(server, api_key, lambda c: c.changesets(user_id=user, first=first)):
            echo_json(found)

    @remote.command("changeset")
    def changeset(changeset_id: Annotated[str, typer.Argument()],
                  server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """One maintenance changeset of your app, as JSON (NOT_FOUND when it has none by that id)."""
        echo_json(_call(server, api_key, lambda c: _found(c.changeset(changeset_id),
                                                          f"unknown changeset {changeset_id}")))

    @remote.command("working-memory")
    def working_memory(user: UserOpt, session: Annotated[str, typer.Argument()],
                       n: Annotated[int | None, typer.Option("-n", help="At most this many turns, the newest.")]
                       = None,
                       server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The last turns of a session, one JSON object a line."""
        for turn in _call(server, api_key, lambda c: c.working_memory(user, session, n))["turns"]:
            echo_json(turn)

    @remote.command("recall")
    def recall(user: UserOpt, query: Annotated[str, typer.Argument(help="What the user just said.")],
               k: Annotated[int | None, typer.Option("-k", help="At most this many memories.")] = None,
               session: Annotated[str | None, typer.Option("--session", "-s", help="Enables anti-repetition.")] = None,
               type: TypesOpt = None, tier: TiersOpt = None,
               min_score: Annotated[float, typer.Option("--min-score")] = 0.0,
               include_history: HistoryOpt = False,
               as_of: Annotated[datetime | None, typer.Option("--as-of", help="Memories valid at this time (ISO, "
                                                                               "with zone).")] = None,
               time_zone: Annotated[str | None, typer.Option(
                   "--time-zone", help="The user's IANA time zone, for 'What did I do yesterday?'.")] = None,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Recall the memories that matter for QUERY: {gated, reason, bestSimilarity, period, memories}."""
        echo_json(_call(server, api_key, lambda c: c.recall(
            user, query, session_id=session, k=k, types=[t.name for t in type] if type else None,
            tiers=[t.name for t in tier] if tier else None, minScore=min_score, includeHistory=include_history,
            asOf=as_of.isoformat() if as_of else None, timeZone=time_zone)))

    @remote.command("context")
    def context(user: UserOpt, session: Annotated[str, typer.Option("--session", "-s", help="The session.")],
                text: Annotated[str, typer.Argument(help="What the user just said.")],
                budget: Annotated[int | None, typer.Option("--budget", help="Characters.")] = None,
                time_zone: Annotated[str | None, typer.Option(
                    "--time-zone", help="The user's IANA time zone, for 'What did I do yesterday?'.")] = None,
                as_json: Annotated[bool, typer.Option("--json", help="The whole answer as JSON.")] = False,
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """The context prompt for an LLM (relevant memories and the session's recent turns), as text."""
        prompt = _call(server, api_key, lambda c: c.context_prompt(user, session, text, budget=budget,
                                                                   time_zone=time_zone))
        if as_json:
            echo_json(prompt)
        else:
            echo(prompt["text"])

    @remote.command("related")
    def related(user: UserOpt, memory_id: Annotated[str, typer.Argument(help="The memory to start from.")],
                depth: Annotated[int | None, typer.Option(
                    "--depth", "-d", help="Hops, 1..5 (default: the server's recall.related_depth).")] = None,
                limit: Annotated[int | None, typer.Option(
                    "--limit", "-n", help="At most this many (default: the server's recall.related_limit).")] = None,
                min_strength: Annotated[float | None, typer.Option(
                    "--min-strength", help="Weakest edge followed (default: the server's "
                                           "recall.related_min_strength).")] = None,
                include_history: HistoryOpt = False,
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Memories related to MEMORY_ID (relatedSearch), best path first, one JSON object a line."""
        # depth, limit and min strength go as given: the server checks them (a depth outside 1..5 is refused,
        # never clamped) and fills in its own settings for the ones left out
        found = _call(server, api_key, lambda c: c.related_search(user, memory_id, depth=depth, limit=limit,
                                                                  min_strength=min_strength,
                                                                  include_history=include_history))
        for r in found:
            echo_json({"score": r["score"], **r["memory"], "path": r["path"]})

    @remote.command("export")
    def export(user: OneUserOpt = None,
               all_users: Annotated[bool, typer.Option(
                   "--all-users", help="Every user of your app (RDF only; an admin key's).")] = False,
               format: Annotated[str, typer.Option("--format", "-f", help=EXPORT_FORMATS)] = "ttl",
               output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE (default: stdout).",
                                                           dir_okay=False)] = None,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Export a user's knowledge (or with --all-users your whole app's, with an admin key) through the server
        (GET /export/{user}.{ext} or GET /export.{ext}, streamed: any size), as `bmam export` does."""
        one_or_all(user, all_users)
        writable(output)
        ext = export_ext(format)
        if all_users and ext in {g.value for g in GraphFormat}:
            fail("GraphML and GEXF export one user at a time; give --user", 2)

        def pieces(c: BmamClient) -> Iterator[bytes]:
            return c.export_file(user, ext) if user is not None else c.export_rdf_all_users(ext)

        written = _call(server, api_key, lambda c: write_output(output, pieces(c)))
        if output is not None:  # the bytes written: a FIFO or a device has no size on disk
            typer.echo(f"wrote {output} ({written} bytes)", err=True)

    @remote.command("ingest-turn")
    def ingest_turn(user: UserOpt, session: SessionOpt, speaker: SpeakerOpt, text: TurnTextArg,
                    at: AtOpt = None, turn: TurnOpt = None, device: DeviceOpt = None,
                    server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Ingest one turn (ingestTurn): prints what became of it."""
        echo_json(_call(server, api_key, lambda c: c.ingest_turn(user, session, speaker, text,
                                                                 at=at.isoformat() if at else None, deviceId=device,
                                                                 turn=turn)))

    @remote.command("ingest")
    def ingest(file: Annotated[Path, typer.Argument(help="A JSONL file, one turn a line (README: Ingesting "
                                                         "conversations).", exists=True, dir_okay=False,
                                                    readable=True)],
               batch: Annotated[int, typer.Option("--batch", min=1, max=1000, help="Turns per request, at most.")]
               = 200,
               batch_bytes: Annotated[int, typer.Option(
                   "--batch-bytes", min=8192, max=1024**3,
                   help="Bytes per request body, at most (UTF-8 JSON). The server refuses bodies over its limit "
                        "(BMAM_LIMITS__MAX_BODY_BYTES, 1 MiB by default) with HTTP 413; the default stays well "
                        "below it. A request refused anyway is split in two and sent again; a turn too big for a "
                        "request of its own is reported as a bad line.")] = BATCH_BYTES,
               server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Ingest a conversation file through the server, as `bmam ingest` does locally: bad lines reported with
        their line numbers and the good ones kept (exit 2 when any line was bad); each turn sent with its index,
        so the file's turns keep their places across requests and sending the file again changes nothing.
        Requests hold at most --batch turns and --batch-bytes bytes. The last line says what was sent and
        stored; when the server fails or cannot be reached, it also says from which line nothing was sent."""
        lines = read_jsonl(file)
        if (why := mixed_times(lines)) is not None:  # as `bmam ingest`: refused whole, nothing sent
            fail(f"error [BAD_USER_INPUT]: {why}", 2)
        tally = _Tally(problems=[(p.line_no, str(p.error)) for p in lines if p.error])
        good: list[_Line] = []
        placed = placed_turns(lines)
        twice = clashes(placed)
        for p, t in placed:
            if p.line_no in twice:  # checked here: the two lines may go in two requests
                tally.problems.append((p.line_no, twice[p.line_no]))
                continue
            if t.turn is not None and t.turn > GRAPHQL_INT_MAX:  # refused by the server's Int for the whole request
                tally.problems.append((p.line_no, f"field 'turn' must be at most {GRAPHQL_INT_MAX} (got {t.turn})"
                                       if numbered(p) else
                                       f"turn {t.turn} is over {GRAPHQL_INT_MAX}: this line gives no turn and takes "
                                       f"the index after the line before it of its session ({t.turn - 1})"))
                continue
            turn = _turn(t)
            item = _Line(p.line_no, turn, len(encode_json(turn)) + 1)
            if _body_bytes([item]) > batch_bytes:
                tally.problems.append((p.line_no, f"the turn alone makes a request of {_body_bytes([item])} bytes, "
                                                  f"over --batch-bytes {batch_bytes}; not sent"))
                continue
            good.append(item)

        stop: tuple[str, int] | None = None
        try:
            with _client(server, api_key) as c:
                for chunk in _batches(good, batch, batch_bytes):
                    _send(c, chunk, tally)
        except ClientConfigError as exc:  # nothing was sent
            fail(*_failure(server, exc))
        except _CLIENT_ERRORS as exc:
            stop = _failure(server, exc)
        except KeyboardInterrupt:
            stop = ("interrupted", 130)

        for line_no, problem in sorted(tally.problems):
            typer.secho(f"line {line_no}: {problem}", fg=typer.colors.RED, err=True)
        for line_no, note in sorted(tally.notes):  # the line is stored: not a bad line
            typer.secho(f"note: line {line_no}: {note}", fg=typer.colors.YELLOW, err=True)
        if stop is not None:
            typer.secho(stop[0], fg=typer.colors.RED, err=True)
        echo(f"{len(lines)} lines: {tally.stored} turns stored, {tally.duplicates} already present, "
                   f"{tally.created} memories created, {len({n for n, _ in tally.problems})} bad lines; "
                   f"{tally.sent} turns sent in {tally.requests} requests"
                   + (f" ({tally.splits} split after HTTP 413)" if tally.splits else "")
                   + (f"; {len(tally.notes)} notes on stored lines" if tally.notes else "")
                   + (f"; {tally.taken_back} memories taken back ('forget what I just said')"
                      if tally.taken_back else ""))
        if stop is not None:
            unsent = good[tally.done:]
            echo(f"stopped at line {unsent[0].line_no}: {len(unsent)} turns from there on were not sent or "
                       f"not answered; run the same command again to send them (turns already stored count as "
                       f"already present)" if unsent else "stopped after the last request")
            raise typer.Exit(stop[1])
        if tally.problems:
            raise typer.Exit(2)

    @remote.command("import")
    def import_(file: Annotated[Path, typer.Argument(help="An export written by `bmam export`, GET /export or "
                                                         "exportRdf (ttl, nt, jsonld, rdf).", exists=True,
                                                    dir_okay=False, readable=True)],
                user: OneUserOpt = None,
                all_users: Annotated[bool, typer.Option(
                    "--all-users", help="Every user of a tenant-wide export, each into the user of the same id.")]
                = False,
                format: Annotated[str | None, typer.Option("--format", "-f", help="Default: from the file's "
                                                                                  "extension.")] = None,
                source_user: Annotated[str | None, typer.Option(
                    "--source-user", help="Which user of a tenant-wide export to import.")] = None,
                dry_run: Annotated[bool, typer.Option("--dry-run", help="Parse, check and count; write nothing.")]
                = False,
                server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Load an RDF export into a user of your app through the server (POST /import/{user}.{ext}, the file
        streamed as it is), or with --all-users a tenant-wide export (`bmam export --all-users`) into your app,
        each user into the user of the same id (POST /import.{ext}): checked whole first, so a refused file imports
        nothing; importing the same file again creates nothing. Prints the server's report as the mutation
        importRdf answers it (with --all-users one such report a line per user, and a summary on stderr)."""
        one_or_all(user, all_users, source_user=source_user)
        ext = rdf_format_of(file, format).value

        def send(c: BmamClient) -> dict[str, Any]:
            with file.open("rb") as f:
                if user is None:
                    return c.import_rdf_all_users(f, ext, dry_run=dry_run)
                return c.import_rdf(user, f, ext, source_user=source_user, dry_run=dry_run)

        answer = _call(server, api_key, send)
        if user is not None:
            echo_json(answer)
            return
        for receipt in answer["users"]:  # as `bmam import --all-users` prints them
            echo_json(receipt)
        done = "checked" if dry_run else "imported"
        into = f"tenant {answer['users'][0]['target']['tenant']!r}" if answer["users"] else "your app"
        ignored = f"; {answer['ignored']} statements under none of its users ignored" if answer["ignored"] else ""
        typer.echo(f"{done} {len(answer['users'])} users of {file.name} into {into}{ignored}", err=True)

    @remote.command("forget-user")
    def forget_user(user: UserOpt, yes: Annotated[bool, typer.Option("--yes", help="Confirm.")] = False,
                    server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Erase everything of one user of your app; prints the receipt."""
        if not yes:
            fail("forget-user erases everything of this user; pass --yes to confirm", 2)
        echo_json(_call(server, api_key, lambda c: c.forget_user(user, confirm=True)))

    @remote.command("forget-tenant")
    def forget_tenant(tenant: Annotated[str, typer.Argument(help="Your app's tenant, typed back (`remote whoami`).")],
                      yes: Annotated[bool, typer.Option("--yes", help="Confirm.")] = False,
                      server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Erase everything every user of your app stored (an admin key's); the app's keys stay. Prints the receipt;
        exits 1 when its re-query still finds data of the app."""
        if not yes:
            fail("forget-tenant erases everything of every user of this app; pass --yes to confirm", 2)
        receipt = _call(server, api_key, lambda c: c.forget_tenant(tenant, confirm=True))
        echo_json(receipt)
        if not receipt["verified"]:
            fail("the re-query still finds data of this app: run the command again to finish", 1)

    @remote.command("events")
    def events(user: UserOpt, server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Follow a user's memory events (websocket subscription) until interrupted."""
        def follow(c: BmamClient) -> None:
            for event in c.memory_events(user):
                echo_json(event)
        _call(server, api_key, follow)

    @remote.command("users")
    def users(first: int = 20, after: AfterOpt = None,
              server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Your app's users in id order, one JSON object a line (the next page's cursor on standard error)."""
        _echo_page(_call(server, api_key, lambda c: c.users(first=first, after=after)))

    @remote.command("sessions")
    def sessions(user: UserOpt, first: int = 20, after: AfterOpt = None,
                 server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """A user's sessions, the newest started first, one JSON object a line (the next page's cursor on standard
        error)."""
        _echo_page(_call(server, api_key, lambda c: c.sessions(user, first=first, after=after)))

    @remote.command("turns")
    def turns(user: UserOpt, session: SessionOpt, first: int = 50, after: AfterOpt = None, as_json: JsonOpt = False,
              server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """A session's stored turns in turn order, a line each (with --json one JSON object a line; the next page's
        cursor on standard error)."""
        page = _call(server, api_key, lambda c: c.turns(user, session, first=first, after=after))
        if as_json:
            _echo_page(page)
            return
        for edge in page["edges"]:
            t = edge["node"]
            echo(turn_line(t["turn"], t["at"], t["speaker"], t["text"], t["deviceId"], t["memoryIds"]))
        more_after(page["pageInfo"]["endCursor"] if page["pageInfo"]["hasNextPage"] else None)

    @remote.command("forget-session")
    def forget_session(user: UserOpt, session: SessionOpt, yes: ForgetSessionYes = False,
                       with_memories: WithMemoriesOpt = False, as_json: JsonOpt = False,
                       server: ServerOpt = "http://127.0.0.1:8000", api_key: KeyOpt = None) -> None:
        """Erase one session of a user (its memories too with --with-memories, those derived from it alone); prints
        the receipt, exits 1 when its re-query still finds some of the session."""
        if not yes:
            fail(FORGET_SESSION_UNCONFIRMED, 2)
        memories = "FORGET" if with_memories else "KEEP"
        r = _call(server, api_key, lambda c: c.forget_session(user, session, confirm=True, memories=memories))
        if as_json:
            echo_json(r)
        else:
            echo(session_receipt_line(r["sessionId"], turns=r["turnsRemoved"], forgotten=r["memoriesForgotten"],
                                      kept=r["memoriesKept"], shared=r["sharedKept"], locked=r["lockedKept"],
                                      verified=r["verified"]))
        if not r["verified"]:
            fail(SESSION_LEFT, 1)


def _echo_page(page: dict[str, Any]) -> None:
    """A connection's nodes, one JSON object a line, and the next page's cursor on standard error, as `bmam
    memories` prints a page."""
    for edge in page["edges"]:
        echo_json(edge["node"])
    more_after(page["pageInfo"]["endCursor"] if page["pageInfo"]["hasNextPage"] else None)
