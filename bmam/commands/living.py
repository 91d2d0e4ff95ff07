"""CLI of living memory: maintain (--full / --rebalance / --decay, --dry-run, --undo ID), check --quick,
remains, feedback, conflicts, resolve, history and changesets."""

from __future__ import annotations

from typing import Annotated

import typer

from bmam import validate
from bmam.cli_support import (
    AfterOpt,
    DryRunOpt,
    TenantOpt,
    UserOpt,
    echo,
    echo_json,
    fail,
    found,
    memory_json,
    more_after,
    run,
    run_for,
    tenant_of,
)
from bmam.container import Container
from bmam.usecases.maintenance import CheckReport, MaintenanceResult
from bmam.usecases.remains import SweepReport
from graph.changesets import Changeset, MaintenanceKind
from graph.conflicts import Conflict
from graph.ids import log_name
from graph.model import Scope


def changeset_json(c: Changeset) -> dict[str, object]:
    return {
        "id": c.id, "tenant": c.tenant, "kind": c.kind.value, "status": c.status.value, "dry_run": c.dry_run,
        "undone": c.undone, "user_id": c.user_id, "created_at": c.created_at.isoformat(), "users": c.users,
        "users_done": c.users_done, "decayed": c.decayed,
        "merged": [{"survivor": m.survivor_id, "merged": m.merged_ids} for m in c.merged],
        "purged": c.purged, "damped": c.damped, "lifted": c.lifted, "indexes_rebuilt": c.indexes_rebuilt,
    }


def changeset_summary(c: Changeset) -> str:
    merged = sum(len(m.merged_ids) for m in c.merged)
    what = "dry run of " if c.dry_run else ""
    rebuilt = ", ".join(c.indexes_rebuilt) or "none"
    # a dry run's changeset is rolled back with its transaction: its id names nothing `bmam changeset` can show
    kept = "nothing kept (a dry run stores no changeset)" if c.dry_run else \
        f"changeset {c.id} ({c.status.value.lower()}{', undone' if c.undone else ''})"
    return (f"{what}{c.kind.value.lower()} of tenant {c.tenant}{' user ' + c.user_id if c.user_id else ''}: "
            f"{kept}: {c.users_done} users, "
            f"{c.decayed} decayed, {merged} merged into {len(c.merged)}, {len(c.purged)} purged, "
            f"{len(c.damped)} damped, {len(c.lifted)} lifted, indexes rebuilt: {rebuilt}")


def check_lines(r: CheckReport) -> list[str]:
    scope = f"tenant {r.tenant}" + (f" user {r.user_id}" if r.user_id else "")
    lines = [f"{'healthy' if r.healthy else 'UNHEALTHY'}: {scope}"]
    lines.append(f"  core memories: {r.core_memories}, unreachable: {len(r.unreachable_core)}")
    if r.working_memory is not None:
        wm = r.working_memory
        lines.append(f"  working memory: {wm.bytes_used} of {wm.bytes_limit} bytes, headroom {wm.headroom:.1%} "
                     f"(must be above {r.min_headroom:.0%})")
    online = sum(1 for n in r.indexes.expected if r.indexes.states.get(n) == "ONLINE")
    lines.append(f"  indexes: {online} of {len(r.indexes.expected)} online")
    pending = r.indexes.pending_migrations  # README's CHECK row: what was checked, said when healthy too
    lines.append(f"  migrations: {len(pending)} pending ({', '.join(pending)}): run `bmam migrate`" if pending
                 else "  migrations: none pending")
    lines += [f"  problem: {p}" for p in r.problems]
    if r.user_id:  # to find the user's lines: logs never hold a user id
        lines.append(f"  named in logs: {log_name(Scope(r.tenant, r.user_id))}")
    return lines


def conflict_json(c: Conflict) -> dict[str, object]:
    return {
        "id": c.id, "kind": c.kind.value, "status": c.status.value, "strategy": c.strategy.value, "reason": c.reason,
        "new": {"id": c.new_memory_id, "text": c.new_memory.text if c.new_memory else None},
        "old": {"id": c.old_memory_id, "text": c.old_memory.text if c.old_memory else None},
        "winner": c.winner_id, "loser": c.loser_id, "created_at": c.created_at.isoformat(),
        # as the API says them: who settled it (a strategy, "user", or "superseded": closed as moot) and when
        "resolved_by": c.resolved_by, "resolved_at": c.resolved_at.isoformat() if c.resolved_at else None,
    }


def maintenance_kind(full: bool, rebalance: bool, decay: bool, undo: str | None,
                     others: list[tuple[str, bool]], *, tenant_from: str = "--tenant") -> MaintenanceKind | None:
    """The run `maintain`'s flags ask for (None: --undo ID), for `bmam maintain` and `bmam remote maintain`:
    exactly one of --full, --rebalance, --decay, or --undo with none of `others` (flag name, given), else one
    line and exit 2 (tenant_from: what says the tenant, --tenant or the API key)."""
    chosen = [k for k, on in ((MaintenanceKind.FULL, full), (MaintenanceKind.REBALANCE, rebalance),
                              (MaintenanceKind.DECAY, decay)) if on]
    if undo is not None:
        # a changeset is undone whole, in its own tenant: nothing narrows or widens it
        extra = [name for name, on in (("--full", full), ("--rebalance", rebalance), ("--decay", decay), *others)
                 if on]
        if extra:
            fail(f"--undo takes no other maintenance option (got {', '.join(extra)}); it undoes the whole "
                 f"changeset, in the tenant given by {tenant_from}", 2)
        return None
    if len(chosen) != 1:
        fail("choose one of --full, --rebalance, --decay (or --undo ID)", 2)
    return chosen[0]


def register(app: typer.Typer) -> None:
    @app.command("maintain")
    def maintain(
        full: Annotated[bool, typer.Option("--full", help="Monthly: decay, merge near-duplicates, purge weight < "
                                                          "0.1, verify and rebuild indexes.")] = False,
        rebalance: Annotated[bool, typer.Option("--rebalance", help="Weekly: decay, damp weights > 0.9, lift "
                                                                    "valuable low-frequency memories.")] = False,
        decay: Annotated[bool, typer.Option("--decay", help="Bring every weight up to now.")] = False,
        undo: Annotated[str | None, typer.Option("--undo", metavar="ID", help="Undo the changeset ID.")] = None,
        dry_run: DryRunOpt = False,
        user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user.")] = None,
        tenant: TenantOpt = None,
        all_tenants: Annotated[bool, typer.Option("--all-tenants", help="Every tenant (operator).")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the changeset as JSON.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    ) -> None:
        """Run maintenance (one changeset per tenant, undoable) or undo a run by its changeset id."""
        kind = maintenance_kind(full, rebalance, decay, undo, [("--dry-run", dry_run), ("--user", user is not None),
                                                               ("--all-tenants", all_tenants)])
        if kind is None:
            assert undo is not None
            undone = run_for(tenant, lambda c, t: c.maintenance.undo(t, undo))
            if not quiet:
                echo(f"undone: {changeset_summary(undone)}")
            return
        if all_tenants and (tenant or user is not None):
            fail("--all-tenants takes neither --tenant nor --user", 2)

        def work(c: Container) -> list[MaintenanceResult]:
            if all_tenants:
                return c.maintenance.run_all_tenants(kind, dry_run=dry_run)
            return [c.maintenance.run(tenant_of(c, tenant), kind, dry_run=dry_run, user_id=user)]

        for result in run(work):
            if result.changeset is None or quiet:
                continue
            if as_json:
                echo_json(changeset_json(result.changeset))
            else:
                echo(changeset_summary(result.changeset))

    @app.command("check")
    def check(
        quick: Annotated[bool, typer.Option("--quick", help="Daily quick check (the only kind).")] = True,
        user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user's core memories.")] = None,
        tenant: TenantOpt = None,
        all_tenants: Annotated[bool, typer.Option("--all-tenants", help="Every tenant (operator).")] = False,
    ) -> None:
        """Quick check: every core memory reachable, working-memory headroom > 20 %, indexes online. Prints a
        report; exits 1 when anything is unhealthy, and for a --user the tenant does not have."""
        if all_tenants and (tenant or user is not None):
            fail("--all-tenants takes neither --tenant nor --user", 2)

        def work(c: Container) -> list[CheckReport]:
            if all_tenants:
                tenants = c.maintenance.tenants() or [c.settings.api.default_tenant]
                return [c.maintenance.check(t) for t in tenants]
            return [c.maintenance.check(tenant_of(c, tenant), user)]

        reports = run(work)
        for r in reports:
            for line in check_lines(r):
                echo(line)
        if not all(r.healthy for r in reports):
            raise typer.Exit(1)

    @app.command("remains")
    def remains(
        user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user.")] = None,
        tenant: TenantOpt = None,
        all_tenants: Annotated[bool, typer.Option("--all-tenants", help="Every tenant (operator).")] = False,
    ) -> None:
        """Keep the remains of superseded memories never looked at (memories superseded before this version, or
        by a process stopped before their remains): what the winner of their conflict did not contest. The daily
        maintenance does it too."""
        if all_tenants and (tenant or user is not None):
            fail("--all-tenants takes neither --tenant nor --user", 2)

        def work(c: Container) -> SweepReport:
            if all_tenants:
                return c.remains.sweep()
            return c.remains.sweep(tenant=tenant_of(c, tenant),
                                   user_id=validate.optional_identifier(user, field="user"))

        report = run(work)
        echo(f"{report.looked} superseded memories looked at, remains kept for {report.kept}")

    @app.command("feedback")
    def feedback(
        user: UserOpt,
        memory_id: Annotated[str, typer.Argument()],
        signal: Annotated[str, typer.Argument(help="LIKE, DISLIKE (+/-0.5), DWELL, SKIP (+/-0.2)")],
        tenant: TenantOpt = None,
    ) -> None:
        """Give feedback on a memory; prints it afterwards."""
        m = run_for(tenant, lambda c, t: c.feedback.feedback(t, user, memory_id, signal))
        echo_json({**memory_json(m), "active": m.weight.active, "passive": m.weight.passive})

    @app.command("conflicts")
    def conflicts(
        user: UserOpt,
        all_: Annotated[bool, typer.Option("--all", help="Resolved ones too (default: the open review queue).")]
        = False,
        first: int = 20,
        after: AfterOpt = None,
        tenant: TenantOpt = None,
    ) -> None:
        """A user's conflicts, newest first, one JSON object a line (the next page's cursor on standard error)."""
        page = run_for(tenant, lambda c, t: c.conflicts.conflict_page(t, user, status=None if all_ else "OPEN",
                                                                      first=first, after=after))
        for x in page.items:
            echo_json(conflict_json(x))
        more_after(page.next_cursor)

    @app.command("conflict")
    def conflict(user: UserOpt, conflict_id: Annotated[str, typer.Argument()], tenant: TenantOpt = None) -> None:
        """One conflict of a user, as JSON (NOT_FOUND when the user has none by that id)."""
        echo_json(conflict_json(run_for(tenant, lambda c, t: found(c.conflicts.get(t, user, conflict_id),
                                                                   f"conflict {conflict_id} not found"))))

    @app.command("check-conflicts")
    def check_conflicts(
        user: UserOpt,
        memory_id: Annotated[str, typer.Argument(help="The stored memory to check.")],
        strategy: Annotated[str | None, typer.Option(
            "--strategy", help="LATEST, STRONGER or REVIEW, any case (default: the setting living.conflict_strategy)")]
        = None,
        tenant: TenantOpt = None,
    ) -> None:
        """Run conflict detection for one stored memory now against the user's other memories, as the API's
        checkConflicts does, settling what it finds by the strategy: its conflicts, one JSON object a line."""
        found = run_for(tenant, lambda c, t: c.conflicts.check(t, user, memory_id, strategy=strategy))
        for x in found:
            echo_json(conflict_json(x))

    @app.command("resolve")
    def resolve(
        user: UserOpt,
        conflict_id: Annotated[str, typer.Argument()],
        winner: Annotated[str, typer.Argument(help="The id of the memory that wins.")],
        tenant: TenantOpt = None,
    ) -> None:
        """Settle a conflict held for review."""
        x = run_for(tenant, lambda c, t: c.conflicts.resolve(t, user, conflict_id, winner))
        echo_json(conflict_json(x))

    @app.command("correct")
    def correct(
        user: UserOpt,
        memory_id: Annotated[str, typer.Argument(help="The live memory to correct.")],
        text: Annotated[str, typer.Argument(help="What the memory should say.")],
        type: Annotated[str | None, typer.Option("--type", "-t", help="Another type (default: the memory's).")]
        = None,
        tenant: TenantOpt = None,
    ) -> None:
        """Correct a memory: the text becomes a memory of its own that supersedes it (same tier, lock and weight);
        prints the correction as JSON with the id it corrects."""
        x = run_for(tenant, lambda c, t: c.corrections.correct(t, user, memory_id, text, type))
        echo_json({**memory_json(x.memory), "corrects": x.corrected.id, "conflict_id": x.conflict.id})

    @app.command("history")
    def history(
        user: UserOpt,
        entity: Annotated[str | None, typer.Option(help="Memories about this entity (by name).")] = None,
        memory: Annotated[str | None, typer.Option(help="This memory and its supersession chain.")] = None,
        first: int = 50,
        after: AfterOpt = None,
        tenant: TenantOpt = None,
    ) -> None:
        """Superseded memories included, oldest first, with their validity: the memories about --entity, or
        --memory, each with its supersession chain; neither: every memory in a supersession chain and every
        superseded one (also one whose successor was deleted since; one never superseded and superseding nothing
        is not history: `bmam memories` lists it). The next page's cursor on standard error."""
        page = run_for(tenant, lambda c, t: c.conflicts.history_page(t, user, entity=entity, memory_id=memory,
                                                                     first=first, after=after))
        for h in page.items:
            m = h.memory
            echo_json({**memory_json(m), "valid_from": m.valid_from.isoformat(),
                       "valid_to": m.valid_to.isoformat() if m.valid_to else None,
                       "supersedes": h.supersedes, "superseded_by": h.superseded_by})
        more_after(page.next_cursor)

    @app.command("changeset")
    def changeset(
        changeset_id: Annotated[str, typer.Argument()],
        as_json: Annotated[bool, typer.Option("--json", help="As JSON (as maintain --json).")] = False,
        tenant: TenantOpt = None,
    ) -> None:
        """One maintenance changeset of the tenant (NOT_FOUND when it has none by that id)."""
        # "unknown changeset", as maintain --undo says it
        one = run_for(tenant, lambda c, t: found(c.maintenance.changeset(t, changeset_id),
                                                 f"unknown changeset {changeset_id}"))
        if as_json:
            echo_json(changeset_json(one))
        else:
            echo(changeset_summary(one))

    @app.command("changesets")
    def changesets(
        user: Annotated[str | None, typer.Option("--user", "-u")] = None,
        first: int = 20,
        as_json: Annotated[bool, typer.Option("--json", help="One JSON object a line (as maintain --json).")] = False,
        tenant: TenantOpt = None,
    ) -> None:
        """The tenant's maintenance changesets, newest first."""
        found = run_for(tenant, lambda c, t: c.maintenance.changesets(t, user_id=user, first=first))
        for x in found:
            if as_json:
                echo_json(changeset_json(x))
            else:
                echo(changeset_summary(x))
