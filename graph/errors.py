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
    """Neo4j cannot be reached (down, restarting, or the transaction timed out)."""

    code = "UNAVAILABLE"
