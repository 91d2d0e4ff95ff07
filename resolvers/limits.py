"""Query limits checked on the parsed document before validation runs (so an expensive document never
reaches the validators): depth, aliases and field selections, all counted after fragment expansion, and
the cost of its page sizes.

- depth: nested field levels, a root field being 1 (`{ memory { id } }` is 2); at most 10.
- aliases: every aliased field, counted again each time its fragment is spread; at most 15.
- selections: fields after fragment expansion; at most 1000.
- cost: how many objects the page sizes let the query build. A field with a size argument (`first`,
  `limit`, `k` or `n`: a literal, a variable, or the default when omitted) costs its size times (1 + the
  cost of its selections); any other field costs what its selections cost. So each list field adds the
  product of the sizes along its path, and the document costs their sum (aliases and fragment spreads
  each count again); at most 50,000. A size above the page-size limit counts as that limit (the field
  refuses it and builds nothing). The cost depends on the variables, so a kept document (resolvers/documents.py)
  with an Int variable is measured again on every request.
Introspection fields (`__schema`, `__type`, `__typename`) are not counted but for their aliases: introspection is
off in production and its standard query is deeper than any data query (and aliases none).
Each fragment is measured once (memoised), so fragments that multiply each other cost linear time.
Tokens (at most 5,000) are limited by the parser (strawberry's MaxTokensLimiter).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FloatValueNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLArgument,
    GraphQLError,
    GraphQLField,
    GraphQLInt,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListTypeNode,
    NamedTypeNode,
    NonNullTypeNode,
    NullValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    TypeNode,
    Undefined,
    ValueNode,
    VariableNode,
    get_named_type,
)
from strawberry.extensions import SchemaExtension

_CAP = 1 << 40  # counts are capped (fragments can multiply them exponentially)
_INT_DIGITS = 10  # the digits of the largest GraphQL Int (2^31 - 1): a longer literal is no Int
SIZE_ARGUMENTS = ("first", "limit", "k", "n")  # an Int argument of one of these names sizes its field's list
# The sizes recall (k), workingMemory (n) and relatedSearch (limit) use when not given: settings
# recall.default_k, ingest.working_memory_turns and recall.related_limit (their defaults here;
# resolvers/app.py passes the configured ones).
NULL_SIZES: Mapping[str, int] = {"Query.recall": 5, "Query.workingMemory": 5, "Query.relatedSearch": 20}


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
    max_cost: int = 50_000
    # Sizes above this are refused by their field (validate.page_size), so they count as this.
    max_page_size: int = 100
    # The size of a field whose size argument is null (omitted, no schema default), by "Type.field": the
    # server's own default (recall's k, workingMemory's n, relatedSearch's limit). A field not listed counts
    # max_page_size.
    null_sizes: Mapping[str, int] = field(default_factory=lambda: dict(NULL_SIZES))


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
                    # not measured inside, but an alias of one counts: 100 aliased __schema took 12 s each and
                    # held the event loop (the standard introspection query aliases none)
                    aliases += 1 if selection.alias else 0
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


class _Unset:
    pass


_UNSET = _Unset()  # an argument (or variable) not given at all: the argument's default applies


class _PageCost:
    """The cost of the page sizes (see the module docstring), typed by the schema: a field's size argument
    and its default come from the field's definition. Fields and types the schema does not know cost what
    their selections cost (the validation rules refuse them anyway)."""

    def __init__(self, schema: GraphQLSchema, fragments: Mapping[str, FragmentDefinitionNode],
                 operation: OperationDefinitionNode, variables: Mapping[str, Any], limits: Limits) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.defaults = {d.variable.name.value: d.default_value for d in operation.variable_definitions or ()}
        self.limits = limits
        self.memo: dict[str, int] = {}

    def selection_set(self, node: SelectionSetNode | None, parent: GraphQLNamedType | None,
                      stack: frozenset[str]) -> int:
        if node is None:
            return 0
        total = 0
        for selection in node.selections:
            if isinstance(selection, FieldNode):
                name = selection.name.value
                if name.startswith("__"):
                    continue
                fields = parent.fields if isinstance(parent, (GraphQLObjectType, GraphQLInterfaceType)) else {}
                definition = fields.get(name)
                child = get_named_type(definition.type) if definition is not None else None
                sub = self.selection_set(selection.selection_set, child, stack)
                size = self.size(parent, definition, selection) if definition is not None else None
                total += sub if size is None else size * (1 + sub)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                inner = self.schema.get_type(condition.name.value) if condition is not None else parent
                total += self.selection_set(selection.selection_set, inner, stack)
            elif isinstance(selection, FragmentSpreadNode):
                total += self.fragment(selection.name.value, stack)
            total = min(total, _CAP)
        return total

    def fragment(self, name: str, stack: frozenset[str]) -> int:
        if name in self.memo:
            return self.memo[name]
        definition = self.fragments.get(name)
        if definition is None or name in stack:  # unknown or cyclic: the validators report it
            return 0
        on = self.schema.get_type(definition.type_condition.name.value)
        cost = self.selection_set(definition.selection_set, on, stack | {name})
        self.memo[name] = cost
        return cost

    def size(self, parent: GraphQLNamedType | None, definition: GraphQLField, node: FieldNode) -> int | None:
        """The field's list size, None when it has no size argument."""
        for arg_name in SIZE_ARGUMENTS:
            arg = definition.args.get(arg_name)
            if arg is None or get_named_type(arg.type) is not GraphQLInt:
                continue
            given = next((a.value for a in node.arguments or () if a.name.value == arg_name), None)
            value = _UNSET if given is None else self.value(given)
            if value is _UNSET:
                value = self.default(arg)
            key = f"{parent.name if parent is not None else ''}.{node.name.value}"
            cap = max(self.limits.max_page_size, self.limits.null_sizes.get(key, 0))
            if value is None:
                value = self.limits.null_sizes.get(key, self.limits.max_page_size)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                return 0  # not an Int: refused by validation or variable coercion, nothing runs
            return max(0, min(value, cap))
        return None

    def default(self, arg: GraphQLArgument) -> object:
        """The argument's default (a coerced value or, in a schema built from SDL, a literal); None if none."""
        if arg.default_value is not Undefined:
            return arg.default_value
        default = arg.default
        if default is not None:
            if default.value is not Undefined:
                return default.value
            if isinstance(default.literal, ValueNode):
                return self.value(default.literal)
        return None

    def value(self, node: ValueNode) -> object:
        """A size argument's value: an int, None (null), _UNSET (a variable not given, without default) or
        anything else the caller sent (refused later)."""
        if isinstance(node, VariableNode):
            name = node.name.value
            if name in self.variables:
                return self.variables[name]
            default = self.defaults.get(name)
            return _UNSET if default is None else self.value(default)
        if isinstance(node, IntValueNode):
            # Past 32 bits by its length alone: validation refuses it (and Python reads no literal of more than
            # 4300 digits: int() would raise here, before any coded error)
            return node if len(node.value.lstrip("-")) > _INT_DIGITS else int(node.value)
        if isinstance(node, FloatValueNode):
            return float(node.value)
        if isinstance(node, NullValueNode):
            return None
        return node


def page_cost(schema: GraphQLSchema, document: DocumentNode, variables: Mapping[str, Any] | None,
              limits: Limits) -> int:
    """The worst page-size cost over the document's operations (see the module docstring)."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    worst = 0
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            root = schema.get_root_type(definition.operation)
            cost = _PageCost(schema, fragments, definition, variables or {}, limits)
            worst = max(worst, cost.selection_set(definition.selection_set, root, frozenset()))
    return worst


def _error(what: str, value: int, limit: int) -> GraphQLError:
    return GraphQLError(
        f"query {what} is {value if value < _CAP else 'unbounded'}; the limit is {limit}",
        extensions={"code": "LIMIT_EXCEEDED", "limit": what, "max": limit},
    )


def violations(document: DocumentNode, limits: Limits) -> list[GraphQLError]:
    """The limits the text alone decides (depth, aliases, selections)."""
    cost = measure(document)
    found: list[tuple[str, int, int]] = [
        ("depth", cost.depth, limits.max_depth),
        ("aliases", cost.aliases, limits.max_aliases),
        ("selections", cost.selections, limits.max_selections),
    ]
    return [_error(what, value, limit) for what, value, limit in found if value > limit]


def cost_violations(schema: GraphQLSchema, document: DocumentNode, variables: Mapping[str, Any] | None,
                    limits: Limits) -> list[GraphQLError]:
    """The page-size cost, which the variables decide too."""
    cost = page_cost(schema, document, variables, limits)
    return [_error("cost", cost, limits.max_cost)] if cost > limits.max_cost else []


def _has_int_variables(document: DocumentNode) -> bool:
    """Whether an operation declares an Int variable (only those can size a list)."""
    for op in document.definitions:
        if isinstance(op, OperationDefinitionNode):
            for d in op.variable_definitions or ():
                type_node: TypeNode = d.type
                while isinstance(type_node, (NonNullTypeNode, ListTypeNode)):
                    type_node = type_node.type
                if isinstance(type_node, NamedTypeNode) and type_node.name.value == "Int":
                    return True
    return False


class QueryLimits(SchemaExtension):
    """Refuses an over-limit document with LIMIT_EXCEEDED before the (costlier) validation rules run."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def on_validate(self) -> Iterator[None]:
        ec = self.execution_context
        document = ec.graphql_document
        if document is not None and not ec.pre_execution_errors:
            # None: a new text, every limit; []: a kept text (CheckedDocuments), which passed the limits the
            # text decides, but the cost depends on this request's variables.
            fresh = ec.pre_execution_errors is None
            errors = violations(document, self.limits) if fresh else []
            if fresh or _has_int_variables(document):  # else the text alone decided the cost, and it passed
                errors += cost_violations(ec.schema._schema, document, ec.variables, self.limits)
            if errors:
                # Setting them here makes strawberry skip the validation rules entirely.
                ec.pre_execution_errors = errors
        yield
