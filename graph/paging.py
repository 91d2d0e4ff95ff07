"""Keyset cursors: an opaque token for the sort key of the last item of a page: (created_at, id) of a memory,
likewise (time, id) of a conflict, a history entry or a session, the id alone of a user, and the turn number
of a session's turn (Paged: a page of any of them)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from graph.errors import BadInput

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Paged(Generic[T]):
    """One page of a keyset-paginated listing: its items, each one's cursor (the `after` that starts the page
    after it), and `next_cursor`, the last one's when another page follows, else None."""

    items: list[T]
    cursors: list[str]
    next_cursor: str | None


def paged(rows: Sequence[T], limit: int, cursor_of: Callable[[T], str]) -> Paged[T]:
    """The page of `limit` items out of `rows`, read with LIMIT limit + 1: one more tells whether a next page
    exists."""
    items = list(rows[:limit])
    cursors = [cursor_of(item) for item in items]
    return Paged(items=items, cursors=cursors, next_cursor=cursors[-1] if len(rows) > limit and cursors else None)


def _encode(parts: list[str | int]) -> str:
    raw = json.dumps(parts, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> list[Any]:
    """The JSON array a cursor holds (ValueError, TypeError, binascii.Error, RecursionError when it holds none)."""
    padded = cursor + "=" * (-len(cursor) % 4)
    parts = json.loads(base64.urlsafe_b64decode(padded.encode()))
    if not isinstance(parts, list):
        raise TypeError("not an array")
    return parts


def _text(value: object) -> str:
    """An id out of a cursor: Unicode text the driver can send (a lone surrogate is UnicodeEncodeError)."""
    if not isinstance(value, str):
        raise TypeError("not an id")
    value.encode("utf-8")
    return value


def encode_cursor(created_at: datetime, item_id: str) -> str:
    return _encode([created_at.isoformat(), item_id])


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a cursor of ours holds. Anything else is BAD_USER_INPUT "invalid cursor" (field
    after), a forged one included: not base64 or JSON, JSON nested past the parser's depth, not a pair of a
    time and an id, a time without zone or outside years 1 to 9999 once in UTC, an id that is not Unicode
    text (a lone surrogate)."""
    try:
        created, item_id = _decode(cursor)
        if not isinstance(created, str):
            raise TypeError("not a (time, id) pair")
        at = datetime.fromisoformat(created)
        if at.tzinfo is None:  # never one of ours: a time without zone compares with no stored time
            raise ValueError("a time without zone")
        at.astimezone(UTC)  # OverflowError outside years 1..9999 in UTC: the store cannot compare with it
        return at, _text(item_id)
    except (ValueError, TypeError, OverflowError, RecursionError, binascii.Error) as exc:
        raise BadInput("invalid cursor", field="after") from exc


def keyset_params(after: str | None) -> dict[str, datetime | str | None]:
    """A (time, id) cursor as the listing statements take it: $after_at and $after_id, both null for the first
    page (no cursor, or an empty one, as `memories` takes it)."""
    at, item_id = decode_cursor(after) if after else (None, None)
    return {"after_at": at, "after_id": item_id}


def encode_id_cursor(item_id: str) -> str:
    """The cursor of a listing ordered by an id alone (a tenant's users)."""
    return _encode([item_id])


def decode_id_cursor(cursor: str) -> str:
    """The id an id cursor holds; anything else (a (time, id) cursor too) is BAD_USER_INPUT "invalid cursor"."""
    try:
        [item_id] = _decode(cursor)
        return _text(item_id)
    except (ValueError, TypeError, RecursionError, binascii.Error) as exc:
        raise BadInput("invalid cursor", field="after") from exc


# Turn numbers the store can compare: Neo4j's integers are 64-bit (a larger one fails the statement, not the cursor).
_INT64 = range(-(2**63), 2**63)


def encode_turn_cursor(turn: int) -> str:
    """The cursor of a listing ordered by turn number (a session's turns)."""
    return _encode([turn])


def decode_turn_cursor(cursor: str) -> int:
    """The turn number a turn cursor holds; anything else (an id or a (time, id) cursor too) is BAD_USER_INPUT
    "invalid cursor"."""
    try:
        [turn] = _decode(cursor)
        if not isinstance(turn, int) or isinstance(turn, bool) or turn not in _INT64:
            raise TypeError("not a turn number")
        return turn
    except (ValueError, TypeError, RecursionError, binascii.Error) as exc:
        raise BadInput("invalid cursor", field="after") from exc
