"""Per-request context: the container, the caller's tenant, and stage timings."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from strawberry.types import Info as StrawberryInfo

from bmam.container import Container

T = TypeVar("T")


@dataclass
class RequestContext:
    container: Container
    tenant: str
    timings: dict[str, float] = field(default_factory=dict)
    request: Any = None
    response: Any = None


Info = StrawberryInfo[RequestContext, None]


async def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking use-case (Neo4j driver, embedding model) off the event loop."""
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))
