"""Domain errors shared by every layer; the faces map each to a code (GraphQL) or an exit status (CLI)."""

from __future__ import annotations


class BmamError(Exception):
    """Base of every error a caller may see. `code` is the GraphQL extensions code."""

    code = "INTERNAL"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class BadInput(BmamError):
    code = "BAD_USER_INPUT"


class NotFound(BmamError):
    code = "NOT_FOUND"


class Conflict(BmamError):
    code = "CONFLICT"


class LimitExceeded(BmamError):
    code = "LIMIT_EXCEEDED"


class Unauthenticated(BmamError):
    code = "UNAUTHENTICATED"


class Forbidden(BmamError):
    """The caller is known but may not do this (an app key managing the tenant's keys)."""

    code = "FORBIDDEN"


class StoreUnavailable(BmamError):
    """Neo4j cannot be reached (down, restarting): the same request may succeed later."""

    code = "UNAVAILABLE"


class StoreTimeout(StoreUnavailable):
    """The request's transaction ran past its time limit and Neo4j stopped it: the store is up, and the same
    request would only time out again (a smaller one may not). A StoreUnavailable still, so the work that goes
    on without the store after a commit (hooks left pending, a read-back) goes on without it here too; the
    faces tell it apart by its code."""

    code = "TIMEOUT"
