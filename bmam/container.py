"""The composition root: builds the store, repositories, embedder and use-cases from Settings."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property

from bmam.clock import Clock, SystemClock
from bmam.events import EventBus
from bmam.neo4j_server import LocalNeo4j
from bmam.settings import Settings
from bmam.usecases.memories import MemoryUseCases
from graph.associations import AssociationRepository
from graph.memories import MemoryRepository, WeightShares
from graph.migrations import MigrationReport, apply_schema
from graph.store import GraphStore, StoreConfig
from graph.triples import TripleRepository
from ingest.embedding import Embedder, embedding_dim, load_embedder

log = logging.getLogger(__name__)


def ensure_neo4j(settings: Settings) -> None:
    """Start the project's local Neo4j unless NEO4J_URI points elsewhere."""
    if settings.neo4j.is_local:
        status = LocalNeo4j(settings.neo4j).start()
        log.info("local neo4j at %s (pid %s)", status.bolt_uri, status.pid)


@dataclass
class Container:
    """Everything a face needs, built lazily and once per process."""

    settings: Settings
    clock: Clock = field(default_factory=SystemClock)

    @cached_property
    def events(self) -> EventBus:
        return EventBus()

    @cached_property
    def store(self) -> GraphStore:
        n = self.settings.neo4j
        return GraphStore(
            StoreConfig(
                uri=n.bolt_uri,
                user=n.user,
                password=n.password,
                database=n.database,
                tx_timeout_s=n.tx_timeout_s,
                max_pool_size=n.max_pool_size,
            )
        )

    @property
    def vector_dimensions(self) -> int:
        return embedding_dim(self.settings.embedding.model)

    @cached_property
    def embedder(self) -> Embedder:
        e = self.settings.embedding
        return load_embedder(e.model, threads=e.threads, batch_size=e.batch_size)

    @cached_property
    def memory_repository(self) -> MemoryRepository:
        w = self.settings.weights
        shares = WeightShares(passive=w.passive_share, active=w.active_share, preset=w.preset_share)
        return MemoryRepository(self.store, shares, self.vector_dimensions)

    @cached_property
    def memories(self) -> MemoryUseCases:
        return MemoryUseCases(
            settings=self.settings,
            clock=self.clock,
            embedder=self.embedder,
            memories=self.memory_repository,
            triples=TripleRepository(self.store),
            associations=AssociationRepository(self.store),
        )

    def migrate(self) -> MigrationReport:
        return apply_schema(self.store, vector_dimensions=self.vector_dimensions, now=self.clock.now())

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
