"""GraphQL face of ingest and the tiers: ingestTurn, ingestConversation, react, lock, unlock, sweepTiers,
and the workingMemory and tierUsage queries."""

from __future__ import annotations

from datetime import datetime

import strawberry

from bmam.usecases import ingest as ingest_cases
from bmam.usecases import tiers as tier_cases
from graph import model
from ingest import tier_policy
from ingest import turns as turn_model
from ingest.working_memory import Turn
from resolvers.context import Info, call
from resolvers.types import Memory, Tier, Triple

ReactionSignal = strawberry.enum(
    tier_policy.Signal,
    name="ReactionSignal",
    description="The user's reaction when a memory comes up again: ENGAGED promotes temp to mid, IGNORED "
                "leaves it, DISMISSED deletes a temp memory (and sends a mid one back to temp).",
)


# What `at` may be (ingestTurn's description points here).
AT_DESCRIPTION = ("When the turn was said (default: now): ISO 8601; a time without a zone offset is read as UTC. "
                  "Refused (BAD_USER_INPUT) when later than the server's clock plus the allowed skew "
                  "(BMAM_INGEST__CLOCK_SKEW_S, 10 minutes by default).")


@strawberry.input(description="One conversation turn. speaker: user, assistant, system or tool (also human, ai, "
                              "bot; developer is system, function is tool); only the user's turns become "
                              "memories. Without turn, the index is the one after the turn before it of its "
                              "user and session in the request (0 for the first), so the unnumbered turns after "
                              "turn 5 are 6, 7, ...; two turns of a session on one index are refused for the "
                              "later one.")
class TurnInput:
    user_id: str
    session_id: str
    speaker: str
    text: str
    at: datetime | None = strawberry.field(default=None, description=AT_DESCRIPTION)
    device_id: str | None = None
    turn: int | None = None

    def to_model(self) -> turn_model.TurnInput:
        return turn_model.TurnInput(user_id=self.user_id, session_id=self.session_id, speaker=self.speaker,
                                    text=self.text, at=self.at, device_id=self.device_id, turn=self.turn)


@strawberry.type(description="Why a turn, or part of it, was refused. BAD_USER_INPUT: the turn was not stored. "
                             "CONFLICT: its index holds another text, or a core promotion was refused (core full).")
class TurnError:
    code: str
    message: str
    field: str | None


@strawberry.type(description="A memory moving between tiers; toTier null means it was deleted.")
class TierChange:
    memory_id: strawberry.ID
    from_tier: Tier  # type: ignore[valid-type]
    to_tier: Tier | None  # type: ignore[valid-type]
    deleted: bool
    reason: str

    @classmethod
    def of(cls, c: tier_policy.TierChange) -> TierChange:
        return cls(memory_id=strawberry.ID(c.memory_id), from_tier=c.from_tier, to_tier=c.to_tier,
                   deleted=c.deleted, reason=c.reason.value)


@strawberry.type(description="What became of one turn: its episode, the memories it created or repeated, their "
                             "triples and tier moves, and per-turn errors.")
class IngestTurnResult:
    index: int
    stored: bool
    duplicate: bool
    episode_id: strawberry.ID | None
    user_id: str | None
    session_id: str | None
    turn: int | None
    speaker: str | None
    remembered: bool
    reason: str | None
    memories: list[Memory]
    mentioned: list[Memory]
    triples: list[Triple]
    tier_changes: list[TierChange]
    errors: list[TurnError]
    forgotten: list[strawberry.ID] = strawberry.field(description=(
        "Memories this turn took back: a turn that only asks to forget what the user just said ('forget what I just "
        "said', 当我没说) forgets the memories made from the user's turn before it in the session."))

    @classmethod
    def of(cls, r: ingest_cases.TurnResult) -> IngestTurnResult:
        return cls(
            index=r.index, stored=r.stored, duplicate=r.duplicate,
            episode_id=strawberry.ID(r.episode_id) if r.episode_id else None, user_id=r.user_id,
            session_id=r.session_id, turn=r.turn, speaker=r.speaker, remembered=r.remembered, reason=r.reason,
            memories=[Memory.of(m) for m in r.memories], mentioned=[Memory.of(m) for m in r.mentioned],
            triples=[Triple.of(t) for t in r.triples], tier_changes=[TierChange.of(c) for c in r.changes],
            errors=[TurnError(code=e.code, message=e.message, field=e.field) for e in r.errors],
            forgotten=[strawberry.ID(i) for i in r.forgotten],
        )


@strawberry.type(description="Per-turn results in request order, and the capacity moves the request caused.")
class IngestConversationResult:
    turns: list[IngestTurnResult]
    tier_changes: list[TierChange]
    stored: int
    duplicates: int
    failed: int


@strawberry.type
class ReactionResult:
    memory_id: strawberry.ID
    signal: ReactionSignal  # type: ignore[valid-type]
    deleted: bool
    memory: Memory | None
    tier_changes: list[TierChange]


@strawberry.type
class WorkingTurn:
    speaker: str
    text: str
    at: datetime
    turn: int
    episode_id: strawberry.ID

    @classmethod
    def of(cls, t: Turn) -> WorkingTurn:
        return cls(speaker=t.speaker, text=t.text, at=t.at, turn=t.turn, episode_id=strawberry.ID(t.episode_id))


@strawberry.type(description="The recent turns of a session held by the service, and how full working memory is.")
class WorkingMemoryView:
    user_id: str
    session_id: str
    turns: list[WorkingTurn]
    headroom: float = strawberry.field(description="Free fraction of the working-memory byte budget, in [0, 1].")
    sessions_held: int


@strawberry.type(description="How many memories a user holds per tier, and the capacities.")
class TierUsage:
    temp: int
    mid: int
    core: int
    temp_capacity: int
    mid_capacity: int
    core_capacity: int


@strawberry.type
class IngestQuery:
    @strawberry.field(description="The last n turns of a session, oldest first, rebuilt from its episodes when "
                                  "needed. n is 1 to the turns held per session (ingest.working_memory_turns, 5 by "
                                  "default), which is also the default; a larger n is refused (LIMIT_EXCEEDED), "
                                  "not cut down.")
    async def working_memory(self, info: Info, user_id: str, session_id: str, n: int | None = None
                             ) -> WorkingMemoryView:
        ctx = info.context
        turns = await call(ctx.container.ingest.working_memory, ctx.tenant, user_id, session_id, n)
        stats = ctx.container.working_memory.stats()
        return WorkingMemoryView(user_id=user_id, session_id=session_id, turns=[WorkingTurn.of(t) for t in turns],
                                 headroom=stats.headroom, sessions_held=stats.sessions)

    @strawberry.field(description="A user's memory count per tier and the tier capacities.")
    async def tier_usage(self, info: Info, user_id: str) -> TierUsage:
        ctx = info.context
        usage = await call(ctx.container.tiers.usage, ctx.tenant, user_id)
        c, cap = usage.counts, usage.capacities
        T = model.Tier
        return TierUsage(temp=c[T.TEMP], mid=c[T.MID], core=c[T.CORE], temp_capacity=cap[T.TEMP],
                         mid_capacity=cap[T.MID], core_capacity=cap[T.CORE])


@strawberry.type
class IngestMutation:
    @strawberry.mutation(description="Ingest one turn (the arguments as TurnInput's fields: at without a zone "
                                     "offset is UTC, and at most the allowed clock skew ahead of the server's "
                                     "clock). Without turn it is appended to the session (a retry of the "
                                     "session's last turn changes nothing). Invalid input is an error.")
    async def ingest_turn(
        self, info: Info, user_id: str, session_id: str, speaker: str, text: str, at: datetime | None = None,
        device_id: str | None = None, turn: int | None = None,
    ) -> IngestTurnResult:
        ctx = info.context
        given = turn_model.TurnInput(user_id=user_id, session_id=session_id, speaker=speaker, text=text, at=at,
                                     device_id=device_id, turn=turn)
        return IngestTurnResult.of(await call(ctx.container.ingest.ingest_turn, ctx.tenant, given))

    @strawberry.mutation(description="Ingest many turns (a conversation). Invalid turns get BAD_USER_INPUT errors "
                                     "in their result; the valid ones are kept. Ingesting the same turns again "
                                     "changes nothing.")
    async def ingest_conversation(self, info: Info, turns: list[TurnInput]) -> IngestConversationResult:
        ctx = info.context
        report = await call(ctx.container.ingest.ingest_conversation, ctx.tenant, [t.to_model() for t in turns])
        return IngestConversationResult(
            turns=[IngestTurnResult.of(r) for r in report.turns],
            tier_changes=[TierChange.of(c) for c in report.changes],
            stored=report.stored, duplicates=report.duplicates, failed=report.failed,
        )

    @strawberry.mutation(description="The user's reaction to a memory that came up (filter 2).")
    async def react(self, info: Info, user_id: str, memory_id: strawberry.ID,
                    signal: ReactionSignal) -> ReactionResult:  # type: ignore[valid-type]
        ctx = info.context
        result: tier_cases.ReactionResult = await call(ctx.container.tiers.react, ctx.tenant, user_id,
                                                        str(memory_id), signal)
        return ReactionResult(memory_id=strawberry.ID(result.memory_id), signal=result.signal, deleted=result.deleted,
                              memory=Memory.of(result.memory) if result.memory else None,
                              tier_changes=[TierChange.of(c) for c in result.changes])

    @strawberry.mutation(description="Mark a memory important: it moves to core and is locked (CONFLICT when core "
                                     "is full or the memory is history; a locked one is returned as it is).")
    async def lock(self, info: Info, user_id: str, memory_id: strawberry.ID) -> Memory:
        ctx = info.context
        return Memory.of(await call(ctx.container.tiers.lock, ctx.tenant, user_id, str(memory_id)))

    @strawberry.mutation(description="Unlock a core memory: it goes back to mid, managed by the system again "
                                     "(a memory not locked is returned as it is; CONFLICT for history).")
    async def unlock(self, info: Info, user_id: str, memory_id: strawberry.ID) -> Memory:
        ctx = info.context
        return Memory.of(await call(ctx.container.tiers.unlock, ctx.tenant, user_id, str(memory_id)))

    @strawberry.mutation(description="Delete a user's stale temp memories, let faded mid ones fall back to temp, "
                                     "and restore the capacities. dryRun: the moves a sweep now would make, nothing "
                                     "changed (a deletion has no undo).")
    async def sweep_tiers(self, info: Info, user_id: str, dry_run: bool = False) -> list[TierChange]:
        ctx = info.context
        return [TierChange.of(c) for c in await call(ctx.container.tiers.sweep, ctx.tenant, user_id,
                                                     dry_run=dry_run)]
