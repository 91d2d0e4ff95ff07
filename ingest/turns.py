"""Conversation turns as they arrive: the turn input model, speakers, turn positions and JSONL parsing.

Pure: no store, no clock, no model. Content validation (identifiers, text size) is the use-case's
(bmam.validate); this module only reads structure, so a JSONL line that is not an object, lacks a
field or has a field of the wrong type is reported here with its line number and reason.

JSONL format (one turn a line; blank lines are skipped)::

    {"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "我住在成都",
     "at": "2026-11-30T09:00:00Z", "device_id": "phone", "turn": 0}

`at`, `device_id` and `turn` are optional. `at` without a zone offset is read as UTC. A line without
`turn` takes the index after the line before it of the same (user_id, session_id) (that line's own
`turn`, or the index it took), and the session's first line 0: in a file without any `turn`, a line's
index is its position among the session's lines; a line after `"turn": 5` is 6. Every line that names
the user and session counts (a line rejected for another reason too, with its `turn` when that is
readable), so fixing a bad line and ingesting the file again gives every line the same index:
re-running a file changes nothing. Two lines of a session that end up with one index (`turn` 0 after
a line without one, which took 0) are a collision the use-case refuses for the later line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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
    TOOL = "tool"  # what a tool or function the assistant called returned (OpenAI's "tool" / "function" roles)


_SPEAKER_ALIASES: dict[str, Speaker] = {
    "user": Speaker.USER,
    "human": Speaker.USER,
    "assistant": Speaker.ASSISTANT,
    "ai": Speaker.ASSISTANT,
    "bot": Speaker.ASSISTANT,
    "system": Speaker.SYSTEM,
    "developer": Speaker.SYSTEM,  # OpenAI's newer name for the system message
    "tool": Speaker.TOOL,
    "function": Speaker.TOOL,  # OpenAI's older name for a tool's result
}

SPEAKERS = ", ".join(sorted(_SPEAKER_ALIASES))


def parse_speaker(value: str) -> Speaker | None:
    """user / assistant / system / tool (also human, ai, bot, developer, function), any case; None when it is
    none of them."""
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
    # the line's `turn` when it is a readable index, even if the line is bad otherwise (turn positions: the
    # lines after it count on from it, whether or not it is fixed)
    given: int | None = None


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
    given = None
    try:
        if isinstance(obj, dict):
            given = _readable_turn(obj.get("turn"))
            obj = snake_case_fields(obj)
            if isinstance(obj.get("user_id"), str) and isinstance(obj.get("session_id"), str):
                key = (obj["user_id"], obj["session_id"])
        return ParsedLine(line_no, turn_from_object(obj), None, key, given)
    except TurnFormatError as exc:
        return ParsedLine(line_no, None, exc.reason, key, given)


def _readable_turn(value: Any) -> int | None:
    """A JSON `turn` that is an index (a non-negative integer, not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


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


def mixed_times(lines: Sequence[ParsedLine]) -> str | None:
    """Why a file cannot go in when some of its lines give `at` and others do not (None when all or none do; a line
    that does not parse as a turn is not counted, one bad otherwise is: fixed, it would go in without). A turn without
    `at` is stamped with the time it is ingested: beside turns said at their own times, a file replayed later would
    have it said after all of them, fresher than it is and out of its session's order. Without any `at`, every turn
    of the file gets one time and the turn index orders them."""
    timed = [p.line_no for p in lines if p.turn is not None and p.turn.at is not None]
    untimed = [p.line_no for p in lines if p.turn is not None and p.turn.at is None]
    if not timed or not untimed:
        return None
    shown = untimed[:5]
    named = (f"line {shown[0]} gives" if len(untimed) == 1 else
             "lines " + ", ".join(map(str, shown[:-1])) + f" and {shown[-1]} give" if len(untimed) <= 5 else
             "lines " + ", ".join(map(str, shown)) + f" and {len(untimed) - 5} more give")
    return (f"{named} no `at` while line {timed[0]} gives one: a line without `at` is stamped with the time it is "
            "ingested, after every time the file gives; give every line an `at`, or none; nothing was ingested")


def positions(keys: Sequence[tuple[str, str] | None], given: Sequence[int | None]) -> list[int | None]:
    """The turn index of each item of a request or file: the given one, else the one after the item before
    it of the same (user, session) (its given index or the one it took), 0 for the session's first item.
    So [None, None] is [0, 1] and [5, None] is [5, 6]; a turn given an index does not move the unnumbered
    ones before it ([None, 0] is [0, 0], a collision the use-case refuses for the later item). Ids are
    compared trimmed, as validate.identifier keeps them ("s1 " is session "s1"). Every item that names the
    user and session counts, a bad one too, so fixing it keeps the indexes of the others.
    An item that names neither keeps its given index (None without): it cannot be placed, and is bad anyway."""
    after: dict[tuple[str, str], int] = {}  # the index the next unnumbered item of a (user, session) takes
    out: list[int | None] = []
    for key, turn in zip(keys, given, strict=True):
        if key is None:
            out.append(turn)
            continue
        key = (key[0].strip(), key[1].strip())
        index = turn if turn is not None else after.get(key, 0)
        after[key] = index + 1
        out.append(index)
    return out


def placed_turns(lines: Sequence[ParsedLine]) -> list[tuple[ParsedLine, TurnInput]]:
    """The good lines of a file, each with its turn placed (positions: the given index, else the one after
    the line before it of its user and session, bad lines counted): `bmam ingest` and `bmam remote ingest`.
    The ParsedLine keeps the line's own `turn` (None: the line gave none)."""
    placed = positions([p.key for p in lines], [p.turn.turn if p.turn else p.given for p in lines])
    return [(p, replace(p.turn, turn=i)) for p, i in zip(lines, placed, strict=True) if p.turn is not None]


def given_twice(turn: int | None, session: str, *, first: str, first_numbered: bool, numbered: bool) -> str:
    """Why a turn is refused when an earlier one of its session has its index: `first` names the earlier turn
    as the error does ("request index 0", "line 3"), first_numbered / numbered say whether the caller gave
    each of the two that index. When an unnumbered turn is one of them, the index is one the caller did not
    write, so the message says where it came from and how to avoid it."""
    head = f"turn {turn} of session {session!r} is given twice"
    if first_numbered and numbered:
        return f"{head} in this request (first at {first})"
    rule = "an unnumbered turn takes the index after the turn before it in its session, the first 0"
    advice = "give every turn of a session an index, or none"
    if numbered:
        return f"{head}: the unnumbered turn at {first} takes {turn} ({rule}); {advice}"
    holder = f"the turn at {first} gives it" if first_numbered else f"the unnumbered turn at {first} takes it too"
    return f"{head}: this unnumbered turn takes {turn} ({rule}), and {holder}; {advice}"


def clashes(placed: Sequence[tuple[ParsedLine, TurnInput]]) -> dict[int, str]:
    """For placed_turns' lines: line number -> why, for each line placed on the index an earlier line of its
    user and session has (given_twice; `bmam remote ingest`, which sends a file in several requests, so the
    server would see two such lines only when they fall in one request)."""
    seen: dict[tuple[str, str, int | None], ParsedLine] = {}
    out: dict[int, str] = {}
    for p, t in placed:
        key = (t.user_id.strip(), t.session_id.strip(), t.turn)
        first = seen.setdefault(key, p)
        if first is not p:
            out[p.line_no] = given_twice(t.turn, t.session_id.strip(), first=f"line {first.line_no}",
                                         first_numbered=numbered(first), numbered=numbered(p))
    return out


def numbered(p: ParsedLine) -> bool:
    """The line gave its `turn` (placed_turns keeps the parsed turn as read)."""
    return p.turn is not None and p.turn.turn is not None
