"""A tenant's users and a user's sessions, a page at a time (cypher/user/list, cypher/session/list): what an app
lists to find its people and their conversations. Each row is read from counts and index ends, never from a
scan of the user's memories or turns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from graph.model import Scope, scope_params
from graph.paging import Paged, decode_id_cursor, encode_cursor, encode_id_cursor, keyset_params, paged
from graph.records import to_datetime
from graph.store import GraphStore

# A session without a recorded start sorts as the oldest (cypher/session/list).
OLDEST = datetime(1, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class UserSummary:
    """A user of a tenant: how many live memories it holds (what `memories` lists without history), how many
    superseded ones it keeps as history, and when it was last active (its newest memory or turn; None when it has
    neither)."""

    user_id: str
    memory_count: int
    history_count: int
    last_active_at: datetime | None


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A session of a user: its turns (episodes) and the span they were said in (None where the store has no
    time for it: a session imported from a file that gave none). `since` is its place in the listing."""

    session_id: str
    turn_count: int
    first_turn_at: datetime | None
    last_turn_at: datetime | None
    since: datetime


def _latest(*times: datetime | None) -> datetime | None:
    known = [t for t in times if t is not None]
    return max(known) if known else None


def user_cursor(u: UserSummary) -> str:
    return encode_id_cursor(u.user_id)


def session_cursor(s: SessionSummary) -> str:
    return encode_cursor(s.since, s.session_id)


class UserDirectory:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def users(self, tenant: str, *, limit: int, after: str | None = None) -> Paged[UserSummary]:
        """The tenant's users in id order, `limit` of them after the cursor `after`."""
        rows = self._store.read("user/list", {"tenant": tenant, "after": decode_id_cursor(after) if after else "",
                                              "limit": limit + 1})
        found = [UserSummary(user_id=r["user_id"], memory_count=int(r["memories"]), history_count=int(r["history"]),
                             last_active_at=_latest(to_datetime(r["memory_at"]), to_datetime(r["episode_at"])))
                 for r in rows]
        return paged(found, limit, user_cursor)

    def sessions(self, scope: Scope, *, limit: int, after: str | None = None) -> Paged[SessionSummary]:
        """The user's sessions, the newest started first, `limit` of them after the cursor `after`."""
        rows = self._store.read("session/list", {**scope_params(scope), **keyset_params(after), "oldest": OLDEST,
                                                 "limit": limit + 1})
        found = []
        for r in rows:
            since = to_datetime(r["since"])
            assert since is not None  # coalesced with OLDEST
            found.append(SessionSummary(session_id=r["session_id"], turn_count=int(r["turns"]),
                                        first_turn_at=to_datetime(r["first_at"]),
                                        last_turn_at=to_datetime(r["last_at"]), since=since))
        return paged(found, limit, session_cursor)
