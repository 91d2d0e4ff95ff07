"""The named Cypher queries of cypher/inspect/ for people in Neo4j Browser, read with what their leading comments
say (title, description, the :param lines) and the Browser's :params command that sets those parameters."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from graph import cypher_library

INSPECT_FOLDER = "inspect"
_PARAM = re.compile(r"^//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*;?\s*$")


@dataclass(frozen=True, slots=True)
class InspectQuery:
    """One named query of cypher/inspect/: its title and description (its leading comment), the
    :param lines a person runs first in the Browser, and the query itself."""

    name: str  # e.g. "inspect/core_memories"
    title: str
    description: str
    param_lines: tuple[str, ...]
    params: dict[str, Any]
    query: str  # the statement without its leading comment block
    text: str  # the whole file, its comments too (a Browser favourite keeps them)

    @property
    def file_name(self) -> str:
        return self.name.split("/", 1)[1] + ".cypher"

    def with_params(self, values: dict[str, Any]) -> InspectQuery:
        """This query with the :param lines of the given names set to the given values (in its text too, which a
        favourite keeps; a name it has no :param line for is left out), e.g. the tenant and user of `bmam inspect`."""
        if not set(values) & set(self.params):
            return self
        lines = []
        for line in self.text.splitlines():
            m = _PARAM.match(line.strip())
            if m and m.group(1) in values:
                line = f"// :param {m.group(1)} => {cypher_value(values[m.group(1)])}"
            lines.append(line)
        return parse_inspect_query(self.name, "\n".join(lines) + ("\n" if self.text.endswith("\n") else ""))


def cypher_literal(text: str) -> Any:
    """The value of a :param line's right side: a Cypher string, number, boolean, null or list of them."""
    words = {"true": True, "false": False, "null": None}
    stripped = text.strip()
    if stripped in words:
        return words[stripped]
    return ast.literal_eval(stripped)


def cypher_value(value: Any) -> str:
    """A Python value as a Cypher literal (for the Browser's :params command)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_value(v) for v in value) + "]"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def params_command(params: dict[str, Any]) -> str:
    """One Browser command setting every parameter of a query: `:params {tenant: 'default', ...}`."""
    return ":params {" + ", ".join(f"{k}: {cypher_value(v)}" for k, v in params.items()) + "}"


def parse_inspect_query(name: str, text: str) -> InspectQuery:
    """A query file read: the leading comment's first line is the title, the rest the description and the
    `// :param name => value` lines."""
    header: list[str] = []
    body: list[str] = []
    for line in text.splitlines():
        if not body and line.lstrip().startswith("//"):
            header.append(line.strip())
        elif body or line.strip():
            body.append(line)
    param_lines = tuple(m.group(0)[2:].strip() for line in header if (m := _PARAM.match(line)))
    params = {m.group(1): cypher_literal(m.group(2)) for line in header if (m := _PARAM.match(line))}
    prose = [line[2:].strip() for line in header if not _PARAM.match(line)]
    title = prose[0] if prose else name
    description = " ".join(p for p in prose[1:] if p)
    return InspectQuery(name=name, title=title, description=description, param_lines=param_lines,
                        params=params, query="\n".join(body).strip(), text=text)


def inspect_queries(params: dict[str, Any] | None = None) -> list[InspectQuery]:
    """Every query of cypher/inspect/, in name order, its :param values as written or, for the names in params,
    those (`bmam inspect --tenant T --user U`)."""
    queries = [parse_inspect_query(name, cypher_library.statement(name))
               for name in cypher_library.names(INSPECT_FOLDER)]
    return [q.with_params(params) for q in queries] if params else queries
