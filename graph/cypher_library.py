"""The named Cypher statements: loads cypher/<name>.cypher and splices only allow-listed literals."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import cypher as cypher_package
from graph.model import MemoryType

CYPHER_DIR = Path(cypher_package.__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")

_TYPE_LABELS = frozenset(t.label for t in MemoryType)

# Every label bmam stamps with a user: forgetUser sweeps each by its own statement (graph/erasure.py), then
# re-queries; a label-free sweep follows only when that finds something (a label a deployment adds).
ERASURE_LABELS: tuple[str, ...] = ("Memory", "Entity", "Episode", "Session", "User", "Conflict", "ChangeEntry",
                                   "Changeset", "SessionRecall")


def _int_in(low: int, high: int) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        return value.isdigit() and low <= int(value) <= high

    return check


# What may be spliced into statement text (a label, a depth, a dimension): nothing else, ever.
# Every value that comes from a request is a $parameter instead.
SPLICE_ALLOW_LIST: Mapping[str, Callable[[str], object]] = {
    "type_label": _TYPE_LABELS.__contains__,
    "depth": _int_in(1, 5),
    "dimensions": _int_in(1, 4096),
    "vector_index": re.compile(r"^memory_embedding_[0-9]{1,4}$").match,
    # forgetUser's sweep per label
    "label": frozenset(ERASURE_LABELS).__contains__,
    # maintenance --full: drop a FAILED index or constraint by name so the schema re-creates it.
    "index_name": re.compile(r"^[a-z][a-z0-9_]{0,99}$").match,
    # knowledge out (graph/knowledge_io.py): the node kinds an export pages through and an import writes.
    "node_label": frozenset({"Memory", "Entity", "Episode", "Session", "Conflict"}).__contains__,
    "start_label": frozenset({"Memory", "Entity", "Episode", "Session", "Conflict"}).__contains__,
    "end_label": frozenset({"Memory", "Entity", "Episode", "Session", "Conflict"}).__contains__,
}


class CypherError(ValueError):
    """A statement name or splice that is not allowed (a programming error, never user input)."""


@cache
def _read(name: str) -> str:
    if not _NAME.match(name):
        raise CypherError(f"bad statement name {name!r}")
    path = CYPHER_DIR / f"{name}.cypher"
    if not path.is_file():
        raise CypherError(f"no statement {name!r} in {CYPHER_DIR}")
    return path.read_text(encoding="utf-8")


_INCLUDE = re.compile(r"\{\{>\s*([^}]*?)\s*\}\}")  # any name: _read refuses all but statement names


@cache
def _with_includes(name: str, seen: tuple[str, ...] = ()) -> str:
    """cypher/<name>.cypher with each {{> other/name}} replaced by that statement's text (one statement
    run inside another, e.g. as a CALL subquery, without a second copy of it to keep in step)."""
    if name in seen:
        raise CypherError(f"{name}: includes itself ({' -> '.join((*seen, name))})")
    return _INCLUDE.sub(lambda m: _with_includes(m.group(1), (*seen, name)), _read(name))


def runnable(name: str, **splices: object) -> str:
    """statement() as sent to Neo4j: its comment lines dropped, headed by its name (for a query log or SHOW
    TRANSACTIONS). Neo4j reads a statement's whole text on every run, plan cached or not: the 18 KB of
    recall/rows_checked, 42 % of it comments, cost 0.3 ms a run more than its code alone."""
    return _filled(name, _code(name), splices)


@cache
def _code(name: str) -> str:
    code = "\n".join(line for line in _code_lines(_with_includes(name)) if line.strip())
    return f"// {name}\n{code}\n"


def _code_lines(text: str) -> list[str]:
    """The lines of a statement that are not comment lines (a `//` comment after code stays)."""
    return [line for line in text.splitlines() if not line.lstrip().startswith("//")]


def statement(name: str, **splices: object) -> str:
    """The text of cypher/<name>.cypher, its {{> includes}} expanded, with its {{placeholders}} filled
    from the allow-list."""
    return _filled(name, _with_includes(name), splices)


def _filled(name: str, text: str, splices: dict[str, object]) -> str:
    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in splices:
            raise CypherError(f"{name}: placeholder {key} not given")
        value = str(splices[key])
        check = SPLICE_ALLOW_LIST.get(key)
        if check is None or not check(value):
            raise CypherError(f"{name}: {key}={value!r} is not in the allow-list")
        return value

    return _PLACEHOLDER.sub(fill, text)


def statements(name: str, **splices: object) -> list[str]:
    """A file holding several statements separated by ';' (schema files), comments dropped."""
    text = statement(name, **splices)
    body = "\n".join(_code_lines(text))
    return [part.strip() for part in body.split(";") if part.strip()]


def names(folder: str) -> list[str]:
    """Statement names in a folder of cypher/, sorted (schema files apply in this order)."""
    return sorted(f"{folder}/{p.stem}" for p in (CYPHER_DIR / folder).glob("*.cypher"))
