"""The real store, instrumented for tests of code that hands transactions around (no fake of it, no mock of
the driver: every transaction here is a real one on the tests' Neo4j)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from neo4j import ManagedTransaction

from graph.store import GraphStore, QueryTimer, StoreConfig, Tx

T = TypeVar("T")


class NumberedTx(Tx):
    """A real transaction that prints as its number (tx1, tx2, ...), for a test to record which one ran what."""

    def __init__(self, inner: ManagedTransaction, timer: QueryTimer, label: str) -> None:
        super().__init__(inner, timer)
        self.label = label

    def __str__(self) -> str:
        return self.label


class NumberingStore(GraphStore):
    """The real store on the real Neo4j, numbering the transactions it hands out and noting each commit, so
    run_hooks' transaction plumbing is checked on real transactions (a hook raising in one rolls it back)."""

    def __init__(self, config: StoreConfig, calls: list[str]) -> None:
        super().__init__(config)
        self.calls, self.n = calls, 0

    def _tx(self, tx: ManagedTransaction) -> Tx:
        self.n += 1
        numbered = NumberedTx(tx, self.timer, f"tx{self.n}")
        numbered.run("meta/ping")  # the hooks' parts run in a live transaction
        return numbered

    def write_tx(self, work: Callable[[Tx], T], *, timeout_s: float | None = None) -> T:
        result = super().write_tx(work, timeout_s=timeout_s)
        self.calls.append(f"commit tx{self.n}")
        return result
