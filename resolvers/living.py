"""GraphQL of living memory (issue 5): feedback, conflicts and history, maintenance runs and their undo."""

from __future__ import annotations

from datetime import datetime

import strawberry

from bmam.usecases import corrections as correction_model
from bmam.usecases.maintenance import CheckReport as CheckReportModel
from bmam.usecases.maintenance import MaintenanceResult
from graph import changesets as cs_model
from graph import conflicts as conflict_model
from ingest import weights as weight_model
from resolvers.connections import Connection, connection
from resolvers.context import Info, call
from resolvers.types import Memory, MemoryType

FeedbackSignal = strawberry.enum(
    weight_model.FeedbackSignal,
    description="LIKE / DISLIKE: explicit feedback, active +/-0.5; DWELL / SKIP: implicit, active +/-0.2.")
ConflictKind = strawberry.enum(conflict_model.ConflictKind,
                               description="Which rule found the conflict (CORRECTION: the user corrected a memory).")
ConflictStatus = strawberry.enum(conflict_model.ConflictStatus, description="OPEN: held for review.")
ConflictStrategy = strawberry.enum(
    conflict_model.ConflictStrategy,
    description="LATEST: the newer memory wins (default); STRONGER: the heavier; REVIEW: held for a person.")
MaintenanceKind = strawberry.enum(
    cs_model.MaintenanceKind,
    description="DECAY; REBALANCE (weekly); FULL (monthly); CHECK (daily, read-only).")
ChangesetStatus = strawberry.enum(cs_model.ChangesetStatus, description="RUNNING (or interrupted) / COMPLETE.")


@strawberry.type(description="A contradiction between a new and an old memory, and how it was settled.")
class Conflict:
    id: strawberry.ID
    kind: ConflictKind  # type: ignore[valid-type]
    status: ConflictStatus  # type: ignore[valid-type]
    strategy: ConflictStrategy  # type: ignore[valid-type]
    reason: str
    created_at: datetime
    resolved_at: datetime | None
    resolved_by: str | None
    winner_id: strawberry.ID | None
    loser_id: strawberry.ID | None
    new_memory: Memory | None
    old_memory: Memory | None

    @classmethod
    def of(cls, c: conflict_model.Conflict) -> Conflict:
        return cls(
            id=strawberry.ID(c.id), kind=c.kind, status=c.status, strategy=c.strategy, reason=c.reason,
            created_at=c.created_at, resolved_at=c.resolved_at, resolved_by=c.resolved_by,
            winner_id=strawberry.ID(c.winner_id) if c.winner_id else None,
            loser_id=strawberry.ID(c.loser_id) if c.loser_id else None,
            new_memory=Memory.of(c.new_memory) if c.new_memory else None,
            old_memory=Memory.of(c.old_memory) if c.old_memory else None,
        )


@strawberry.type(description="A memory corrected by the user: the correction, live, and the memory it superseded.")
class Correction:
    memory: Memory
    corrected: Memory
    conflict: Conflict

    @classmethod
    def of(cls, c: correction_model.Correction) -> Correction:
        return cls(memory=Memory.of(c.memory), corrected=Memory.of(c.corrected), conflict=Conflict.of(c.conflict))


@strawberry.type(description="A memory in the history of the user's knowledge (validFrom / validTo on it).")
class HistoryEntry:
    memory: Memory
    supersedes: list[strawberry.ID]
    superseded_by: list[strawberry.ID]
    current: bool

    @classmethod
    def of(cls, h: conflict_model.HistoryEntry) -> HistoryEntry:
        return cls(memory=Memory.of(h.memory), supersedes=[strawberry.ID(x) for x in h.supersedes],
                   superseded_by=[strawberry.ID(x) for x in h.superseded_by], current=h.memory.valid_to is None)


@strawberry.type
class MergeRecord:
    survivor_id: strawberry.ID
    merged_ids: list[strawberry.ID]


@strawberry.type(description="What a maintenance run changed; undoMaintenance(id) puts it back exactly.")
class Changeset:
    id: strawberry.ID
    kind: MaintenanceKind  # type: ignore[valid-type]
    status: ChangesetStatus  # type: ignore[valid-type]
    created_at: datetime
    finished_at: datetime | None
    dry_run: bool
    undone: bool
    undone_at: datetime | None
    user_id: str | None
    users: list[str]
    users_done: int
    decayed: int
    reweighted: int
    merged: list[MergeRecord]
    purged: list[strawberry.ID]
    damped: list[strawberry.ID]
    lifted: list[strawberry.ID]
    indexes_rebuilt: list[str]

    @classmethod
    def of(cls, c: cs_model.Changeset) -> Changeset:
        return cls(
            id=strawberry.ID(c.id), kind=c.kind, status=c.status, created_at=c.created_at, finished_at=c.finished_at,
            dry_run=c.dry_run, undone=c.undone, undone_at=c.undone_at, user_id=c.user_id, users=c.users,
            users_done=c.users_done, decayed=c.decayed, reweighted=c.reweighted,
            merged=[MergeRecord(survivor_id=strawberry.ID(m.survivor_id),
                                merged_ids=[strawberry.ID(x) for x in m.merged_ids]) for m in c.merged],
            purged=[strawberry.ID(x) for x in c.purged], damped=[strawberry.ID(x) for x in c.damped],
            lifted=[strawberry.ID(x) for x in c.lifted], indexes_rebuilt=c.indexes_rebuilt,
        )


@strawberry.type
class UnreachableMemory:
    user_id: str
    id: strawberry.ID
    reason: str


@strawberry.type
class WorkingMemoryHealth:
    bytes_used: int
    bytes_limit: int
    headroom: float


@strawberry.type(description="The quick check: healthy when problems is empty.")
class CheckReport:
    healthy: bool
    core_memories: int
    unreachable_core: list[UnreachableMemory]
    working_memory: WorkingMemoryHealth | None
    min_headroom: float
    index_states: list[str]
    missing_indexes: list[str]
    indexes_not_online: list[str]
    pending_migrations: list[str]
    problems: list[str]

    @classmethod
    def of(cls, r: CheckReportModel) -> CheckReport:
        wm = r.working_memory
        return cls(
            healthy=r.healthy, core_memories=r.core_memories,
            unreachable_core=[UnreachableMemory(user_id=u["user_id"], id=strawberry.ID(u["id"]),
                                                reason="no HAS_MEMORY edge" if not u["owned"] else "no embedding")
                              for u in r.unreachable_core],
            working_memory=WorkingMemoryHealth(bytes_used=wm.bytes_used, bytes_limit=wm.bytes_limit,
                                               headroom=wm.headroom) if wm else None,
            min_headroom=r.min_headroom,
            index_states=[f"{name}: {state}" for name, state in sorted(r.indexes.states.items())],
            missing_indexes=r.indexes.missing, indexes_not_online=r.indexes.not_online,
            pending_migrations=r.indexes.pending_migrations, problems=r.problems,
        )


@strawberry.type
class MaintenanceRun:
    kind: MaintenanceKind  # type: ignore[valid-type]
    dry_run: bool
    changeset: Changeset | None
    check: CheckReport | None

    @classmethod
    def of(cls, r: MaintenanceResult) -> MaintenanceRun:
        return cls(kind=r.kind, dry_run=r.dry_run, changeset=Changeset.of(r.changeset) if r.changeset else None,
                   check=CheckReport.of(r.check) if r.check else None)


@strawberry.type
class LivingQuery:
    @strawberry.field(description="A user's conflicts, newest first: OPEN ones are the review queue; null status: all. "
                                  "At most 100; `after`: a cursor of conflictsConnection (which pages them).")
    async def conflicts(
        self, info: Info, user_id: str,
        status: ConflictStatus | None = conflict_model.ConflictStatus.OPEN,  # type: ignore[valid-type]
        first: int = 20, after: str | None = None,
    ) -> list[Conflict]:
        ctx = info.context
        found = await call(ctx.container.conflicts.conflicts, ctx.tenant, user_id, status=status, first=first,
                           after=after)
        return [Conflict.of(c) for c in found]

    @strawberry.field(description="conflicts as a Relay connection: a page of at most 100, newest first, and the "
                                  "cursor of the next (pageInfo.endCursor, as `after`).")
    async def conflicts_connection(
        self, info: Info, user_id: str,
        status: ConflictStatus | None = conflict_model.ConflictStatus.OPEN,  # type: ignore[valid-type]
        first: int = 20, after: str | None = None,
    ) -> Connection[Conflict]:
        ctx = info.context
        page = await call(ctx.container.conflicts.conflict_page, ctx.tenant, user_id, status=status, first=first,
                          after=after)
        return connection(page, Conflict.of)

    @strawberry.field(description="One conflict of a user, or null.")
    async def conflict(self, info: Info, user_id: str, id: strawberry.ID) -> Conflict | None:
        ctx = info.context
        found = await call(ctx.container.conflicts.get, ctx.tenant, user_id, str(id))
        return Conflict.of(found) if found else None

    @strawberry.field(description="Superseded memories included: the memories about an entity or one memory, with "
                                  "their supersession chains and validity; neither: every superseding chain and "
                                  "every superseded memory. Oldest first, at most 100; `after`: a cursor of "
                                  "historyConnection (which pages them).")
    async def history(self, info: Info, user_id: str, entity: str | None = None,
                      memory_id: strawberry.ID | None = None, first: int = 50,
                      after: str | None = None) -> list[HistoryEntry]:
        ctx = info.context
        found = await call(ctx.container.conflicts.history, ctx.tenant, user_id, entity=entity,
                           memory_id=str(memory_id) if memory_id is not None else None, first=first, after=after)
        return [HistoryEntry.of(h) for h in found]

    @strawberry.field(description="history as a Relay connection: a page of at most 100, oldest first (by validFrom), "
                                  "and the cursor of the next (pageInfo.endCursor, as `after`).")
    async def history_connection(self, info: Info, user_id: str, entity: str | None = None,
                                 memory_id: strawberry.ID | None = None, first: int = 50,
                                 after: str | None = None) -> Connection[HistoryEntry]:
        ctx = info.context
        page = await call(ctx.container.conflicts.history_page, ctx.tenant, user_id, entity=entity,
                          memory_id=str(memory_id) if memory_id is not None else None, first=first, after=after)
        return connection(page, HistoryEntry.of)

    @strawberry.field(description="The tenant's maintenance changesets, newest first.")
    async def changesets(self, info: Info, user_id: str | None = None, first: int = 20) -> list[Changeset]:
        ctx = info.context
        found = await call(ctx.container.maintenance.changesets, ctx.tenant, user_id=user_id, first=first)
        return [Changeset.of(c) for c in found]

    @strawberry.field(description="One maintenance changeset of the tenant, or null.")
    async def changeset(self, info: Info, id: strawberry.ID) -> Changeset | None:
        ctx = info.context
        found = await call(ctx.container.maintenance.changeset, ctx.tenant, str(id))
        return Changeset.of(found) if found else None


@strawberry.type
class LivingMutation:
    @strawberry.mutation(description="The user's reaction to a memory: moves its active weight part (clamped).")
    async def feedback(self, info: Info, user_id: str, memory_id: strawberry.ID,
                       signal: FeedbackSignal) -> Memory:  # type: ignore[valid-type]
        ctx = info.context
        return Memory.of(await call(ctx.container.feedback.feedback, ctx.tenant, user_id, str(memory_id), signal))

    @strawberry.mutation(description="Detect (again) the conflicts of a stored memory, settled by a strategy "
                                     "(default: the deployment's).")
    async def check_conflicts(self, info: Info, user_id: str, memory_id: strawberry.ID,
                              strategy: ConflictStrategy | None = None) -> list[Conflict]:  # type: ignore[valid-type]
        ctx = info.context
        found = await call(ctx.container.conflicts.check, ctx.tenant, user_id, str(memory_id),
                           strategy=strategy.value if strategy is not None else None)
        return [Conflict.of(c) for c in found]

    @strawberry.mutation(description="Settle a conflict held for review: the winner is one of its two memories.")
    async def resolve_conflict(self, info: Info, user_id: str, id: strawberry.ID, winner: strawberry.ID) -> Conflict:
        ctx = info.context
        return Conflict.of(await call(ctx.container.conflicts.resolve, ctx.tenant, user_id, str(id), str(winner)))

    @strawberry.mutation(description=(
        "Correct a live memory: the text (and type, if given) becomes a memory of its own that supersedes it, in its "
        "tier with its lock and weight, its triples extracted from the new text; the old one stays in the history "
        "(a CORRECTION conflict, resolved by the user). NOT_FOUND: no such memory of the user; CONFLICT: it is no "
        "longer live; BAD_USER_INPUT: the text says what the memory says."))
    async def correct_memory(self, info: Info, user_id: str, memory_id: strawberry.ID, text: str,
                             type: MemoryType | None = None) -> Correction:  # type: ignore[valid-type]
        ctx = info.context
        return Correction.of(await call(ctx.container.corrections.correct, ctx.tenant, user_id, str(memory_id), text,
                                        type))

    @strawberry.mutation(description="Run maintenance over the tenant (or one user): DECAY, REBALANCE, FULL or "
                                     "CHECK; dryRun reports the changeset without changing anything.")
    async def run_maintenance(self, info: Info, kind: MaintenanceKind,  # type: ignore[valid-type]
                              dry_run: bool = False, user_id: str | None = None) -> MaintenanceRun:
        ctx = info.context
        result = await call(ctx.container.maintenance.run, ctx.tenant, kind, dry_run=dry_run, user_id=user_id)
        return MaintenanceRun.of(result)

    @strawberry.mutation(description="Undo a maintenance run: every memory it changed goes back exactly.")
    async def undo_maintenance(self, info: Info, id: strawberry.ID) -> Changeset:
        ctx = info.context
        return Changeset.of(await call(ctx.container.maintenance.undo, ctx.tenant, str(id)))
