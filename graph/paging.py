"""Keyset cursors: an opaque token for the (created_at, id) of the last item of a page."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime

from graph.errors import BadInput


def encode_cursor(created_at: datetime, item_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), item_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a cursor of ours holds. Anything else is BAD_USER_INPUT "invalid cursor" (field
    after), a forged one included: not base64 or JSON, JSON nested past the parser's depth, not a pair of a
    time and an id, a time without zone or outside years 1 to 9999 once in UTC, an id that is not Unicode
    text (a lone surrogate)."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, item_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(created, str) or not isinstance(item_id, str):
            raise TypeError("not a (time, id) pair")
        at = datetime.fromisoformat(created)
        if at.tzinfo is None:  # never one of ours: a time without zone compares with no stored time
            raise ValueError("a time without zone")
        at.astimezone(UTC)  # OverflowError outside years 1..9999 in UTC: the store cannot compare with it
        item_id.encode("utf-8")  # UnicodeEncodeError for a lone surrogate: the driver cannot send it
    except (ValueError, TypeError, OverflowError, RecursionError, binascii.Error) as exc:
        raise BadInput("invalid cursor", field="after") from exc
    return at, item_id
