"""Input validation shared by every face: bad input is refused here, before anything is written."""

from __future__ import annotations

import re

from graph.errors import BadInput, LimitExceeded
from graph.model import STORED_TYPES, MemoryType

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_ID_CHARS = 256


def text(value: str | None, *, field: str, max_bytes: int) -> str:
    """Non-empty text within the byte limit; surrounding whitespace trimmed, content kept verbatim."""
    if value is None or not value.strip():
        raise BadInput(f"{field} must not be empty", field=field)
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:  # lone surrogates cannot be stored as UTF-8
        raise BadInput(f"{field} is not valid Unicode text", field=field) from exc
    if size > max_bytes:
        raise LimitExceeded(f"{field} is {size} bytes; the limit is {max_bytes}", field=field)
    if "\x00" in value:
        raise BadInput(f"{field} must not contain NUL characters", field=field)
    return value.strip()


def identifier(value: str | None, *, field: str) -> str:
    """A caller-chosen id (user, session, device): non-empty, short, no control characters."""
    if value is None or not value.strip():
        raise BadInput(f"{field} is required", field=field)
    if len(value) > MAX_ID_CHARS:
        raise BadInput(f"{field} is longer than {MAX_ID_CHARS} characters", field=field)
    if _CONTROL.search(value):
        raise BadInput(f"{field} must not contain control characters", field=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadInput(f"{field} is not valid Unicode text", field=field) from exc
    return value.strip()


def memory_type(value: str | MemoryType) -> MemoryType:
    try:
        parsed = MemoryType(str(value).upper())
    except ValueError as exc:
        choices = ", ".join(t.value for t in STORED_TYPES)
        raise BadInput(f"unknown memory type {value!r}; one of {choices}", field="type") from exc
    if parsed is MemoryType.WORKING:
        raise BadInput("WORKING memory is per session and is not stored; use ingestTurn", field="type")
    return parsed


def unit_interval(value: float, *, field: str) -> float:
    if not (0.0 <= value <= 1.0) or value != value:  # value != value catches NaN
        raise BadInput(f"{field} must be between 0 and 1", field=field)
    return float(value)


def page_size(value: int, *, maximum: int, field: str = "first") -> int:
    """A page length or a result count (`field` names the argument in the error: first, k, limit)."""
    if value < 1:
        raise BadInput(f"{field} must be at least 1", field=field)
    if value > maximum:
        raise LimitExceeded(f"{field} must be at most {maximum}", field=field)
    return value
