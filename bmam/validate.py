"""Input validation shared by every face: bad input is refused here, before anything is written."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from graph.errors import BadInput, LimitExceeded
from graph.model import STORED_TYPES, MemoryType

# In a text: the C0 controls and DEL but tab, line feed and carriage return, the C1 controls, and the
# noncharacters U+FFFE / U+FFFF (XML 1.0 cannot hold them, the exports would break on them, and nobody types them).
_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
# In an id: every control (C0, DEL, C1; tab and newlines too) and the invisible characters that make two
# ids look alike or reorder what is shown around them: zero-width space and direction marks (U+200B,
# U+200E, U+200F), bidi embeddings and overrides (U+202A-U+202E), bidi isolates (U+2066-U+2069) and the
# zero-width no-break space / byte order mark (U+FEFF), and the noncharacters U+FFFE / U+FFFF. Not the
# zero-width (non-)joiners U+200C / U+200D: Persian and Indic names and emoji sequences need them.
_ID_REFUSED = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]")
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
    found = _TEXT_CONTROL.search(value)
    if found:
        raise BadInput(f"{field} must not contain control characters (found U+{ord(found.group()):04X}; "
                       "tab and newlines are fine)", field=field)
    return value.strip()


def identifier(value: str | None, *, field: str) -> str:
    """A caller-chosen id (user, session, device): non-empty, short, no control characters."""
    if value is None or not value.strip():
        raise BadInput(f"{field} is required", field=field)
    if len(value) > MAX_ID_CHARS:
        raise BadInput(f"{field} is longer than {MAX_ID_CHARS} characters", field=field)
    _refuse_invisible(value, field=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadInput(f"{field} is not valid Unicode text", field=field) from exc
    if unicodedata.normalize("NFC", value) != value:
        # "José" written as e + U+0301 would be another user than "José" with é: forgetUser erased nothing of one
        # and said verified
        raise BadInput(f"{field} must be in Unicode NFC form (é as one character, not e + U+0301)", field=field)
    return value.strip()


def optional_identifier(value: str | None, *, field: str) -> str | None:
    """An id the caller may leave out (a session, a device): None when left out; given, an identifier. Given empty
    or blank it is refused, not taken as none, and the message says to leave it out ("is required" misled: it is
    not)."""
    if value is None:
        return None
    if not value.strip():
        raise BadInput(f"{field} must not be empty; leave it out for none", field=field)
    return identifier(value, field=field)


def name(value: str | None, *, field: str, max_bytes: int) -> str:
    """A name the graph keeps as a node (a triple's subject or object entity): text, and none of the characters an
    id refuses ("te\u202ea" showed reversed, "I\u200b" looked like the user and was another entity)."""
    checked = text(value, field=field, max_bytes=max_bytes)
    _refuse_invisible(checked, field=field)
    return checked


def _refuse_invisible(value: str, *, field: str) -> None:
    found = _ID_REFUSED.search(value)
    if found:
        raise BadInput(f"{field} must not contain control or invisible formatting characters "
                       f"(found U+{ord(found.group()):04X})", field=field)


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
    return float(value) + 0.0  # -0.0 + 0.0 is 0.0: a strength of -0.0 is stored and answered as 0.0


def moment(value: datetime, *, field: str) -> datetime:
    """A time input (ingest's at, recall's asOf, ...) in UTC, as it is stored; a time without zone is taken
    as UTC. Refused when it leaves years 1 to 9999 once in UTC (0001-01-01T00:00:00+05:00 is year 0): Python,
    the driver and Neo4j's datetime() cannot hold it."""
    try:
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    except OverflowError as exc:
        raise BadInput(f"{field} is out of range: years 1 to 9999 in UTC", field=field) from exc


def past_moment(value: datetime, *, field: str, now: datetime, skew: timedelta) -> datetime:
    """moment(), for a time that says when something happened (a turn's at, which becomes its memories'
    created_at and last_mentioned_at): refused when later than now plus the allowed clock skew. A time in the
    future would never go stale, never decay and be evicted last (a client whose clock runs ahead, or a time
    in milliseconds read as seconds)."""
    at = moment(value, field=field)
    latest = now.astimezone(UTC) + skew
    if at > latest:
        raise BadInput(f"{field} {at.isoformat()} is in the future: the latest accepted is {latest.isoformat()} "
                       f"(the server's clock plus {skew.total_seconds():g} s of allowed clock skew)", field=field)
    return at


def time_zone(value: str, *, field: str) -> ZoneInfo:
    """An IANA time zone name ("Europe/Berlin", "Asia/Shanghai", "UTC"), the user's days are counted in."""
    name = value.strip()
    # ZoneInfo reads a file named by the key: a path ("../x"), a control or a very long name is no zone
    if not name or len(name) > 64 or not re.fullmatch(r"[A-Za-z0-9_+\-]+(?:/[A-Za-z0-9_+\-]+)*", name):
        raise BadInput(f"{field} must be an IANA time zone name such as Europe/Berlin, got {value!r}", field=field)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise BadInput(f"{field}: unknown time zone {name!r} (an IANA name such as Europe/Berlin)",
                       field=field) from exc


def page_size(value: int, *, maximum: int, field: str = "first") -> int:
    """A page length or a result count (`field` names the argument in the error: first, k, limit)."""
    if value < 1:
        raise BadInput(f"{field} must be at least 1", field=field)
    if value > maximum:
        raise LimitExceeded(f"{field} must be at most {maximum}", field=field)
    return value
