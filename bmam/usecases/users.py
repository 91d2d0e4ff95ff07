"""Use-cases of the directory an app reads: its users (with their memory counts and last activity) and a user's
sessions (with their turn counts and spans), each a page at a time with keyset cursors (graph/users.py)."""

from __future__ import annotations

from bmam import validate
from graph.model import Scope
from graph.paging import Paged
from graph.users import SessionSummary, UserDirectory, UserSummary


class UserUseCases:
    def __init__(self, directory: UserDirectory, *, max_page_size: int) -> None:
        self._directory = directory
        self._max_page = max_page_size

    def users(self, tenant: str, *, first: int = 20, after: str | None = None) -> Paged[UserSummary]:
        """`first` of the tenant's users in id order, after the cursor `after` (a page's next_cursor, or any
        item's cursor)."""
        limit = validate.page_size(first, maximum=self._max_page)
        return self._directory.users(tenant, limit=limit, after=after)

    def sessions(self, tenant: str, user_id: str, *, first: int = 20,
                 after: str | None = None) -> Paged[SessionSummary]:
        """`first` of the user's sessions, the newest started first, after the cursor `after`. A user with none
        (or unknown) has an empty page, as `memories` answers."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        limit = validate.page_size(first, maximum=self._max_page)
        return self._directory.sessions(scope, limit=limit, after=after)
