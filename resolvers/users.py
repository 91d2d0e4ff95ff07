"""GraphQL of the directory an app reads: its users and a user's sessions, a page at a time."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graph import users as user_model
from resolvers.connections import Connection, connection
from resolvers.context import Info, call


@strawberry.type(description="A user of the caller's app.")
class User:
    user_id: str
    memory_count: int = strawberry.field(description=(
        "The memories the user holds: live ones and superseded history (memories(includeHistory: true) lists "
        "them all; tierUsage counts the live ones). Read from the user's node, never by counting memories."))
    last_active_at: datetime | None = strawberry.field(description=(
        "When the user's newest memory was stored or newest turn was said; null when it has neither."))

    @classmethod
    def of(cls, u: user_model.UserSummary) -> User:
        return cls(user_id=u.user_id, memory_count=u.memory_count, last_active_at=u.last_active_at)


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
