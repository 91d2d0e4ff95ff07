"""Per-request context: the container, the caller (from its API key), DataLoaders and stage timings."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from strawberry.types import Info as StrawberryInfo

from bmam.container import Container
from bmam.timing import RequestTimings
from bmam.usecases.keys import UNAUTHENTICATED_MESSAGE, Principal
from graph.errors import Unauthenticated

if TYPE_CHECKING:
    from bmam.metrics import Metrics
    from resolvers.loaders import Loaders
    from resolvers.ws_protocol import ConnectionSlot

T = TypeVar("T")


@dataclass
class RequestContext:
    container: Container
    principal: Principal | None = None
    request: Any = None
    response: Any = None
    timings: RequestTimings = field(default_factory=RequestTimings)
    want_timings: bool = False  # header X-Bmam-Timings: 1 (or extensions {"timings": true})
    metrics: Metrics | None = None
    _loaders: Loaders | None = None
    # The websocket connection_init payload (strawberry fills it in): {"apiKey": "..."}.
    connection_params: dict[str, Any] | None = None
    # A websocket's place under the connection caps, taken at connection_init, given back when it ends.
    ws_slot: ConnectionSlot | None = None

    @property
    def tenant(self) -> str:
        """The caller's tenant (app), known from its verified API key; nothing else ever sets it."""
        return self.caller.tenant

    @property
    def caller(self) -> Principal:
        """The caller's verified key (UNAUTHENTICATED without one): what it may do is the use-cases' to say."""
        if self.principal is None:
            raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
        return self.principal

    @property
    def loaders(self) -> Loaders:
        if self._loaders is None:
            from resolvers.loaders import Loaders

            self._loaders = Loaders(self.container, self.tenant)
        return self._loaders

    def reset_loaders(self) -> None:
        """Fresh DataLoaders for the next operation of a websocket, which shares this context with the
        connection's other operations (resolvers/ws_protocol.py)."""
        self._loaders = None


Info = StrawberryInfo[RequestContext, None]


async def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking use-case (Neo4j driver, embedding model) off the event loop. The context (and so
    the request's timings) goes with it."""
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))
