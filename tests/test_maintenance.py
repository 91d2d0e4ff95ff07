"""Maintenance: near-duplicate clustering alone; then full, rebalance and the quick check against the store,
changesets (dry run, undo, errors), an interrupted run, the CLI and the GraphQL face."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.maintenance import (
    CheckReport,
    MaintenanceUseCases,
    cluster_near_duplicates,
    similar_pairs,
)
from graph.changesets import ChangesetRepository, MaintenanceKind, encode_props
from graph.conflicts import ConflictKind, ConflictRepository, ConflictStrategy
from graph.errors import Conflict, NotFound
from graph.ids import new_memory_id
from graph.maintenance import MaintenanceRepository, PlanFact, PlanMemory, UserResult
from graph.model import Memory, MemoryType, NewMemory, PresetKind, Scope, Tier
from graph.scope_token import scope_token
from graph.store import Row
from ingest.turns import TurnInput
from ingest.weights import Parts, final_weight

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TOL = 1e-9

# ----- clustering, pure ------------------------------------------------------------------------------------


def plan_memory(i: int, text: str = "", *, type: str = "FACTUAL", conflict: bool = False,
                tier: str = "temp") -> PlanMemory:
    return PlanMemory(id=f"m{i}", text=text or f"memory {i}", type=type, tier=tier, preset_kind="default", passive=0.5,
                      active=0.5, preset=0.5, weight=0.5, decayed_at=START, created_at=START + timedelta(seconds=i),
                      mention_count=1, in_open_conflict=conflict)


def unit(*xs: float) -> list[float]:
    v = np.asarray(xs, dtype=np.float64)
    return list(v / np.linalg.norm(v))


def test_similar_pairs_finds_exactly_the_pairs_over_the_line() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    vectors[5] = vectors[100] + 0.01
    vectors[200] = vectors[100] + 0.01
    found = {(i, j) for i, j, _ in similar_pairs(vectors, 0.99, block=64)}
    unit_v = vectors / np.linalg.norm(vectors, axis=1)[:, None]
    sims = unit_v @ unit_v.T
    expected = {(i, j) for i in range(300) for j in range(i + 1, 300) if sims[i, j] >= 0.99}
    assert found == expected and {(5, 100), (5, 200), (100, 200)} <= found


def test_stars_do_not_chain_and_respect_the_guards() -> None:
    # 0~1 and 1~2 are similar, 0 and 2 are not: a chain. 1 has the highest weight, so it takes both.
    memories = [plan_memory(0), plan_memory(1), plan_memory(2), plan_memory(3), plan_memory(4)]
    vectors = np.asarray([unit(1, 0.30, 0), unit(1, 0, 0), unit(1, -0.30, 0), unit(0, 1, 0), unit(0, 0, 1)],
                         dtype=np.float32)
    weights = [0.5, 0.9, 0.5, 0.5, 0.5]
    merges = cluster_near_duplicates(memories, vectors, weights, [], threshold=0.95, conflict_similarity=0.75)
    assert merges == [("m1", ["m0", "m2"])]
    # When 0 leads, it takes 1 only; 2 is not similar to 0 and stays (its only neighbour is taken).
    merges = cluster_near_duplicates(memories, vectors, [0.9, 0.5, 0.5, 0.5, 0.5], [], threshold=0.95,
                                     conflict_similarity=0.75)
    assert merges == [("m0", ["m1"])]
    # Different types, negation, contradicting triples, open conflicts: never merged.
    pair = np.asarray([unit(1, 0, 0), unit(1, 0.01, 0)], dtype=np.float32)
    assert cluster_near_duplicates([plan_memory(0), plan_memory(1, type="EMOTIONAL")], pair, [0.5, 0.5], [],
                                   threshold=0.9, conflict_similarity=0.75) == []
    assert cluster_near_duplicates([plan_memory(0, "我喜欢猫"), plan_memory(1, "我不喜欢猫")], pair, [0.5, 0.5], [],
                                   threshold=0.9, conflict_similarity=0.75) == []
    facts = [PlanFact("m0", "user", "lives_in", "成都", 1), PlanFact("m1", "user", "lives_in", "北京", 1)]
    assert cluster_near_duplicates([plan_memory(0), plan_memory(1)], pair, [0.5, 0.5], facts, threshold=0.9,
                                   conflict_similarity=0.75) == []
    assert cluster_near_duplicates([plan_memory(0), plan_memory(1, conflict=True)], pair, [0.5, 0.5], [],
                                   threshold=0.9, conflict_similarity=0.75) == []
    assert cluster_near_duplicates([plan_memory(0), plan_memory(1)], pair, [0.5, 0.5], [], threshold=0.9,
                                   conflict_similarity=0.75) == [("m0", ["m1"])]


def test_a_mid_memory_survives_a_heavier_temp_duplicate() -> None:
    """A merge is never a demotion: the survivor of a temp and a mid near-duplicate is the mid one, even when
    the temp one weighs more (left in temp, the merged memory could be evicted from there)."""
    pair = np.asarray([unit(1, 0, 0), unit(1, 0.01, 0)], dtype=np.float32)
    temp_first = [plan_memory(0), plan_memory(1, tier="mid")]
    assert cluster_near_duplicates(temp_first, pair, [0.9, 0.3], [], threshold=0.9,
                                   conflict_similarity=0.75) == [("m1", ["m0"])]
    both_temp = [plan_memory(0), plan_memory(1)]
    assert cluster_near_duplicates(both_temp, pair, [0.3, 0.9], [], threshold=0.9,
                                   conflict_similarity=0.75) == [("m1", ["m0"])]  # then the heavier


# ----- against the store -----------------------------------------------------------------------------------


@pytest.fixture
def living(container: Container) -> Iterator[tuple[Container, FakeClock]]:
    clock = FakeClock(START)
    c = Container(container.settings, clock=clock)
    c.__dict__["store"] = container.store
    c.__dict__["embedder"] = container.embedder
    c.__dict__["maintenance_store"] = container.maintenance_store
    yield c, clock


def store(c: Container, scope: Scope, text: str, *, passive: float = 0.5, active: float = 0.5,
          type: MemoryType = MemoryType.FACTUAL, tier: Tier = Tier.TEMP, preset_kind: PresetKind = PresetKind.DEFAULT,
          embedding: list[float] | None = None) -> Memory:
    vector = embedding or [float(x) for x in c.embedder.embed_passages([text])[0]]
    preset = {PresetKind.SAFETY: 1.0, PresetKind.TEMPORARY: 0.3}.get(preset_kind, 0.5)
    new = NewMemory(id=new_memory_id(), text=text, type=type, embedding=vector, tier=tier, preset_kind=preset_kind,
                    preset=preset)
    return c.memory_repository.remember(scope, new, now=c.clock.now(), passive=passive, active=active).memory


def user_graph(c: Container, scope: Scope) -> Row:
    """The user's nodes and the relationships touching them, in one read (maintenance/snapshot)."""
    return c.store.read("maintenance/snapshot", {"tenant": scope.tenant, "user_id": scope.user_id})[0]


def canonical(graph: Row) -> tuple[list[str], list[str]]:
    """A user's graph (user_graph) in a canonical form: nodes and relationships with every property."""
    nodes = sorted(json.dumps([sorted(r["labels"]), encode_props(r["props"])], sort_keys=True, ensure_ascii=False)
                   for r in graph["nodes"])
    rels = sorted(json.dumps([r["a_key"], r["type"], encode_props(r["props"]), r["b_key"]], sort_keys=True,
                             ensure_ascii=False) for r in graph["relationships"])
    return nodes, rels


def snapshot(c: Container, scope: Scope) -> tuple[list[str], list[str]]:
    """The user's whole graph in a canonical form."""
    return canonical(user_graph(c, scope))


def get(c: Container, scope: Scope, memory_id: str) -> Memory | None:
    return c.memory_repository.get(scope, memory_id)


def test_full_merges_purges_keeps_evidence_and_undoes_exactly(living: tuple[Container, FakeClock],
                                                              scope: Scope) -> None:
    c, clock = living
    # A memory with an episode behind it (DERIVED_FROM) and a triple, written by the ingest pipeline.
    first = c.ingest.ingest_turn(scope.tenant, TurnInput(user_id=scope.user_id, session_id="s1", speaker="user",
                                                         text="我住在成都", at=clock.now()))
    [ingested] = first.memories
    clock.advance(timedelta(hours=1))
    heavier = store(c, scope, "我现在住在成都", passive=0.9, active=0.6)  # its near-duplicate, heavier: survives
    hotpot = store(c, scope, "I love hot pot", passive=0.4)
    hotpot2 = store(c, scope, "I really love hot pot", passive=0.2, active=0.8)
    faint = store(c, scope, "It rained a little on Tuesday", passive=0.0, active=0.0, preset_kind=PresetKind.TEMPORARY)
    core = store(c, scope, "我住在成都。", tier=Tier.CORE, passive=0.0, active=0.0)  # a locked duplicate
    c.memories.associate(scope.tenant, scope.user_id, ingested.id, hotpot.id, 0.6)
    before = snapshot(c, scope)
    assert final_weight(Parts(0.0, 0.0, 0.3), c.weight_policy) < 0.1

    clock.advance(timedelta(days=1))
    dry = c.maintenance.run(scope.tenant, "FULL", dry_run=True, user_id=scope.user_id)
    assert snapshot(c, scope) == before  # a dry run changes nothing
    real = c.maintenance.run(scope.tenant, MaintenanceKind.FULL, user_id=scope.user_id)
    assert dry.changeset is not None and real.changeset is not None
    for field in ("merged", "purged", "damped", "lifted", "decayed", "users", "kind"):
        assert getattr(dry.changeset, field) == getattr(real.changeset, field), field
    assert dry.changeset.dry_run and not real.changeset.dry_run

    merged = {m.survivor_id: sorted(m.merged_ids) for m in real.changeset.merged}
    assert merged == {heavier.id: [ingested.id], hotpot.id: [hotpot2.id]}
    assert real.changeset.purged == [faint.id]
    assert get(c, scope, ingested.id) is None and get(c, scope, faint.id) is None
    assert get(c, scope, core.id) == core  # locked: not merged, not decayed, not purged

    survivor = get(c, scope, heavier.id)
    assert survivor is not None
    assert survivor.mention_count == heavier.mention_count + ingested.mention_count
    assert survivor.created_at == ingested.created_at
    props = c.store.read("memory/get", {"tenant": scope.tenant, "user_id": scope.user_id, "id": heavier.id})[0]
    assert props["memory"]["merged_ids"] == [ingested.id]
    assert props["memory"]["merged_texts"] == ["我住在成都"]
    assert [t.object.name for t in c.memories.triples(scope.tenant, scope.user_id, heavier.id)] == ["成都"]
    assert [a.memory_b for a in c.memories.associations(scope.tenant, scope.user_id, heavier.id)] == [hotpot.id]
    _, rels = snapshot(c, scope)
    derived = [json.loads(r) for r in rels if '"DERIVED_FROM"' in r]
    assert derived and all(r[0] == heavier.id for r in derived)  # the episode now backs the survivor
    hot = get(c, scope, hotpot.id)
    assert hot is not None and hot.weight.active == pytest.approx(0.8)  # each part: the larger of the two

    # A second run, a day later, finds nothing more to merge or purge (it only decays).
    clock.advance(timedelta(days=1))
    again = c.maintenance.run(scope.tenant, "FULL", user_id=scope.user_id)
    assert again.changeset is not None and not again.changeset.merged and not again.changeset.purged

    # Undo: the later run first (it touched the same memories), then the first one: exactly as before.
    with pytest.raises(Conflict):
        c.maintenance.undo(scope.tenant, real.changeset.id)
    c.maintenance.undo(scope.tenant, again.changeset.id)
    undone = c.maintenance.undo(scope.tenant, real.changeset.id)
    assert undone.undone
    assert snapshot(c, scope) == before
    with pytest.raises(Conflict):
        c.maintenance.undo(scope.tenant, real.changeset.id)
    with pytest.raises(NotFound):
        c.maintenance.undo(scope.tenant, "cs_unknown")
    with pytest.raises(NotFound):
        c.maintenance.undo(scope.tenant, dry.changeset.id)  # a dry run records nothing
    assert snapshot(c, scope) == before


def test_a_merge_leaves_a_memory_that_came_into_a_conflict_after_the_plan(living: tuple[Container, FakeClock],
                                                                          scope: Scope) -> None:
    """The plan is read before the run's transaction: a conflict recorded in between keeps its memory out of the
    merge (deleted, the conflict could never be resolved, and its survivor would be held by it for good)."""
    c, clock = living
    hotpot = store(c, scope, "I love hot pot", passive=0.9)
    hotpot2 = store(c, scope, "I really love hot pot", passive=0.2)
    other = store(c, scope, "Hot pot makes me sick")
    clock.advance(timedelta(days=1))
    plan = c.maintenance.plan(scope, clock.now())
    assert plan.merges == [(hotpot.id, [hotpot2.id])]
    recorded = ConflictRepository(c.store).record(scope, new_id=other.id, old_id=hotpot2.id,
                                                  kind=ConflictKind.POLARITY, strategy=ConflictStrategy.REVIEW,
                                                  reason="test", now=clock.now())
    assert recorded is not None
    changesets = ChangesetRepository(c.maintenance_store)
    changeset_id = "cs_" + uuid.uuid4().hex
    changesets.create(changeset_id=changeset_id, tenant=scope.tenant, user_id=scope.user_id,
                      kind=MaintenanceKind.FULL, now=clock.now())
    repository = MaintenanceRepository(c.maintenance_store, changesets, c.vector_dimensions)
    result = repository.apply_user(
        scope, decay_step=False, rebalance=False, plan=plan, weight_params=c.weight_policy.cypher_params(),
        rebalance_params=c.maintenance.policy.rebalance.cypher_params(), purge_below=0.1,
        changeset_id=changeset_id, run_user_id=scope.user_id, dry_run=False, now=clock.now())
    assert result.merged == []
    assert get(c, scope, hotpot2.id) is not None and get(c, scope, hotpot.id) is not None


def test_rebalance_damps_heavy_and_lifts_valuable_rare_memories(living: tuple[Container, FakeClock],
                                                                scope: Scope) -> None:
    c, _ = living
    policy = c.weight_policy
    heavy = store(c, scope, "I am a software engineer", passive=1.0, active=1.0)
    safety = store(c, scope, "I am allergic to penicillin", passive=1.0, active=1.0, preset_kind=PresetKind.SAFETY)
    locked = store(c, scope, "My name is Wang Fang", passive=1.0, active=1.0, tier=Tier.CORE)
    liked = store(c, scope, "I enjoyed the Lisbon trip", passive=0.0, active=0.7)
    plain = store(c, scope, "I have a blue umbrella", passive=0.0, active=0.5)
    # engaged with, but weather: a temporary preset is not for keeping (lifted thrice, it outlived the user's job)
    rain = store(c, scope, "It's raining today", passive=0.0, active=0.7, preset_kind=PresetKind.TEMPORARY)
    result = c.maintenance.run(scope.tenant, "REBALANCE", user_id=scope.user_id)
    assert result.changeset is not None
    assert result.changeset.damped == [heavy.id]
    assert result.changeset.lifted == [liked.id]
    got = get(c, scope, heavy.id)
    assert got is not None and got.weight.final == pytest.approx(heavy.weight.final - 0.1, abs=TOL)
    k = (0.6 + 0.3 - 0.1) / 0.9
    assert got.weight.passive == pytest.approx(k, abs=TOL) and got.weight.active == pytest.approx(k, abs=TOL)
    lifted = get(c, scope, liked.id)
    assert lifted is not None
    assert lifted.weight.final == pytest.approx(final_weight(Parts(0.5, 0.7, 0.5), policy), abs=TOL)
    assert get(c, scope, safety.id) == safety and get(c, scope, locked.id) == locked
    assert get(c, scope, plain.id) == plain and get(c, scope, rain.id) == rain
    # Idempotent: a second rebalance at the same time changes nothing.
    second = c.maintenance.run(scope.tenant, "REBALANCE", user_id=scope.user_id)
    assert second.changeset is not None and not second.changeset.damped and not second.changeset.lifted
    c.maintenance.undo(scope.tenant, second.changeset.id)
    c.maintenance.undo(scope.tenant, result.changeset.id)
    assert get(c, scope, heavy.id) == heavy and get(c, scope, liked.id) == liked


def _seed_users(c: Container, tenant: str, vectors: dict[str, list[float]]) -> None:
    for user in ("ann", "ben", "cat"):
        scope = Scope(tenant, user)
        store(c, scope, "dup a", embedding=vectors["a"], passive=0.8)
        store(c, scope, "dup a again", embedding=vectors["a2"], passive=0.3)
        store(c, scope, "faint", embedding=vectors["b"], passive=0.0, active=0.0)
        store(c, scope, "heavy", embedding=vectors["c"], passive=1.0, active=1.0)
        store(c, scope, "kept", embedding=vectors["d"], passive=0.4)


def _normalised(c: Container, tenant: str) -> list[Any]:
    """Every user's graph, ids replaced by texts so two tenants with the same story compare equal."""
    out: list[Any] = []
    for user in ("ann", "ben", "cat"):
        rows = c.store.read("maintenance/snapshot", {"tenant": tenant, "user_id": user})[0]["nodes"]
        for r in rows:
            props = {k: v for k, v in encode_props(r["props"]).items()
                     if k not in ("id", "tenant", "scope_token", "merged_ids")}  # the token names the tenant too
            out.append(json.dumps([user, sorted(r["labels"]), props], sort_keys=True))
    return sorted(out)


@pytest.mark.parametrize("kind", ["FULL", "REBALANCE"])
def test_an_interrupted_run_then_a_new_run_equals_one_run(living: tuple[Container, FakeClock], kind: str) -> None:
    c, clock = living
    dims = c.vector_dimensions
    rng = np.random.default_rng(11)
    base = {k: rng.normal(size=dims) for k in "abcd"}
    base["a2"] = base["a"] + rng.normal(size=dims) * 0.01
    vectors = {k: [float(x) for x in v / np.linalg.norm(v)] for k, v in base.items()}
    once, interrupted = f"test-{uuid.uuid4().hex[:12]}", f"test-{uuid.uuid4().hex[:12]}"
    _seed_users(c, once, vectors)
    _seed_users(c, interrupted, vectors)
    clock.advance(timedelta(days=3))

    c.maintenance.run(once, kind)

    class Crash(Exception):
        pass

    def crash_after_first(result: UserResult) -> None:
        raise Crash(result.user_id)

    with pytest.raises(Crash):
        c.maintenance.run(interrupted, kind, on_user_done=crash_after_first)
    assert _normalised(c, interrupted) != _normalised(c, once)  # half done
    c.maintenance.run(interrupted, kind)
    assert _normalised(c, interrupted) == _normalised(c, once)


def test_quick_check(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, _ = living
    name = store(c, scope, "My name is Zhang Wei", tier=Tier.CORE)
    report = c.maintenance.check(scope.tenant, scope.user_id)
    assert report.healthy, report.problems
    assert report.core_memories == 1 and report.working_memory is not None and report.working_memory.headroom > 0.2
    # A corrected core memory is history (it keeps tier 'core'): the correction is the one core memory.
    c.corrections.correct(scope.tenant, scope.user_id, name.id, "My name is Zhang Wen")
    assert c.maintenance.check(scope.tenant, scope.user_id).core_memories == 1
    # A core memory nobody owns (no HAS_MEMORY edge): unhealthy, and said so.
    orphan = "m_" + uuid.uuid4().hex
    c.store.write("maintenance/restore_nodes", {
        "tenant": scope.tenant, "user_id": scope.user_id, "scope_token": scope_token(scope.tenant, scope.user_id),
        "nodes": [{"id": orphan, "labels": ["Memory", "Factual"], "embedding": None, "float32": False,
                   "props": {"id": orphan, "tenant": scope.tenant, "user_id": scope.user_id, "text": "orphan",
                             "tier": "core", "locked": True}}]})
    report = c.maintenance.check(scope.tenant, scope.user_id)
    assert not report.healthy
    assert any(orphan in p and "HAS_MEMORY" in p for p in report.problems)

    # Working memory nearly full: unhealthy.
    class Full:
        bytes_used, bytes_limit, headroom = 900, 1000, 0.1

    tight = MaintenanceUseCases(clock=c.clock, events=c.events, repository=c.maintenance._repo,
                                changesets=c.maintenance._changesets, weights=c.weight_policy,
                                policy=c.maintenance.policy, working_memory_stats=lambda: Full())
    other = Scope(scope.tenant, "healthy-user")
    store(c, other, "I like green tea", tier=Tier.CORE)  # a user the tenant has (check answers NOT_FOUND else)
    report = tight.check(other.tenant, other.user_id)
    assert not report.healthy and [p for p in report.problems if "working memory" in p]


def test_check_lines_name_the_pending_migrations() -> None:
    """`bmam check` says what it checked of the schema: the indexes online and the migrations not applied (a line
    of its own, "none pending" when healthy; a problem line each otherwise, which exits 1)."""
    from bmam.commands.living import check_lines
    from graph.maintenance import IndexReport

    def report(pending: list[str]) -> CheckReport:
        indexes = IndexReport(states={"memory_id": "ONLINE"}, expected=["memory_id"], missing=[], not_online=[],
                              pending_migrations=pending)
        return CheckReport(tenant="t", user_id=None, core_memories=0, unreachable_core=[], working_memory=None,
                           min_headroom=0.2, indexes=indexes,
                           problems=[f"schema migration {n} is not applied" for n in pending])

    assert check_lines(report([])) == ["healthy: tenant t", "  core memories: 0, unreachable: 0",
                                       "  indexes: 1 of 1 online", "  migrations: none pending"]
    lines = check_lines(report(["011_tiers.cypher", "data/history_unlocked"]))
    assert lines[0] == "UNHEALTHY: tenant t"
    assert "  migrations: 2 pending (011_tiers.cypher, data/history_unlocked): run `bmam migrate`" in lines
    assert "  problem: schema migration data/history_unlocked is not applied" in lines


def test_cli_check_and_maintain(container: Container, scope: Scope) -> None:
    from bmam.cli import app

    c = container
    c.memories.remember(scope.tenant, __import__("bmam.usecases.memories", fromlist=["RememberRequest"])
                        .RememberRequest(user_id=scope.user_id, text="I like green tea", type="FACTUAL"))
    runner = CliRunner()
    ok = runner.invoke(app, ["check", "--quick", "--tenant", scope.tenant])
    assert ok.exit_code == 0, ok.output
    assert "healthy" in ok.output
    assert "  migrations: none pending" in ok.output.splitlines()  # what README's CHECK row says it checks
    dry = runner.invoke(app, ["maintain", "--full", "--dry-run", "--tenant", scope.tenant, "--json"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output.strip().splitlines()[-1])["dry_run"] is True
    plain = runner.invoke(app, ["maintain", "--full", "--dry-run", "--tenant", scope.tenant])
    # no id to look up: the dry run's changeset was rolled back (`bmam changeset ID` said NOT_FOUND)
    assert plain.exit_code == 0 and "nothing kept (a dry run stores no changeset)" in plain.output
    assert "cs_" not in plain.output
    real = runner.invoke(app, ["maintain", "--rebalance", "--tenant", scope.tenant, "--json"])
    assert real.exit_code == 0, real.output
    changeset_id = json.loads(real.output.strip().splitlines()[-1])["id"]
    undo = runner.invoke(app, ["maintain", "--undo", changeset_id, "--tenant", scope.tenant])
    assert undo.exit_code == 0 and "undone" in undo.output
    again = runner.invoke(app, ["maintain", "--undo", changeset_id, "--tenant", scope.tenant])
    assert again.exit_code == 1 and "already undone" in again.output
    unknown = runner.invoke(app, ["maintain", "--undo", "cs_nope", "--tenant", scope.tenant])
    assert unknown.exit_code == 1 and "unknown changeset" in unknown.output
    both = runner.invoke(app, ["maintain", "--full", "--rebalance"])
    assert both.exit_code == 2
    # An unhealthy tenant: non-zero exit and the report says why.
    orphan = "m_" + uuid.uuid4().hex
    c.store.write("maintenance/restore_nodes", {
        "tenant": scope.tenant, "user_id": scope.user_id, "scope_token": scope_token(scope.tenant, scope.user_id),
        "nodes": [{"id": orphan, "labels": ["Memory", "Factual"], "embedding": None, "float32": False,
                   "props": {"id": orphan, "tenant": scope.tenant, "user_id": scope.user_id, "text": "orphan",
                             "tier": "core", "locked": True}}]})
    bad = runner.invoke(app, ["check", "--quick", "--tenant", scope.tenant])
    assert bad.exit_code == 1 and "UNHEALTHY" in bad.output and orphan in bad.output


def test_maintenance_over_graphql(client: BmamClient) -> None:
    user = f"mt-{uuid.uuid4().hex[:8]}"
    client.remember(user, "I like green tea")
    check = client.run_maintenance("CHECK", user_id=user)
    assert check["check"]["healthy"] is True and check["changeset"] is None
    dry = client.run_maintenance("REBALANCE", dry_run=True, user_id=user)
    assert dry["dryRun"] and dry["changeset"]["dryRun"]
    real = client.run_maintenance("FULL", user_id=user)
    changeset = real["changeset"]
    assert changeset["kind"] == "FULL" and changeset["status"] == "COMPLETE" and not changeset["undone"]
    listed = {x["id"]: x for x in client.changesets(user_id=user)}
    assert listed[changeset["id"]] == changeset  # the list shows each run whole, the users it changed too
    undone = client.undo_maintenance(changeset["id"])
    assert undone["undone"] is True
    with pytest.raises(BmamClientError) as again:
        client.undo_maintenance(changeset["id"])
    assert again.value.code == "CONFLICT" and "already undone" in again.value.message
    with pytest.raises(BmamClientError) as unknown:
        client.undo_maintenance("cs_nope")
    assert unknown.value.code == "NOT_FOUND"


def test_schedule_runs_each_job_when_due_and_starts_and_stops() -> None:
    from bmam.scheduler import MaintenanceScheduler, Schedule

    clock = FakeClock(START)
    ran: list[MaintenanceKind] = []
    scheduler = MaintenanceScheduler(job=ran.append, clock=clock, schedule=Schedule(tick_s=0.01))
    scheduler.start()
    assert scheduler.running
    scheduler.start()  # idempotent
    scheduler.stop()
    assert not scheduler.running
    assert scheduler.tick() == []  # nothing due right after start
    clock.advance(timedelta(days=1))
    assert scheduler.tick() == [MaintenanceKind.DECAY, MaintenanceKind.CHECK]
    clock.advance(timedelta(days=6))
    assert scheduler.tick() == [MaintenanceKind.REBALANCE, MaintenanceKind.DECAY, MaintenanceKind.CHECK]
    clock.advance(timedelta(days=23))
    assert MaintenanceKind.FULL in scheduler.tick()
    assert ran.count(MaintenanceKind.CHECK) == 3 and ran.count(MaintenanceKind.FULL) == 1

    def failing(kind: MaintenanceKind) -> None:
        raise RuntimeError("store down")

    broken = MaintenanceScheduler(job=failing, clock=clock, schedule=Schedule(run_at_start=True))
    assert broken.tick() == []  # logged, retried at the next tick
    assert broken.last_run == {}


def test_a_restart_after_a_timed_out_stop_never_runs_two_jobs_at_once() -> None:
    """stop() whose join times out while a job runs, then start(): the old loop ends after its job, and
    no two jobs ever run at the same time."""
    import threading
    import time

    from bmam.scheduler import MaintenanceScheduler, Schedule

    running: list[int] = []
    overlaps: list[MaintenanceKind] = []
    started: list[int] = []  # the thread of every job begun
    guard = threading.Lock()
    first_job = threading.Event()

    def slow(kind: MaintenanceKind) -> None:
        with guard:
            running.append(threading.get_ident())
            started.append(threading.get_ident())
            if len(running) > 1:
                overlaps.append(kind)
        first_job.set()
        time.sleep(0.2)
        with guard:
            running.remove(threading.get_ident())

    every_tick = Schedule(tick_s=0.02, run_at_start=True, check_every=timedelta(0), rebalance_every=timedelta(0),
                          full_every=timedelta(0))
    scheduler = MaintenanceScheduler(job=slow, clock=FakeClock(START), schedule=every_tick)
    scheduler.start()
    assert first_job.wait(30)  # a job is running (waited for, not slept for: the machine may be slow)
    old_loop = started[0]
    scheduler.stop(timeout_s=0.01)  # gives up waiting: that job goes on
    scheduler.start()
    time.sleep(1.0)
    deadline = time.monotonic() + 30  # a slow machine: wait (bounded) for the new loop's first job
    while not [t for t in started if t != old_loop] and time.monotonic() < deadline:
        time.sleep(0.05)
    loops = [t for t in threading.enumerate() if t.name == "bmam-maintenance"]
    scheduler.stop(timeout_s=5)
    assert overlaps == [] and len(loops) == 1
    # the new loop did run jobs meanwhile (else "no overlap" would hold trivially)
    assert [t for t in started if t != old_loop]


def test_the_container_builds_a_schedule_that_is_off_by_default(container: Container) -> None:
    assert container.settings.maintenance.schedule is False
    scheduler = container.scheduler
    assert not scheduler.running
    assert scheduler.schedule.rebalance_every == timedelta(days=7)


# ----- undo after later changes (by the user, recall, another run) -----------------------------------------


def refusal(c: Container, scope: Scope, changeset_id: str) -> str:
    """Undo must refuse (CONFLICT) and change nothing of the user's graph; returns what it said."""
    unchanged = snapshot(c, scope)
    with pytest.raises(Conflict) as refused:
        c.maintenance.undo(scope.tenant, changeset_id)
    assert snapshot(c, scope) == unchanged
    return refused.value.message


def near_duplicates(c: Container, seed: int) -> tuple[list[float], list[float]]:
    """Two unit vectors with cosine ~0.99 (near-duplicates for any embedding model's merge line)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=c.vector_dimensions)
    b = a + rng.normal(size=c.vector_dimensions) * 0.005
    return [float(x) for x in a / np.linalg.norm(a)], [float(x) for x in b / np.linalg.norm(b)]


def test_undo_refuses_to_touch_a_memory_the_user_locked_since(living: tuple[Container, FakeClock],
                                                              scope: Scope) -> None:
    c, clock = living
    m = store(c, scope, "I live in Chengdu and love hot pot", passive=0.8)
    clock.advance(timedelta(days=14))
    run = c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id).changeset
    assert run is not None and run.decayed == 1
    clock.advance(timedelta(hours=1))
    c.tiers.lock(scope.tenant, scope.user_id, m.id)
    message = refusal(c, scope, run.id)  # still core, locked, and as the run left its weight
    assert m.id in message and "locked" in message
    again = c.maintenance.changeset(scope.tenant, run.id)
    assert again is not None and not again.undone
    # Unlocked by the user, the memory is the system's again: undo runs. Locking brought its weight to its own
    # time (a locked memory does not decay), a decay after the run's: decay is path independent, so the run no
    # longer shows in the memory and undo leaves its weight as the lock and unlock left it.
    c.tiers.unlock(scope.tenant, scope.user_id, m.id)
    unlocked = get(c, scope, m.id)
    assert unlocked is not None and unlocked.weight.passive < m.weight.passive
    assert c.maintenance.undo(scope.tenant, run.id).undone
    got = get(c, scope, m.id)
    assert got is not None and got.tier is Tier.MID and not got.locked
    assert got.weight == unlocked.weight


def test_undo_keeps_later_feedback(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    # A decay run, then the user's LIKE: feedback decays the memory to its own time first, and decay is
    # path independent, so the run no longer shows in the memory: undo leaves it (and the LIKE) as it is.
    faded = store(c, scope, "I am allergic to peanuts", passive=0.6, active=0.0)
    clock.advance(timedelta(days=14))
    decay_run = c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id).changeset
    assert decay_run is not None and decay_run.decayed == 1
    clock.advance(timedelta(hours=1))
    liked = c.feedback.feedback(scope.tenant, scope.user_id, faded.id, "LIKE")
    assert liked.weight.active == pytest.approx(0.5)
    with_like = snapshot(c, scope)
    assert c.maintenance.undo(scope.tenant, decay_run.id).undone
    assert snapshot(c, scope) == with_like

    # A damp (not a decay) then a LIKE: undo would overwrite the LIKE, so it refuses and changes nothing.
    heavy = store(c, scope, "I run 10 km every morning", passive=1.0, active=1.0)
    damp_run = c.maintenance.run(scope.tenant, "REBALANCE", user_id=scope.user_id).changeset
    assert damp_run is not None and damp_run.damped == [heavy.id]
    clock.advance(timedelta(hours=1))
    c.feedback.feedback(scope.tenant, scope.user_id, heavy.id, "LIKE")
    message = refusal(c, scope, damp_run.id)
    assert heavy.id in message and "feedback" in message


def test_undo_never_brings_back_a_memory_forgotten_since(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    a, b = near_duplicates(c, 5)
    survivor = store(c, scope, "我现在住在成都", passive=0.9, active=0.6, embedding=a)
    loser = store(c, scope, "我住在成都", passive=0.3, embedding=b)
    clock.advance(timedelta(days=1))
    run = c.maintenance.run(scope.tenant, "FULL", user_id=scope.user_id).changeset
    assert run is not None
    assert [(m.survivor_id, m.merged_ids) for m in run.merged] == [(survivor.id, [loser.id])]
    clock.advance(timedelta(hours=1))
    c.memories.forget(scope.tenant, scope.user_id, survivor.id)
    message = refusal(c, scope, run.id)
    assert survivor.id in message and "forgotten" in message
    assert get(c, scope, survivor.id) is None and get(c, scope, loser.id) is None
    # Nor does the store keep what was forgotten in the run's before-images (the merged-away one's text too).
    from tests.ops_support import store_rows

    kept = store_rows(c, "MATCH (e:ChangeEntry) WHERE e.tenant = $t AND e.user_id = $u RETURN e.memory_id AS id",
                      t=scope.tenant, u=scope.user_id)
    assert kept == []


def test_forgetting_one_users_memory_leaves_a_tenant_wide_run_undoable_for_the_others(
        living: tuple[Container, FakeClock], tenant: str) -> None:
    """A run over the whole tenant is every user's: one user forgetting a memory it merged drops that user's part
    of the run (as forgetUser does), and the run stays undoable for the others."""
    from tests.ops_support import store_rows

    c, clock = living
    alice, bob = Scope(tenant, "alice"), Scope(tenant, "bob")
    made: dict[str, tuple[Memory, Memory]] = {}
    for i, who in enumerate((alice, bob)):
        a, b = near_duplicates(c, 20 + i)
        made[who.user_id] = (store(c, who, "我现在住在成都", passive=0.9, active=0.6, embedding=a),
                             store(c, who, "我住在成都", passive=0.3, embedding=b))
    bob_before = snapshot(c, bob)
    clock.advance(timedelta(days=1))
    run = c.maintenance.run(tenant, "FULL").changeset
    assert run is not None and run.user_id is None and sorted(run.users) == ["alice", "bob"]
    assert sorted(m.survivor_id for m in run.merged) == sorted(s.id for s, _ in made.values())
    clock.advance(timedelta(hours=1))
    survivor, loser = made["alice"]
    c.memories.forget(tenant, "alice", survivor.id)
    alice_now = snapshot(c, alice)

    assert c.maintenance.undo(tenant, run.id).undone
    assert snapshot(c, bob) == bob_before  # bob's merge undone exactly
    assert snapshot(c, alice) == alice_now  # nothing of alice's comes back, the merged-away text included
    assert get(c, alice, survivor.id) is None and get(c, alice, loser.id) is None
    kept = store_rows(c, "MATCH (e:ChangeEntry) WHERE e.tenant = $t AND e.user_id = $u RETURN e.memory_id AS id",
                      t=tenant, u="alice")
    assert kept == []


def test_forget_keeps_an_entity_a_runs_undo_needs(living: tuple[Container, FakeClock], scope: Scope) -> None:
    """An entity left with no relationship by a forget is kept while a run's kept before-image names it: undoing
    that run re-creates a purged memory's triple there."""
    from graph.triples import TripleRepository

    c, clock = living
    triples = TripleRepository(c.store)
    core = store(c, scope, "My daughter is called Mia", tier=Tier.CORE)  # locked: no run touches it
    faint = store(c, scope, "Mia had a cold on Tuesday", passive=0.0, active=0.0, preset_kind=PresetKind.TEMPORARY)
    for m, predicate in ((core, "daughter"), (faint, "had_cold")):
        triples.add(scope, memory_id=m.id, subject="user", subject_kind="person", predicate=predicate,
                    object_="Mia", object_kind="person", polarity=1, now=clock.now())
    clock.advance(timedelta(days=1))
    run = c.maintenance.run(scope.tenant, "FULL", user_id=scope.user_id).changeset
    assert run is not None and run.purged == [faint.id]
    c.memories.forget(scope.tenant, scope.user_id, core.id, confirm=True)

    assert c.maintenance.undo(scope.tenant, run.id).undone
    restored = c.memories.triples(scope.tenant, scope.user_id, faint.id)
    assert [(t.subject.name, t.predicate, t.object.name) for t in restored] == [("user", "had_cold", "Mia")]


def test_a_later_recall_does_not_block_undoing_a_decay(living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    recalled = store(c, scope, "My sister lives in Hangzhou", passive=0.7)
    untouched = store(c, scope, "I have a blue umbrella", passive=0.4)
    clock.advance(timedelta(days=21))
    run = c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id).changeset
    assert run is not None and run.decayed == 2
    clock.advance(timedelta(hours=2))
    c.feedback.recalled(scope, [recalled.id])  # decays to now, then passive + 0.1, recall_count + 1
    after_recall = get(c, scope, recalled.id)
    assert after_recall is not None and after_recall.recall_count == 1
    assert c.maintenance.undo(scope.tenant, run.id).undone
    # The recalled memory stays as the recall left it (the run's decay is already part of it) ...
    assert get(c, scope, recalled.id) == after_recall
    # ... and the one nobody touched goes back to its before-image.
    assert get(c, scope, untouched.id) == untouched


def test_concurrent_changesets_get_distinct_seqs(living: tuple[Container, FakeClock], tenant: str) -> None:
    import threading

    c, clock = living
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def create(i: int) -> None:
        try:
            barrier.wait()
            c.maintenance._changesets.create(changeset_id=f"cs_{uuid.uuid4().hex}", tenant=tenant, user_id=None,
                                             kind=MaintenanceKind.DECAY, now=clock.now())
        except BaseException as exc:  # reported below: a thread's exception is otherwise lost
            errors.append(exc)

    for _ in range(3):
        threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        barrier.reset()
    assert not errors
    seqs = sorted(cs.seq for cs in c.maintenance.changesets(tenant, first=100))
    assert seqs == list(range(1, 25))


def test_undo_of_the_earlier_of_two_interleaved_runs_is_refused_while_the_later_stands(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    heavy = store(c, scope, "I run 10 km every morning", passive=1.0, active=1.0)
    clock.advance(timedelta(hours=1))
    now = clock.now()
    changesets = c.maintenance._changesets
    # Two runs started together: REBALANCE opens its changeset first, DECAY second, but DECAY's user
    # transaction commits first; REBALANCE then damps what DECAY left.
    rebalance, decay = "cs_" + uuid.uuid4().hex, "cs_" + uuid.uuid4().hex
    changesets.create(changeset_id=rebalance, tenant=scope.tenant, user_id=scope.user_id,
                      kind=MaintenanceKind.REBALANCE, now=now)
    changesets.create(changeset_id=decay, tenant=scope.tenant, user_id=scope.user_id, kind=MaintenanceKind.DECAY,
                      now=now)
    for changeset_id, kind in ((decay, MaintenanceKind.DECAY), (rebalance, MaintenanceKind.REBALANCE)):
        c.maintenance._run_user(scope, kind, changeset_id=changeset_id, run_user_id=scope.user_id, dry_run=False,
                                now=now)
        changesets.finish(changeset_id=changeset_id, tenant=scope.tenant, run_user_id=scope.user_id,
                          indexes_rebuilt=[], now=now)
    first, second = changesets.get(scope.tenant, decay), changesets.get(scope.tenant, rebalance)
    assert first is not None and second is not None and second.seq < first.seq
    assert first.decayed == 1 and second.damped == [heavy.id]
    message = refusal(c, scope, decay)  # the damp stands
    assert rebalance in message and heavy.id in message
    assert c.maintenance.undo(scope.tenant, rebalance).undone
    assert c.maintenance.undo(scope.tenant, decay).undone
    assert get(c, scope, heavy.id) == heavy


def test_a_changeset_without_after_images_is_refused_clearly(living: tuple[Container, FakeClock],
                                                             scope: Scope) -> None:
    from graph.changesets import Entry

    c, clock = living
    m = store(c, scope, "I like green tea", passive=0.5)
    changesets = c.maintenance._changesets
    old = "cs_" + uuid.uuid4().hex
    changesets.create(changeset_id=old, tenant=scope.tenant, user_id=scope.user_id, kind=MaintenanceKind.DECAY,
                      now=clock.now())
    # What the code before after-images wrote: the before-image only.
    legacy = Entry(memory_id=m.id, op="props", reasons=["decay"], props={"id": m.id, "passive": 0.9})
    c.maintenance_store.write_tx(lambda tx: changesets.write_entries(
        tx, changeset_id=old, tenant=scope.tenant, user_id=scope.user_id, entries=[legacy], now=clock.now()))
    assert "after-image" in refusal(c, scope, old)


def test_undo_keeps_relationships_formed_since_and_refuses_when_a_carried_one_changed(
        living: tuple[Container, FakeClock], scope: Scope) -> None:
    c, clock = living
    a, b = near_duplicates(c, 9)
    rng = np.random.default_rng(10)

    def other() -> list[float]:
        v = rng.normal(size=c.vector_dimensions)
        return [float(x) for x in v / np.linalg.norm(v)]

    survivor = store(c, scope, "I moved to Chengdu", passive=0.9, active=0.6, embedding=a)
    loser = store(c, scope, "I live in Chengdu now", passive=0.3, embedding=b)
    friend = store(c, scope, "My friend Li lives in Chengdu", embedding=other())
    later = store(c, scope, "I bought a bike", embedding=other())
    faint = store(c, scope, "It rained on Tuesday", passive=0.0, active=0.0, preset_kind=PresetKind.TEMPORARY,
                  embedding=other())
    c.memories.associate(scope.tenant, scope.user_id, loser.id, friend.id, 0.5)
    clock.advance(timedelta(days=1))
    first = c.maintenance.run(scope.tenant, "FULL", user_id=scope.user_id).changeset
    assert first is not None and first.purged == [faint.id]
    assert [(m.survivor_id, m.merged_ids) for m in first.merged] == [(survivor.id, [loser.id])]
    clock.advance(timedelta(hours=1))
    c.memories.associate(scope.tenant, scope.user_id, survivor.id, later.id, 0.7)  # formed since: kept

    assert c.maintenance.undo(scope.tenant, first.id).undone
    assert get(c, scope, loser.id) == loser and get(c, scope, faint.id) == faint
    assert sorted(x.memory_b if x.memory_a == survivor.id else x.memory_a
                  for x in c.memories.associations(scope.tenant, scope.user_id, survivor.id)) == [later.id]
    assert [x.memory_b if x.memory_a == loser.id else x.memory_a
            for x in c.memories.associations(scope.tenant, scope.user_id, loser.id)] == [friend.id]

    # Again; then the user changes the association the run carried from the loser to the survivor, and a
    # memory the run purged is stored again under its id: undo refuses, naming both, and changes nothing.
    clock.advance(timedelta(days=1))
    second = c.maintenance.run(scope.tenant, "FULL", user_id=scope.user_id).changeset
    assert second is not None and second.purged == [faint.id] and second.merged
    c.memories.associate(scope.tenant, scope.user_id, survivor.id, friend.id, 0.9)
    store_again = NewMemory(id=faint.id, text=faint.text, type=MemoryType.FACTUAL, embedding=other(), tier=Tier.TEMP,
                            preset_kind=PresetKind.DEFAULT, preset=0.5)
    c.memory_repository.remember(scope, store_again, now=clock.now(), passive=0.5, active=0.5)
    message = refusal(c, scope, second.id)
    assert survivor.id in message and "ASSOCIATED" in message and faint.id in message and "exists again" in message


def test_changesets_of_one_instant_list_newest_first_by_seq(living: tuple[Container, FakeClock],
                                                             scope: Scope) -> None:
    c, _ = living  # the clock does not move: every run has the same created_at
    store(c, scope, "I live in Chengdu", passive=0.8)
    runs = [c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id).changeset for _ in range(4)]
    listed = c.maintenance.changesets(scope.tenant, user_id=scope.user_id, first=10)
    assert [x.id for x in listed] == [r.id for r in reversed(runs) if r is not None]
    assert [x.seq for x in listed] == sorted((x.seq for x in listed), reverse=True)


def test_full_never_purges_the_users_lasting_knowledge(living: tuple[Container, FakeClock], scope: Scope) -> None:
    """A liking is an emotional memory: it fades by the day and, never recalled, fell under the purge line ~10 days
    after it was said, while the tier sweep keeps it as the user's lasting knowledge (audit of session 51). A
    memory stating a live triple of a durable predicate is never purged; an emotional state still is."""
    c, clock = living

    def said(text: str) -> Memory:
        [m] = c.ingest.ingest_turn(scope.tenant, TurnInput(user_id=scope.user_id, session_id="s1", speaker="user",
                                                           text=text, at=clock.now())).memories
        return m

    liking = said("I absolutely love spicy Sichuan food.")
    mood = said("I feel so miserable and lonely tonight.")
    assert liking.type is MemoryType.EMOTIONAL and mood.type is MemoryType.EMOTIONAL
    assert [t.predicate for t in c.memories.triples(scope.tenant, scope.user_id, liking.id)] == ["likes"]
    clock.advance(timedelta(days=20))
    result = c.maintenance.run(scope.tenant, MaintenanceKind.FULL, dry_run=True, user_id=scope.user_id)
    assert result.changeset is not None
    assert mood.id in result.changeset.purged and liking.id not in result.changeset.purged
