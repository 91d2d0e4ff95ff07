"""Keyset cursors: an opaque token for the (created_at, id) of the last item of a page."""

from __future__ import annotations

import base64
import json
from datetime import datetime

from graph.errors import BadInput


def encode_cursor(created_at: datetime, item_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), item_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, item_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
        at = datetime.fromisoformat(created)
    except (ValueError, TypeError) as exc:
        raise BadInput("invalid cursor", field="after") from exc
    if at.tzinfo is None:  # never one of ours: a time without zone compares with no stored time
        raise BadInput("invalid cursor", field="after")
    return at, str(item_id)
