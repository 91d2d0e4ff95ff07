"""resolvers/plain_fields.py answers exactly as Strawberry's own execution does: the same data and the same
errors at the same paths, for plain leaves and for everything that must go the regular way (resolvers,
arguments, nulls where the type forbids them, values a scalar cannot coerce, aliases, __typename,
fragments, directives, lists, async parents). Pure logic: a small schema of its own, no store."""

from __future__ import annotations

import asyncio
import enum
import json
from datetime import UTC, datetime
from typing import Any

import pytest
import strawberry
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from resolvers.plain_fields import PlainFieldsExecutionContext, plain_leaf


@strawberry.enum
class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@strawberry.type
class Part:
    low: float
    high: float | None


@strawberry.type
class Item:
    id: strawberry.ID
    name: str
    colour: Colour
    when: datetime
    count: int
    note: str | None
    part: Part
    parts: list[Part]

    @strawberry.field
    def shout(self, times: int = 1) -> str:
        return self.name.upper() * times

    @strawberry.field
    def computed(self) -> int:
        return self.count * 2


def _item(i: int, **changes: Any) -> Item:
    values: dict[str, Any] = {
        "id": f"i{i}", "name": f"n{i}", "colour": Colour.RED if i % 2 else Colour.BLUE,
        "when": datetime(2026, 1, 1 + i, tzinfo=UTC), "count": i, "note": None if i % 2 else "x",
        "part": Part(low=i / 3, high=None), "parts": [Part(low=1.0, high=2.0), Part(low=0.5, high=None)],
    }
    values.update(changes)
    return Item(**values)


BROKEN: dict[str, Any] = {}  # what the next query's broken items carry


@strawberry.type
class Query:
    @strawberry.field
    def items(self) -> list[Item]:
        return [_item(i) for i in range(4)]

    @strawberry.field
    async def later(self) -> list[Item]:
        await asyncio.sleep(0)
        return [_item(i) for i in range(2)]

    @strawberry.field
    def broken(self) -> list[Item | None]:
        return [_item(0), _item(1, **BROKEN), _item(2)]


FAST = strawberry.Schema(query=Query, execution_context_class=PlainFieldsExecutionContext)
REGULAR = strawberry.Schema(query=Query, execution_context_class=StrawberryGraphQLCoreExecutionContext)

ALL = "id name colour when count note part { low high } parts { low high __typename } shout(times: 2) computed"


def _both(query: str) -> tuple[Any, Any]:
    def run(schema: strawberry.Schema) -> tuple[Any, list[tuple[str, list[str | int] | None]]]:
        result = asyncio.run(schema.execute(query))
        # as JSON text: the response's key order is part of the answer
        return json.dumps(result.data), [(e.message, e.path) for e in result.errors or []]

    return run(FAST), run(REGULAR)


@pytest.mark.parametrize("query", [
    f"query {{ items {{ {ALL} }} }}",
    f"query {{ later {{ {ALL} }} }}",
    "query { items { a: name b: name id __typename part { x: low } } }",
    "query { items { ...F part { ...P } } } fragment F on Item { name colour } fragment P on Part { high low }",
    "query($no: Boolean = true) { items { name note @skip(if: $no) count @include(if: $no) } }",
    "query { items { parts { high } } later { part { __typename low } } }",
    "query { items { part { low } name shout(times: 1) count computed note } later { computed id } }",  # interleaved
])
def test_the_same_answer_as_strawberrys_own_execution(query: str) -> None:
    fast, regular = _both(query)
    assert fast == regular
    assert fast[0] != "null" and not fast[1]


@pytest.mark.parametrize("broken", [
    {"name": None},  # null where the type forbids it
    {"count": "seven"},  # a value Int cannot coerce
    {"colour": "green"},  # not a member of the enum
    {"part": Part(low=None, high=1.0)},  # type: ignore[arg-type]  # inside an all-leaves object
])
def test_errors_are_the_regular_ways_own_at_the_same_path(broken: dict[str, Any]) -> None:
    BROKEN.clear()
    BROKEN.update(broken)
    try:
        fast, regular = _both("query { broken { id name count colour part { low high } } }")
    finally:
        BROKEN.clear()
    assert fast == regular
    data, errors = json.loads(fast[0]), fast[1]
    assert errors and errors[0][1] is not None and errors[0][1][:2] == ["broken", 1]
    assert data["broken"][1] is None and data["broken"][0] is not None and data["broken"][2] is not None


def test_only_argument_free_resolver_free_leaves_take_the_one_step_way() -> None:
    fields = FAST._schema.type_map["Item"].fields  # type: ignore[attr-defined]
    plain = {name for name, field in fields.items() if plain_leaf(field) is not None}
    assert plain == {"id", "name", "colour", "when", "count", "note"}
