"""GraphQL of the directory an app reads: its users, a user's sessions and a session's turns, a page at a time; and
forgetSession, the erasure of one conversation."""

from __future__ import annotations

from datetime import datetime

import strawberry

from bmam.usecases import sessions as session_cases
from graph import users as user_model
from graph.episodes import SessionTurn
from resolvers.connections import Connection, connection
from resolvers.context import Info, call

SessionMemories = strawberry.enum(session_cases.SessionMemories, description=(
    "What forgetSession does with the memories derived from the session's turns. KEEP: they stay (their "
    "source.sessionId is provenance only). FORGET: each derived from this session's turns alone is forgotten as "
    "forget forgets one; one also derived from another session's turns is kept, and so is a locked core memory "
    "(forgetting one takes forget(confirm: true) of that memory)."))


@strawberry.type(description="A user of the caller's app.")
class User:
    user_id: str
    memory_count: int = strawberry.field(description=(
        "The user's live memories: those memories lists without includeHistory (tierUsage counts them by tier). "
        "Superseded ones are historyCount."))
    history_count: int = strawberry.field(description=(
        "The user's superseded memories, kept as history (memories(includeHistory: true) lists them with the live "
        "ones; history shows what superseded them)."))
    last_active_at: datetime | None = strawberry.field(description=(
        "When the user's newest memory was stored or newest turn was said; null when it has neither."))

    @classmethod
    def of(cls, u: user_model.UserSummary) -> User:
        return cls(user_id=u.user_id, memory_count=u.memory_count, history_count=u.history_count,
                   last_active_at=u.last_active_at)


@strawberry.type(description="A conversation of a user: its turns (episodes) and when they were said.")
class Session:
    session_id: str
    turn_count: int
    first_turn_at: datetime | None = strawberry.field(description=(
        "When its earliest turn was said; null for a session imported without it."))
    last_turn_at: datetime | None = strawberry.field(description=(
        "When its latest turn was said; null for a session imported without it."))

    @classmethod
    def of(cls, s: user_model.SessionSummary) -> Session:
        return cls(session_id=s.session_id, turn_count=s.turn_count, first_turn_at=s.first_turn_at,
                   last_turn_at=s.last_turn_at)


@strawberry.type(description="A stored turn of a session (an episode).")
class Turn:
    turn: int = strawberry.field(description="Its index in the session.")
    speaker: str
    text: str
    at: datetime | None = strawberry.field(description="When it was said; null for a turn imported without it.")
    device_id: str | None = strawberry.field(description="The device it came from (provenance).")
    episode_id: strawberry.ID
    memory_ids: list[strawberry.ID] = strawberry.field(description=(
        "The live memories derived from it (DERIVED_FROM): those it made and those it mentioned again."))

    @classmethod
    def of(cls, t: SessionTurn) -> Turn:
        return cls(turn=t.turn, speaker=t.speaker, text=t.text, at=t.at, device_id=t.device_id,
                   episode_id=strawberry.ID(t.episode_id), memory_ids=[strawberry.ID(m) for m in t.memory_ids])


@strawberry.type(description="What forgetSession removed of one session, and a re-query proving none of its turns "
                             "or nodes is left. Counts are this run's (a run finishing a stopped one counts the rest).")
class SessionErasureReceipt:
    user_id: str
    session_id: str
    memories: SessionMemories  # type: ignore[valid-type]
    turns_removed: int = strawberry.field(description="The session's turns (episodes) deleted.")
    nodes_removed: int = strawberry.field(description="Its turns, its Session node and its anti-repetition state.")
    relationships_removed: int
    memories_forgotten: int = strawberry.field(description="Memories forgotten (memories: FORGET), each as forget "
                                                           "forgets one.")
    forgotten_memory_ids: list[strawberry.ID]
    memories_kept: int = strawberry.field(description=(
        "Memories derived from the session's turns that stay: all of them with KEEP; with FORGET, sharedKept + "
        "lockedKept."))
    shared_kept: int = strawberry.field(description="Kept by FORGET: derived from another session's turns too.")
    locked_kept: int = strawberry.field(description="Kept by FORGET: locked core memories (forget(confirm: true) "
                                                    "forgets one).")
    remaining_turns: int = strawberry.field(description="The session's turns the re-query still finds.")
    remaining_nodes: int = strawberry.field(description="Its Session node and anti-repetition state still found.")
    verified: bool = strawberry.field(description="True when the re-query found none of the session's turns or "
                                                  "nodes.")
    erased_at: datetime

    @classmethod
    def of(cls, r: session_cases.SessionErasureReceipt) -> SessionErasureReceipt:
        return cls(user_id=r.user_id, session_id=r.session_id, memories=r.memories, turns_removed=r.turns_removed,
                   nodes_removed=r.nodes_removed, relationships_removed=r.relationships_removed,
                   memories_forgotten=r.memories_forgotten,
                   forgotten_memory_ids=[strawberry.ID(m) for m in r.forgotten_memory_ids],
                   memories_kept=r.memories_kept, shared_kept=r.shared_kept, locked_kept=r.locked_kept,
                   remaining_turns=r.remaining_turns, remaining_nodes=r.remaining_nodes, verified=r.verified,
                   erased_at=r.at)


@strawberry.type
class UsersQuery:
    @strawberry.field(description="The users of the caller's app, in id order; at most 100 a page.")
    async def users(self, info: Info, first: int = 20, after: str | None = None) -> Connection[User]:
        ctx = info.context
        page = await call(ctx.container.users.users, ctx.tenant, first=first, after=after)
        return connection(page, User.of)

    @strawberry.field(description="A user's sessions, the newest started first (then by id); at most 100 a page.")
    async def sessions(self, info: Info, user_id: str, first: int = 20,
                       after: str | None = None) -> Connection[Session]:
        ctx = info.context
        page = await call(ctx.container.users.sessions, ctx.tenant, user_id, first=first, after=after)
        return connection(page, Session.of)

    @strawberry.field(description="A session's stored turns in turn order, each with the live memories derived from "
                                  "it; at most 100 a page. NOT_FOUND when the user has no such session.")
    async def turns(self, info: Info, user_id: str, session_id: str, first: int = 50,
                    after: str | None = None) -> Connection[Turn]:
        ctx = info.context
        page = await call(ctx.container.sessions.turns, ctx.tenant, user_id, session_id, first=first, after=after)
        return connection(page, Turn.of)


@strawberry.type
class SessionsMutation:
    @strawberry.mutation(description=(
        "Erase one session of a user: its turns (episodes), its Session node, its anti-repetition state and what "
        "the service holds of it in memory (working memory, cached turns). memories: KEEP (default) leaves the "
        "memories derived from it; FORGET also forgets those derived from its turns alone (see SessionMemories). "
        "Needs confirm: true; NOT_FOUND when the user has no such session. Answers a receipt with a re-query proving "
        "none of the session is left; stopped midway, running it again finishes it. Ingesting the same turns again "
        "afterwards stores them anew."))
    async def forget_session(self, info: Info, user_id: str, session_id: str, confirm: bool,
                             memories: SessionMemories = session_cases.SessionMemories.KEEP,  # type: ignore[valid-type]
                             ) -> SessionErasureReceipt:
        ctx = info.context
        receipt = await call(ctx.container.sessions.forget_session, ctx.tenant, user_id, session_id, confirm=confirm,
                             memories=memories)
        return SessionErasureReceipt.of(receipt)
