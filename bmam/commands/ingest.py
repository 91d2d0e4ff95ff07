"""CLI of ingest and the tiers: ingest a JSONL conversation file, react, lock / unlock, sweep the tiers,
show working memory, and train the level-2 type classifier."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from bmam.cli_support import (
    AtOpt,
    DeviceOpt,
    DryRunOpt,
    ReactionArg,
    SessionOpt,
    SpeakerOpt,
    TenantOpt,
    TurnOpt,
    TurnTextArg,
    UserOpt,
    clear_errors,
    echo,
    echo_json,
    fail,
    memory_json,
    run_for,
    settings,
)
from bmam.container import Container
from bmam.settings import PROJECT_ROOT
from bmam.usecases.ingest import IngestReport
from graph.errors import BadInput
from graph.model import Tier
from ingest.classify import LabeledUtterance
from ingest.tier_policy import TierChange
from ingest.turns import ParsedLine, TurnInput, mixed_times, numbered, placed_turns, read_jsonl

DEFAULT_UTTERANCES = PROJECT_ROOT / "tests" / "data" / "utterances.jsonl"


def _change_json(c: TierChange) -> dict[str, object]:
    return {"memory_id": c.memory_id, "from": c.from_tier.value, "to": c.to_tier.value if c.to_tier else None,
            "reason": c.reason.value}


def ingest_file(c: Container, tenant: str, lines: list[ParsedLine], *, progress: bool = True
                ) -> tuple[list[str], list[str], IngestReport]:
    """Ingest the good lines of a JSONL file (read_jsonl); returns the problems (bad lines: not stored; one line each,
    with line numbers), the notes (what went wrong for a line that was stored: a core promotion refused) and the
    report of the good lines."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    good = placed_turns(lines)
    turns = [t for _, t in good]
    problems = [f"line {p.line_no}: {p.error}" for p in lines if p.error]
    with Progress(TextColumn("ingesting"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  disable=not progress, transient=False, console=None) as bar:
        task = bar.add_task("ingest", total=len(turns))
        report = c.ingest.ingest_indexed(tenant, turns, on_progress=lambda n: bar.advance(task, n),
                                         numbered=[numbered(p) for p, _ in good],
                                         names=[f"line {p.line_no}" for p, _ in good])
    notes: list[str] = []
    for (p, _), result in zip(good, report.turns, strict=True):
        for e in result.errors:
            (notes if result.stored else problems).append(f"line {p.line_no}: [{e.code}] {e.message}")
    problems.sort(key=lambda s: int(s.split(":")[0].split()[1]))
    return problems, notes, report


def read_utterances(path: Path) -> list[LabeledUtterance]:
    """The labelled utterances of a JSONL file (tests/data/README.md), refused whole with the first bad line's
    number: a model trained on part of a file would be a different model."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})", field="data") from exc
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}", field="data") from exc
    rows: list[LabeledUtterance] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise TypeError(f"a JSON object expected, not {type(row).__name__}")
            rows.append(LabeledUtterance.from_json(row))
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path} line {n}: malformed JSON ({exc.msg}, column {exc.colno})", field="data") from exc
        except KeyError as exc:
            raise BadInput(f"{path} line {n}: missing field {exc.args[0]!r} (not a labelled utterance; see "
                           "tests/data/README.md)", field="data") from exc
        except (TypeError, ValueError) as exc:
            raise BadInput(f"{path} line {n}: {exc}", field="data") from exc
    if not any(r.split == "train" for r in rows):
        raise BadInput(f"{path}: no rows in the train split", field="data")
    return rows


def register(app: typer.Typer) -> None:
    tiers_app = typer.Typer(help="The three tiers (temp, mid, core) of a user's memories.", no_args_is_help=True)
    app.add_typer(tiers_app, name="tiers")

    @app.command("ingest")
    def ingest_command(
        file: Annotated[Path, typer.Argument(help="A JSONL file, one turn a line (README: Ingesting conversations).",
                                             exists=True, dir_okay=False, readable=True)],
        tenant: TenantOpt = None,
        progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    ) -> None:
        """Ingest a conversation file. Bad lines are reported with their line numbers and the good ones kept;
        exits 2 when any line was bad. Ingesting the same file again changes nothing. A file whose lines give `at`
        must give it on every line (or on none): a mix is refused whole, exit 2."""
        lines = read_jsonl(file)
        if (why := mixed_times(lines)) is not None:  # before anything is written, Neo4j not even asked
            fail(f"error [BAD_USER_INPUT]: {why}", 2)
        problems, notes, report = run_for(tenant, lambda c, t: ingest_file(c, t, lines, progress=progress))
        created = sum(len(t.memories) for t in report.turns)
        mentions = sum(len(t.mentioned) for t in report.turns)
        taken_back = sum(len(t.forgotten) for t in report.turns)
        for problem in problems:
            typer.secho(problem, fg=typer.colors.RED, err=True)
        for note in notes:  # the line is stored: not a bad line
            typer.secho(f"note: {note}", fg=typer.colors.YELLOW, err=True)
        bad_lines = len({p.split(":")[0] for p in problems})
        echo(
            f"{len(lines)} lines: {report.stored} turns stored, {report.duplicates} already present, "
            f"{created} memories created, {mentions} mentions of existing memories, "
            f"{len(report.changes)} capacity moves, {bad_lines} bad lines"
            + (f", {len(notes)} notes on stored lines" if notes else "")
            + (f", {taken_back} memories taken back ('forget what I just said')" if taken_back else "")
        )
        if problems:
            raise typer.Exit(2)

    @app.command("ingest-turn")
    def ingest_turn_command(user: UserOpt, session: SessionOpt, speaker: SpeakerOpt, text: TurnTextArg,
                            at: AtOpt = None, turn: TurnOpt = None, device: DeviceOpt = None,
                            tenant: TenantOpt = None) -> None:
        """Ingest one turn (as ingestTurn): prints what became of it. Sending it again changes nothing."""
        given = TurnInput(user_id=user, session_id=session, speaker=speaker, text=text, at=at, device_id=device,
                          turn=turn)
        r = run_for(tenant, lambda c, t: c.ingest.ingest_turn(t, given))
        echo_json({"stored": r.stored, "duplicate": r.duplicate, "episode_id": r.episode_id, "turn": r.turn,
                   "remembered": r.remembered, "reason": r.reason, "memories": [memory_json(m) for m in r.memories],
                   "mentioned": [m.id for m in r.mentioned], "forgotten": r.forgotten,
                   "changes": [_change_json(c) for c in r.changes],
                   "errors": [{"code": e.code, "message": e.message} for e in r.errors]})

    @app.command("react")
    def react_command(
        user: UserOpt,
        memory_id: Annotated[str, typer.Argument()],
        signal: ReactionArg,
        tenant: TenantOpt = None,
    ) -> None:
        """The user's reaction to a memory: ENGAGED promotes temp to mid, DISMISSED deletes a temp memory."""
        result = run_for(tenant, lambda c, t: c.tiers.react(t, user, memory_id, signal))
        echo_json({"memory_id": result.memory_id, "signal": result.signal.value, "deleted": result.deleted,
                   "memory": memory_json(result.memory) if result.memory else None,
                   "changes": [_change_json(c) for c in result.changes]})

    @app.command("lock")
    def lock_command(user: UserOpt, memory_id: Annotated[str, typer.Argument()], tenant: TenantOpt = None) -> None:
        """Move a memory to core and lock it (fails when core is full)."""
        m = run_for(tenant, lambda c, t: c.tiers.lock(t, user, memory_id))
        echo_json(memory_json(m))

    @app.command("unlock")
    def unlock_command(user: UserOpt, memory_id: Annotated[str, typer.Argument()], tenant: TenantOpt = None) -> None:
        """Unlock a core memory: it goes back to mid."""
        m = run_for(tenant, lambda c, t: c.tiers.unlock(t, user, memory_id))
        echo_json(memory_json(m))

    @tiers_app.command("sweep")
    def sweep_command(user: UserOpt, tenant: TenantOpt = None, dry_run: DryRunOpt = False) -> None:
        """Delete stale temp memories, let faded mid ones fall back to temp, restore the capacities."""
        changes = run_for(tenant, lambda c, t: c.tiers.sweep(t, user, dry_run=dry_run))
        for change in changes:
            echo_json(_change_json(change))
        typer.echo(f"{len(changes)} changes{' (dry run: nothing changed)' if dry_run else ''}", err=True)

    @tiers_app.command("usage")
    def usage_command(user: UserOpt, tenant: TenantOpt = None) -> None:
        """Memories per tier and the capacities."""
        usage = run_for(tenant, lambda c, t: c.tiers.usage(t, user))
        for t in Tier:
            echo(f"{t.value:5} {usage.counts[t]:6} / {usage.capacities[t]}")

    @app.command("working-memory")
    def working_memory_command(
        user: UserOpt, session: Annotated[str, typer.Argument()],
        n: Annotated[int | None, typer.Option("-n", help="At most this many turns, the newest (default: all "
                                                         "held, 5).")] = None,  # as workingMemory's n
        tenant: TenantOpt = None,
    ) -> None:
        """The last turns of a session (rebuilt from its episodes), one JSON object a line."""
        turns = run_for(tenant, lambda c, t: c.ingest.working_memory(t, user, session, n))
        for t in turns:
            echo_json({"turn": t.turn, "speaker": t.speaker, "text": t.text, "at": t.at.isoformat()})

    @app.command("train-classifier")
    def train_classifier(
        data: Annotated[Path, typer.Option(help="Labelled utterances (JSONL).", exists=True, dir_okay=False)]
        = DEFAULT_UTTERANCES,
        out: Annotated[Path | None, typer.Option(help="Where to write the weights (default: the setting "
                                                      "ingest.type_model_path).")] = None,
    ) -> None:
        """Train the level-2 type model on the train split, deterministically, with the configured embedder."""
        from ingest.classify import train_type_model

        cfg = settings()
        target = out or cfg.ingest.type_model_path
        # where the model goes is checked before the training, not after it
        if target.is_dir():
            fail(f"cannot write {target}: it is a folder", 2)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot write {target}: {exc.strerror or exc}")
        with clear_errors():
            rows = read_utterances(data)
            c = Container(cfg)  # no Neo4j needed: only the embedder
            embedder = c.embedder
            model = train_type_model(rows, embedder.embed_passages, embedder=cfg.embedding.model)
        try:
            model.save(target)
        except OSError as exc:  # no such folder and none can be made, no permission, a full disk
            fail(f"cannot write {target}: {exc.strerror or exc}")
        for split in ("train", "test"):
            part = [r for r in rows if r.split == split]
            if not part:
                continue
            probs = model.predict_proba_batch(embedder.embed_passages([r.text for r in part]))
            hits = sum(1 for r, p in zip(part, probs, strict=True) if model.classes[int(p.argmax())] is r.type)
            typer.echo(f"model alone, {split} split: {hits}/{len(part)} = {hits / len(part):.3f}", err=True)
        echo(f"wrote {target} ({cfg.embedding.model}, {model.dim} dims, "
             f"{sum(1 for r in rows if r.split == 'train')} training utterances)")
        if not target.exists():
            fail(f"could not write {target}")
        sys.stdout.flush()
