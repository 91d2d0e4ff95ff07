"""Conversation turns as they arrive: the turn input model, speakers, turn positions and JSONL parsing.

Pure: no store, no clock, no model. Content validation (identifiers, text size) is the use-case's
(bmam.validate); this module only reads structure, so a JSONL line that is not an object, lacks a
field or has a field of the wrong type is reported here with its line number and reason.

JSONL format (one turn a line; blank lines are skipped)::

    {"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "我住在成都",
     "at": "2026-11-30T09:00:00Z", "device_id": "phone", "turn": 0}

`at`, `device_id` and `turn` are optional. Without `turn`, a line's turn index is its position among
the file's lines of the same (user_id, session_id), counting from 0 and counting every line that
names that user and session (even a line rejected for another reason), so fixing a bad line and
ingesting the file again gives every line the same index: re-running a file changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any


class Speaker(StrEnum):
    """Who said a turn. Only the user's turns become memories; the others are episodes only."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


_SPEAKER_ALIASES: dict[str, Speaker] = {
    "user": Speaker.USER,
    "human": Speaker.USER,
    "assistant": Speaker.ASSISTANT,
    "ai": Speaker.ASSISTANT,
    "bot": Speaker.ASSISTANT,
    "system": Speaker.SYSTEM,
}

SPEAKERS = ", ".join(sorted(_SPEAKER_ALIASES))


def parse_speaker(value: str) -> Speaker | None:
    """user / assistant / system (also human, ai, bot), any case; None when it is none of them."""
    return _SPEAKER_ALIASES.get(value.strip().lower()) if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class TurnInput:
    """One turn as given by a caller (GraphQL, JSONL): structure checked, content not yet validated."""

    user_id: str
    session_id: str
    speaker: str
    text: str
    at: datetime | None = None
    device_id: str | None = None
    turn: int | None = None


class TurnFormatError(ValueError):
    """A turn whose structure is wrong (not JSON, not an object, a missing or mistyped field)."""

    def __init__(self, reason: str, *, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.field = field


REQUIRED_FIELDS: tuple[str, ...] = ("user_id", "session_id", "speaker", "text")
OPTIONAL_FIELDS: tuple[str, ...] = ("at", "device_id", "turn")


def parse_at(value: Any) -> datetime:
    """An ISO 8601 time ("2026-11-30T09:00:00Z", "+08:00" offsets); a time without offset is UTC."""
    if not isinstance(value, str) or not value.strip():
        raise TurnFormatError("at must be an ISO 8601 time string", field="at")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise TurnFormatError(f"at is not an ISO 8601 time: {value!r}", field="at") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# The GraphQL API's spelling of the same fields (TurnInput there): a file written by an app that speaks
# GraphQL, or copied from the README's mutation, is read the same way.
CAMEL_CASE_FIELDS: dict[str, str] = {"userId": "user_id", "sessionId": "session_id", "deviceId": "device_id"}


def snake_case_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """obj with userId / sessionId / deviceId read as user_id / session_id / device_id; TurnFormatError when a
    line gives one field both ways with different values."""
    if not any(camel in obj for camel in CAMEL_CASE_FIELDS):
        return obj
    out = dict(obj)
    for camel, snake in CAMEL_CASE_FIELDS.items():
        if camel not in out:
            continue
        value = out.pop(camel)
        if snake in out and out[snake] != value:
            raise TurnFormatError(f"fields {snake!r} and {camel!r} differ", field=snake)
        out[snake] = value
    return out


def turn_from_object(obj: Any) -> TurnInput:
    """A TurnInput from a decoded JSON value, or TurnFormatError saying what is wrong."""
    if not isinstance(obj, dict):
        raise TurnFormatError("a line must be a JSON object")
    obj = snake_case_fields(obj)
    for name in REQUIRED_FIELDS:
        if name not in obj or obj[name] is None:
            raise TurnFormatError(f"missing field {name!r}", field=name)
        if not isinstance(obj[name], str):
            raise TurnFormatError(f"field {name!r} must be a string", field=name)
    device = obj.get("device_id")
    if device is not None and not isinstance(device, str):
        raise TurnFormatError("field 'device_id' must be a string", field="device_id")
    turn = obj.get("turn")
    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn < 0):
        raise TurnFormatError("field 'turn' must be a non-negative integer", field="turn")
    at = parse_at(obj["at"]) if obj.get("at") is not None else None
    return TurnInput(
        user_id=obj["user_id"], session_id=obj["session_id"], speaker=obj["speaker"], text=obj["text"],
        at=at, device_id=device, turn=turn,
    )


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """One non-blank line of a JSONL file: a turn, or the reason it is not one."""

    line_no: int  # 1-based
    turn: TurnInput | None
    error: str | None = None
    # (user_id, session_id) when the line names them, even if it is bad otherwise (turn positions)
    key: tuple[str, str] | None = None


def parse_line(line: str, line_no: int) -> ParsedLine:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return ParsedLine(line_no, None, f"malformed JSON: {exc.msg} (column {exc.colno})")
    except RecursionError:  # [[[[... deeper than the parser goes
        return ParsedLine(line_no, None, "JSON nested too deeply")
    except ValueError as exc:  # e.g. an integer of more than 4300 digits (Python's int conversion limit)
        return ParsedLine(line_no, None, f"JSON value out of range: {str(exc).split(';')[0][:120]}")
    key = None
    try:
        if isinstance(obj, dict):
            obj = snake_case_fields(obj)
            if isinstance(obj.get("user_id"), str) and isinstance(obj.get("session_id"), str):
                key = (obj["user_id"], obj["session_id"])
        return ParsedLine(line_no, turn_from_object(obj), None, key)
    except TurnFormatError as exc:
        return ParsedLine(line_no, None, exc.reason, key)


def parse_lines(lines: Iterable[str]) -> Iterator[ParsedLine]:
    """Parse JSONL text lines; blank lines are skipped (line numbers still count them)."""
    for no, line in enumerate(lines, start=1):
        if line.strip():
            yield parse_line(line, no)


def read_jsonl(path: str | Path) -> list[ParsedLine]:
    """Every non-blank line of a UTF-8 JSONL file (a line that is not UTF-8 is reported, not fatal)."""
    out: list[ParsedLine] = []
    with Path(path).open("rb") as fh:
        for no, raw in enumerate(fh, start=1):
            try:
                # utf-8-sig on the first line: a file saved with a byte order mark (Windows Notepad) is UTF-8
                line = raw.decode("utf-8-sig" if no == 1 else "utf-8")
            except UnicodeDecodeError:
                out.append(ParsedLine(no, None, "line is not UTF-8 text"))
                continue
            if line.strip():
                out.append(parse_line(line, no))
    return out


def positions(keys: Sequence[tuple[str, str] | None], given: Sequence[int | None]) -> list[int | None]:
    """The turn index of each item of a request or file: the given one, else its position among the
    items of the same (user, session) (ids compared trimmed), counting every item that names that user and
    session.
    None for an item that names neither (it cannot be placed, and is bad anyway)."""
    seen: dict[tuple[str, str], int] = {}
    out: list[int | None] = []
    for key, turn in zip(keys, given, strict=True):
        if key is None:
            out.append(turn)
            continue
        key = (key[0].strip(), key[1].strip())  # as validate.identifier keeps them: "s1 " is session "s1"
        position = seen.get(key, 0)
        seen[key] = position + 1
        out.append(turn if turn is not None else position)
    return out



def placed_turns(lines: Sequence[ParsedLine]) -> list[tuple[ParsedLine, TurnInput]]:
    """The good lines of a file, each with its turn placed (positions: the given index, else its place among
    the file's lines of its user and session, bad lines counted): `bmam ingest` and `bmam remote ingest`."""
    placed = positions([p.key for p in lines], [p.turn.turn if p.turn else None for p in lines])
    return [(p, replace(p.turn, turn=i)) for p, i in zip(lines, placed, strict=True) if p.turn is not None]
