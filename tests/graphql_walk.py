"""Walking the served schema (by introspection) to call every root field with chosen arguments: shared by
the tenancy and abuse suites, so fields other features add later are covered without editing them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    build_client_schema,
    get_introspection_query,
    get_named_type,
)

from bmam.client import BmamClient

# (argument or input-field name, scalar type) -> a value
ScalarChooser = Callable[[str, GraphQLScalarType], Any]


def served_schema(c: BmamClient) -> GraphQLSchema:
    return build_client_schema(c.execute(get_introspection_query()))  # type: ignore[arg-type]


def value(name: str, type_: GraphQLInputType, scalar: ScalarChooser) -> Any:
    if isinstance(type_, GraphQLNonNull):
        return value(name, type_.of_type, scalar)
    if isinstance(type_, GraphQLList):
        return [value(name, type_.of_type, scalar)]
    if isinstance(type_, GraphQLEnumType):
        return next(iter(type_.values))
    if isinstance(type_, GraphQLInputObjectType):
        return {n: value(n, f.type, scalar) for n, f in type_.fields.items()}
    assert isinstance(type_, GraphQLScalarType)
    return scalar(name, type_)


def selection(type_: Any, depth: int = 3) -> str:
    """Every field without required arguments, `depth` levels down ("" for a leaf type)."""
    named = get_named_type(type_)
    if not isinstance(named, GraphQLObjectType):
        return "" if isinstance(named, (GraphQLScalarType, GraphQLEnumType)) else "{ __typename }"
    parts: list[str] = []
    for fname, f in named.fields.items():
        if any(isinstance(arg.type, GraphQLNonNull) and arg.default_value is None for arg in f.args.values()):
            continue
        if isinstance(get_named_type(f.type), (GraphQLScalarType, GraphQLEnumType)):
            parts.append(fname)
        elif depth > 1:
            sub = selection(f.type, depth - 1)
            if sub:
                parts.append(f"{fname} {sub}")
    return "{ " + (" ".join(parts) or "__typename") + " }"


def document(kind: str, name: str, f: GraphQLField, depth: int = 3) -> str:
    params = ", ".join(f"${n}: {arg.type}" for n, arg in f.args.items())
    args = ", ".join(f"{n}: ${n}" for n in f.args)
    head = f"{kind}({params})" if params else kind
    call = f"{name}({args})" if args else name
    return f"{head} {{ {call} {selection(f.type, depth)} }}"


def root_fields(schema: GraphQLSchema) -> Iterator[tuple[str, str, GraphQLField]]:
    """(operation kind, field name, field) of every Query and Mutation root field."""
    for kind, root in (("query", schema.query_type), ("mutation", schema.mutation_type)):
        if root is not None:
            for name, f in root.fields.items():
                yield kind, name, f


def string_paths(f: GraphQLField) -> list[tuple[str, ...]]:
    """Paths (argument, input field, ...) to every String or ID input of a root field."""
    found: list[tuple[str, ...]] = []

    def walk(path: tuple[str, ...], type_: Any, seen: frozenset[str]) -> None:
        named = get_named_type(type_)
        if isinstance(named, GraphQLScalarType) and named.name in ("String", "ID"):
            found.append(path)
        elif isinstance(named, GraphQLInputObjectType) and named.name not in seen:
            for n, sub in named.fields.items():
                walk((*path, n), sub.type, seen | {named.name})

    for n, arg in f.args.items():
        walk((n,), arg.type, frozenset())
    return found


def replace_at(variables: dict[str, Any], path: tuple[str, ...], new: Any) -> dict[str, Any]:
    """A copy of variables with the value at path (through lists: every element) set to new."""

    def put(node: Any, rest: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [put(x, rest) for x in node]
        if not rest:
            return new
        if not isinstance(node, dict):
            return node
        return {**node, rest[0]: put(node.get(rest[0]), rest[1:])}

    return put(variables, path)


def strings(value_: Any) -> Iterator[str]:
    if isinstance(value_, str):
        yield value_
    elif isinstance(value_, dict):
        for v in value_.values():
            yield from strings(v)
    elif isinstance(value_, list):
        for v in value_:
            yield from strings(v)
