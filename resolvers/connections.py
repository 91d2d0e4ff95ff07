"""Relay connections of any node type, in the shape of MemoryConnection (edges { cursor node }, pageInfo
{ hasNextPage endCursor }): Connection[User] is the schema's UserConnection with UserEdge, and so on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import strawberry

from graph.paging import Paged
from resolvers.types import PageInfo

N = TypeVar("N")
T = TypeVar("T")


@strawberry.type
class Edge(Generic[N]):
    cursor: str
    node: N


@strawberry.type(description="A page of a keyset-paginated listing (Relay connection): pass pageInfo.endCursor, or "
                             "an edge's cursor, as `after` for the page after it.")
class Connection(Generic[N]):
    edges: list[Edge[N]]
    page_info: PageInfo


def connection(page: Paged[T], node: Callable[[T], N]) -> Connection[N]:
    """A page of the graph's items as a connection of their GraphQL nodes."""
    return Connection(
        edges=[Edge(cursor=cursor, node=node(item)) for cursor, item in zip(page.cursors, page.items, strict=True)],
        page_info=PageInfo(has_next_page=page.next_cursor is not None, end_cursor=page.next_cursor),
    )
