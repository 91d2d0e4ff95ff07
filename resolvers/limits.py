"""Query limits checked on the parsed document before validation runs (so an expensive document never
reaches the validators): depth, aliases and field selections, all counted after fragment expansion.

- depth: nested field levels, a root field being 1 (`{ memory { id } }` is 2); at most 10.
- aliases: every aliased field, counted again each time its fragment is spread; at most 15.
- selections: fields after fragment expansion; at most 1000.
Introspection fields (`__schema`, `__type`, `__typename`) are not counted: introspection is off in
production and its standard query is deeper than any data query.
Each fragment is measured once (memoised), so fragments that multiply each other cost linear time.
Tokens (at most 5,000) are limited by the parser (strawberry's MaxTokensLimiter).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)
from strawberry.extensions import SchemaExtension

_CAP = 1 << 40  # counts are capped (fragments can multiply them exponentially)


@dataclass(frozen=True, slots=True)
class Cost:
    depth: int = 0
    aliases: int = 0
    selections: int = 0


@dataclass(frozen=True, slots=True)
class Limits:
    max_depth: int = 10
    max_aliases: int = 15
    max_selections: int = 1000


class _Measure:
    def __init__(self, fragments: Mapping[str, FragmentDefinitionNode]) -> None:
        self.fragments = fragments
        self.memo: dict[str, Cost] = {}

    def selection_set(self, node: SelectionSetNode | None, stack: frozenset[str]) -> Cost:
        if node is None:
            return Cost()
        depth = aliases = selections = 0
        for selection in node.selections:
            if isinstance(selection, FieldNode):
                if selection.name.value.startswith("__"):
                    continue
                sub = self.selection_set(selection.selection_set, stack)
                depth = max(depth, 1 + sub.depth)
                aliases += (1 if selection.alias else 0) + sub.aliases
                selections += 1 + sub.selections
            else:
                if isinstance(selection, InlineFragmentNode):
                    sub = self.selection_set(selection.selection_set, stack)
                elif isinstance(selection, FragmentSpreadNode):
                    sub = self.fragment(selection.name.value, stack)
                else:  # pragma: no cover - graphql-core has no other selection kind
                    continue
                depth = max(depth, sub.depth)
                aliases += sub.aliases
                selections += sub.selections
        return Cost(min(depth, _CAP), min(aliases, _CAP), min(selections, _CAP))

    def fragment(self, name: str, stack: frozenset[str]) -> Cost:
        if name in self.memo:
            return self.memo[name]
        definition = self.fragments.get(name)
        if definition is None or name in stack:  # unknown or cyclic: the validators report it
            return Cost()
        cost = self.selection_set(definition.selection_set, stack | {name})
        self.memo[name] = cost
        return cost


def measure(document: DocumentNode) -> Cost:
    """The worst cost over the document's operations."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    m = _Measure(fragments)
    worst = Cost()
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            c = m.selection_set(definition.selection_set, frozenset())
            worst = Cost(max(worst.depth, c.depth), max(worst.aliases, c.aliases),
                         max(worst.selections, c.selections))
    return worst


def violations(document: DocumentNode, limits: Limits) -> list[GraphQLError]:
    cost = measure(document)
    found: list[tuple[str, int, int]] = [
        ("depth", cost.depth, limits.max_depth),
        ("aliases", cost.aliases, limits.max_aliases),
        ("selections", cost.selections, limits.max_selections),
    ]
    return [
        GraphQLError(
            f"query {what} is {value if value < _CAP else 'unbounded'}; the limit is {limit}",
            extensions={"code": "LIMIT_EXCEEDED", "limit": what, "max": limit},
        )
        for what, value, limit in found
        if value > limit
    ]


class QueryLimits(SchemaExtension):
    """Refuses an over-limit document with LIMIT_EXCEEDED before the (costlier) validation rules run."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def on_validate(self) -> Iterator[None]:
        document = self.execution_context.graphql_document
        if document is not None and self.execution_context.pre_execution_errors is None:
            errors = violations(document, self.limits)
            if errors:
                # Setting them here makes strawberry skip the validation rules entirely.
                self.execution_context.pre_execution_errors = errors
        yield
