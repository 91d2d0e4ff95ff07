"""Erasure of one user inside one tenant: every node and relationship stamped with (tenant, user_id); of a whole
tenant: each of its users so, then its nodes of no user (maintenance changesets, their counter; API keys on request);
and of one session of a user: its turns, its Session node and its anti-repetition state (the memories derived from
it are the use-case's: bmam/usecases/sessions.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from graph.cypher_library import ERASURE_LABELS
from graph.episodes import session_node_id
from graph.events import EventLog
from graph.keys import KeyRepository
from graph.model import Scope
from graph.scope_token import scope_token
from graph.session_state import session_recall_id
from graph.store import GraphStore


@dataclass
class ErasureTally:
    nodes: int = 0
    relationships: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    # (nodes, relationships) of the scope found by a re-query after the last deletion: the receipt's proof
    remaining: tuple[int, int] = (0, 0)

    def add_batch(self, row: dict[str, Any]) -> int:
        """Count one batch's removals; the number removed (0 means the batch found nothing)."""
        nodes = int(row.get("nodes") or 0)
        rel_types = [str(t) for t in row.get("rel_types") or []]
        self.nodes += nodes
        self.relationships += len(rel_types)
        self.labels.update(str(label) for label in row.get("node_labels") or [])
        self.types.update(rel_types)
        return nodes + len(rel_types)

    def add(self, other: ErasureTally) -> None:
        """Count another tally's removals in this one (forgetTenant: each user's into the tenant's)."""
        self.nodes += other.nodes
        self.relationships += other.relationships
        self.labels.update(other.labels)
        self.types.update(other.types)


@dataclass(frozen=True, slots=True)
class SessionHeld:
    """What is stored of one session: its turns (Episode nodes) and its other nodes (Session, SessionRecall)."""

    turns: int
    nodes: int

    @property
    def empty(self) -> bool:
        return self.turns == 0 and self.nodes == 0


@dataclass(frozen=True, slots=True)
class DerivedMemory:
    """A memory derived from a session's turns: whether it is locked, and whether it is derived from a turn of
    another session as well (`shared`)."""

    id: str
    locked: bool
    shared: bool


class ErasureRepository:
    def __init__(self, store: GraphStore, *, batch_size: int = 1000, timeout_s: float | None = None) -> None:
        self._store = store
        self._batch = batch_size
        self._timeout_s = timeout_s  # of each statement (None: the store's): the proof scans the whole store

    def erase(self, scope: Scope, *, prove: bool = True) -> ErasureTally:
        """Delete everything of the scope in batches (each its own transaction, so a large user never
        hits the transaction timeout); repeat until a batch finds nothing. The label-free sweeps scan every
        node and relationship of the store (seconds at a million memories), so they run only when the
        re-query after the indexed sweeps finds something left (a label outside ERASURE_LABELS); that
        re-query, or the one after them, is the tally's `remaining`. The shared event log, which names the user by
        scope token, is swept by forget_events, once whatever could still append to it was told (the caller's).
        prove=False: the indexed sweeps only, no re-query (`remaining` stays (0, 0)): forgetTenant erases each
        user so and proves the whole tenant once after the last of them (tenant_remaining), where a re-query per
        user would scan the store once per user."""
        tally = ErasureTally()
        params = {"tenant": scope.tenant, "user_id": scope.user_id, "batch": self._batch}
        for label in ERASURE_LABELS:
            self._sweep_nodes(tally, "erasure/batch_label", params, label=label)
        if not prove:
            return tally
        tally.remaining = self.remaining(scope)
        if tally.remaining == (0, 0):
            return tally
        self._sweep_nodes(tally, "erasure/batch_any", params)
        self._sweep_relationships(tally, "erasure/batch_relationships", params)
        tally.remaining = self.remaining(scope)
        return tally

    def _sweep_nodes(self, tally: ErasureTally, name: str, params: dict[str, Any], **splices: object) -> None:
        """Run one node sweep of erasure/ (erasure/delete_nodes) until a batch finds nothing, counted in the tally."""
        while tally.add_batch(self._store.write(name, params, timeout_s=self._timeout_s, **splices)[0]):
            pass

    def _sweep_relationships(self, tally: ErasureTally, name: str, params: dict[str, Any]) -> None:
        """Run one relationship sweep of erasure/ (erasure/delete_relationships) until a batch finds nothing."""
        while True:
            row = self._store.write(name, params, timeout_s=self._timeout_s)[0]
            removed = int(row["relationships"])
            if not removed:
                break
            tally.relationships += removed
            tally.types.update(str(t) for t in row["rel_types"])

    def forget_events(self, scope: Scope, tally: ErasureTally) -> None:
        """Sweep the user's events from the shared event log, which names the user by scope token, not (tenant,
        user_id); counted in the tally."""
        forgotten = EventLog(self._store).forget_scope(scope_token(scope.tenant, scope.user_id),
                                                       timeout_s=self._timeout_s)
        if forgotten:
            tally.nodes += forgotten
            tally.labels["MemoryEvent"] += forgotten

    def remaining(self, scope: Scope) -> tuple[int, int]:
        """(nodes, relationships) still stamped with the scope: the receipt's proof."""
        row = self._store.read("erasure/remaining", {"tenant": scope.tenant, "user_id": scope.user_id},
                               timeout_s=self._timeout_s)[0]
        return int(row["nodes"]), int(row["relationships"])

    # ----- forgetSession: one session of a user ---------------------------------------------------------------

    def _session_params(self, scope: Scope, session_id: str) -> dict[str, Any]:
        return {"tenant": scope.tenant, "user_id": scope.user_id, "session_id": session_id,
                "session_node": session_node_id(scope, session_id),
                "recall_node": session_recall_id(scope, session_id), "batch": self._batch}

    def session_held(self, scope: Scope, session_id: str) -> SessionHeld:
        """What is stored of the session (session/held): before an erasure, whether there is one; after, its proof."""
        row = self._store.read("session/held", self._session_params(scope, session_id), timeout_s=self._timeout_s)[0]
        return SessionHeld(turns=int(row["turns"]), nodes=int(row["nodes"]))

    def derived_memories(self, scope: Scope, session_id: str) -> list[DerivedMemory]:
        """The user's memories derived from the session's turns, in id order (session/derived_memories)."""
        rows = self._store.read("session/derived_memories", self._session_params(scope, session_id),
                                timeout_s=self._timeout_s)
        return [DerivedMemory(id=str(r["id"]), locked=bool(r["locked"]), shared=bool(r["shared"])) for r in rows]

    def erase_session(self, scope: Scope, session_id: str) -> ErasureTally:
        """Delete the session's turns in batches (each its own transaction), then its Session node and its
        anti-repetition state: the Session node last, so an erasure stopped midway still finds the session and a
        second run finishes it. Counted in the tally; its proof is session_held's re-query."""
        tally = ErasureTally()
        params = self._session_params(scope, session_id)
        self._sweep_nodes(tally, "erasure/batch_session_turns", params)
        self._sweep_nodes(tally, "erasure/batch_session_nodes", params)
        return tally

    # ----- forgetTenant: every user of a tenant (each as above), then what the tenant holds of no user ----------

    def tenant_known(self, tenant: str) -> bool:
        """Whether anything of the tenant is stored (its users' data, its changesets, its API keys)."""
        return bool(self._store.read("erasure/tenant_known", {"tenant": tenant}, timeout_s=self._timeout_s)[0]["known"])

    def tenant_users(self, tenant: str, *, after: str, limit: int, any_label: bool = False) -> list[str]:
        """A page of the tenant's user ids after `after`, in id order: those with a User node (an index seek), or
        with any_label those any node or relationship of the tenant is stamped with (a scan of the store)."""
        name = "erasure/tenant_users_any" if any_label else "erasure/tenant_users"
        rows = self._store.read(name, {"tenant": tenant, "after": after, "limit": limit}, timeout_s=self._timeout_s)
        return [str(r["user_id"]) for r in rows]

    def erase_tenant_nodes(self, tenant: str, tally: ErasureTally, *, any_label: bool, keys: bool) -> None:
        """Delete the tenant's nodes of no user, counted in the tally: its tenant-wide maintenance changesets and
        its changeset counter. any_label: then every node and relationship still stamped with the tenant, any label,
        any user or none (the sweep after a proof found something left), its API keys only when keys."""
        params = {"tenant": tenant, "batch": self._batch, "keys": keys}
        self._sweep_nodes(tally, "erasure/batch_tenant", params)
        if any_label:
            self._sweep_nodes(tally, "erasure/batch_tenant_any", params)
            self._sweep_relationships(tally, "erasure/batch_tenant_relationships", params)

    def delete_tenant_keys(self, tenant: str, tally: ErasureTally) -> int:
        """Delete every API key of the tenant, revoked or not, counted in the tally; how many went."""
        deleted = KeyRepository(self._store).delete_tenant(tenant, batch=self._batch, timeout_s=self._timeout_s)
        if deleted:
            tally.nodes += deleted
            tally.labels["ApiKey"] += deleted
        return deleted

    def tenant_remaining(self, tenant: str, *, keys: bool) -> tuple[int, int]:
        """(nodes, relationships) still stamped with the tenant, any user or none: a tenant receipt's proof. Its API
        keys count only when keys (an erasure that deletes them)."""
        row = self._store.read("erasure/tenant_remaining", {"tenant": tenant, "keys": keys},
                               timeout_s=self._timeout_s)[0]
        return int(row["nodes"]), int(row["relationships"])

    def tenant_user_nodes(self, tenant: str) -> int:
        """How many user-data nodes a tenant has (any user): for isolation checks."""
        rows = self._store.read("erasure/tenant_user_nodes", {"tenant": tenant}, timeout_s=self._timeout_s)
        return int(rows[0]["nodes"])
