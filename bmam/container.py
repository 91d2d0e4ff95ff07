"""The composition root: builds the store, repositories, embedder and use-cases from Settings."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from bmam.clock import Clock, SystemClock
from bmam.events import EventBus
from bmam.neo4j_server import LocalNeo4j
from bmam.settings import ModelCalibration, Settings
from bmam.usecases.memories import MemoryUseCases
from graph.associations import AssociationRepository
from graph.errors import Conflict as ConflictError
from graph.ids import log_name
from graph.memories import MemoryRepository, WeightShares
from graph.migrations import MigrationReport, apply_schema, missing_migrations
from graph.store import GraphStore, StoreConfig
from graph.triples import TripleRepository
from ingest.embedding import Embedder, LazyEmbedder, embedding_dim

if TYPE_CHECKING:
    from bmam.event_relay import EventRelay
    from bmam.scheduler import MaintenanceScheduler
    from bmam.usecases.associations import AssociationForming
    from bmam.usecases.conflicts import ConflictLines, ConflictUseCases
    from bmam.usecases.corrections import CorrectionUseCases
    from bmam.usecases.erasure import ErasureUseCases
    from bmam.usecases.export import ExportUseCases
    from bmam.usecases.feedback import FeedbackUseCases
    from bmam.usecases.hooks import StoredMemoryHook
    from bmam.usecases.ingest import IngestUseCases
    from bmam.usecases.keys import KeyUseCases
    from bmam.usecases.maintenance import MaintenanceUseCases
    from bmam.usecases.nested import NestedUseCases
    from bmam.usecases.recall import RecallUseCases
    from bmam.usecases.remains import RemainsUseCases
    from bmam.usecases.sessions import SessionUseCases
    from bmam.usecases.tiers import TierUseCases
    from bmam.usecases.users import UserUseCases
    from bmam.usecases.warm_up import PlanWarmUp
    from graph.conflicts import Conflict
    from graph.model import Scope
    from graph.vector_cache import VectorCache
    from ingest.repetition import RepetitionParams, RepetitionTracker
    from ingest.weights import WeightPolicy
    from ingest.working_memory import WorkingMemory

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
    def event_relay(self) -> EventRelay:
        """Carries this process's memory events to the others and theirs to its subscribers, once started
        (the serving process starts it when settings.deployment.events is "shared")."""
        from bmam.event_relay import EventRelay
        from graph.events import EventLog

        d = self.settings.deployment
        return EventRelay(self.events, EventLog(self.store), now=self.clock.now, poll_s=d.event_poll_s,
                          keep_s=d.event_keep_s)

    def start_event_relay(self, *, listen: bool) -> EventRelay | None:
        """Start the relay when settings.deployment.events is "shared" (None when "local"): listen=True for a
        serving process (its subscribers hear the others), False for one nobody subscribes to (the CLI, MCP)."""
        if self.settings.deployment.events != "shared":
            return None
        self.event_relay.start(listen=listen)
        self.erasure.add_hook(self.event_relay.forget)  # forgetUser: the user's events not yet logged go too
        return self.event_relay

    @cached_property
    def store(self) -> GraphStore:
        from bmam.timing import record_neo4j_query

        n = self.settings.neo4j
        store = GraphStore(
            StoreConfig(
                uri=n.bolt_uri,
                user=n.user,
                password=n.password,
                database=n.database,
                tx_timeout_s=n.tx_timeout_s,
                max_pool_size=n.max_pool_size,
                retry_time_s=n.retry_time_s,
            )
        )
        store.timer.listeners.append(record_neo4j_query)  # per-request Neo4j time (X-Bmam-Timings)
        return store

    @property
    def vector_dimensions(self) -> int:
        return embedding_dim(self.settings.embedding.model)

    @cached_property
    def embedder(self) -> Embedder:
        """The embedding model, loaded at its first use (load_embedding_model loads it now). Timed: per-request
        embedding time (X-Bmam-Timings) and the /metrics histogram."""
        from bmam.timing import TimedEmbedder

        return TimedEmbedder(self._lazy_embedder)

    @cached_property
    def _lazy_embedder(self) -> LazyEmbedder:
        e = self.settings.embedding
        return LazyEmbedder(e.model, threads=e.threads, batch_size=e.batch_size)

    @property
    def embedding_model_loaded(self) -> bool:
        return self._lazy_embedder.loaded

    def load_embedding_model(self) -> Embedder:
        """Load the embedding model now (a server before its first request, not during it); the embedder."""
        self._lazy_embedder.load()
        return self.embedder

    @cached_property
    def memory_repository(self) -> MemoryRepository:
        w = self.settings.weights
        shares = WeightShares(passive=w.passive_share, active=w.active_share, preset=w.preset_share)
        return MemoryRepository(self.store, shares, self.vector_dimensions)

    @cached_property
    def memories(self) -> MemoryUseCases:
        from graph.conflicts import ConflictRepository

        return MemoryUseCases(
            settings=self.settings,
            clock=self.clock,
            embedder=self.embedder,
            memories=self.memory_repository,
            triples=TripleRepository(self.store),
            associations=AssociationRepository(self.store),
            events=self.events,
            tiers=self.tiers,
            store=self.store,
            hooks=self.stored_memory_hooks,
            embedding_of=ConflictRepository(self.store).embedding,  # addTriple's hooks: the stored embedding
            drop_cached=self.vector_cache.forget,  # forget: no copy of the memory's text left in the recall cache
        )

    @cached_property
    def keys(self) -> KeyUseCases:
        from bmam.usecases.keys import KeyUseCases
        from graph.keys import KeyRepository

        return KeyUseCases(repository=KeyRepository(self.store), clock=self.clock,
                           cache_s=self.settings.api.key_cache_s)

    @cached_property
    def erasure(self) -> ErasureUseCases:
        from bmam.usecases.erasure import ErasureUseCases
        from graph.erasure import ErasureRepository

        return ErasureUseCases(repository=ErasureRepository(
            self.store, timeout_s=self.settings.neo4j.erasure_tx_timeout_s), clock=self.clock, events=self.events)

    @cached_property
    def users(self) -> UserUseCases:
        from bmam.usecases.users import UserUseCases
        from graph.users import UserDirectory

        return UserUseCases(UserDirectory(self.store), max_page_size=self.settings.limits.max_page_size)

    @cached_property
    def sessions(self) -> SessionUseCases:
        """One session of a user: its turns, and forgetSession. Its hooks are added by what holds per-session state in
        the process (working memory, anti-repetition, ingest's extractor cache), when that is built."""
        from bmam.usecases.sessions import SessionUseCases
        from graph.episodes import EpisodeRepository
        from graph.erasure import ErasureRepository

        return SessionUseCases(
            episodes=EpisodeRepository(self.store, self.vector_dimensions),
            erasure=ErasureRepository(self.store, timeout_s=self.settings.neo4j.erasure_tx_timeout_s),
            # looked up when called: the memory use-cases are built only for a FORGET, never for a hook
            forget_memory=lambda tenant, user_id, memory_id: self.memories.forget(tenant, user_id, memory_id),
            clock=self.clock, max_page_size=self.settings.limits.max_page_size)

    @cached_property
    def nested(self) -> NestedUseCases:
        from bmam.usecases.nested import NestedUseCases
        from graph.nested import NestedReads

        return NestedUseCases(NestedReads(self.store))

    # ----- ingest (issue 3) -----------------------------------------------------------------

    @cached_property
    def stored_memory_hooks(self) -> list[StoredMemoryHook]:
        """Run after ingest stores a memory (conflict detection, association forming append here)."""
        # Associations form first, so a conflict settled next takes the loser's new ones off it (a correction's to
        # the winner: cypher/conflict/settle_pair).
        return [self.association_forming, self.conflicts]  # both batch-aware (bmam/usecases/hooks.py run_hooks)

    @cached_property
    def working_memory(self) -> WorkingMemory:
        from graph.episodes import EpisodeRepository
        from ingest.working_memory import Turn, WorkingMemory, eviction_target

        episodes = EpisodeRepository(self.store, self.vector_dimensions)

        def load(scope: Scope, session_id: str, n: int) -> list[Turn]:
            return [Turn(speaker=e.speaker, text=e.text, at=e.at, turn=e.turn, episode_id=e.id)
                    for e in episodes.recent(scope, session_id, n)]

        i = self.settings.ingest
        held = self._working_memory_class(WorkingMemory)  # issue 8: shared (read through) or held locally
        memory = held(load, turns_per_session=i.working_memory_turns, max_bytes=i.working_memory_max_bytes,
                      idle_ttl=timedelta(seconds=i.working_memory_idle_ttl_s), clock=self.clock.now,
                      # an eviction frees enough for the daily check's headroom line to hold afterwards
                      evict_to=eviction_target(self.settings.maintenance.min_working_memory_headroom))
        self.erasure.add_hook(memory.forget_user)  # forgetUser: the turns held here go with the episodes
        self.sessions.add_hook(memory.drop)  # forgetSession: the session's turns held here too
        return memory

    @cached_property
    def tiers(self) -> TierUseCases:
        from bmam.usecases.tiers import TierUseCases
        from graph.tiers import TierRepository
        from ingest.tier_policy import Capacities, TierRules

        t, w = self.settings.tiers, self.settings.weights
        rules = TierRules(
            capacities=Capacities(core=t.core_capacity, mid=t.mid_capacity, temp=t.temp_capacity),
            core_after_mentions=self.settings.ingest.core_after_mentions,
            mid_fallback_after=timedelta(days=t.mid_fallback_after_days),
            mid_fallback_max_weight=t.mid_fallback_max_weight,
            temp_stale_after=timedelta(days=t.temp_stale_after_days),
            temp_stale_max_weight=t.temp_stale_max_weight,
            explicit_feedback=t.explicit_feedback,
            implicit_feedback=t.implicit_feedback,
            weights=self.weight_policy,  # the deployment's decay: sweeps and eviction judge weights as of now
        )
        shares = WeightShares(passive=w.passive_share, active=w.active_share, preset=w.preset_share)
        return TierUseCases(store=self.store, tiers=TierRepository(shares), rules=rules, clock=self.clock,
                            events=self.events)

    @cached_property
    def ingest(self) -> IngestUseCases:
        from bmam.usecases.ingest import CachingExtractor, IngestUseCases
        from graph.episodes import EpisodeRepository
        from graph.tiers import TierRepository
        from ingest.classify import RuleClassifier, TypeClassifier, load_type_model
        from ingest.extract import RuleTripleExtractor

        extractor = CachingExtractor(RuleTripleExtractor())
        self.erasure.add_hook(extractor.forget_user)  # forgetUser: the raw turns it keeps go with the episodes
        # forgetSession: it keys turn texts by user, not session, so the user's go (a cache: re-extracted when met)
        self.sessions.add_hook(lambda scope, _session: extractor.forget_user(scope))
        model = load_type_model(self.settings.ingest.type_model_path, embedder=self.settings.embedding.model)
        classifier = TypeClassifier(RuleClassifier(extractor), model, None)
        w = self.settings.weights
        shares = WeightShares(passive=w.passive_share, active=w.active_share, preset=w.preset_share)
        return IngestUseCases(
            settings=self.settings, clock=self.clock, embedder=self.embedder, classifier=classifier,
            extractor=extractor, store=self.store,
            episodes=EpisodeRepository(self.store, self.vector_dimensions, self.vector_cache),
            memories=self.memory_repository,
            triples=TripleRepository(self.store), tiers=TierRepository(shares), tier_cases=self.tiers,
            working_memory=self.working_memory, hooks=self.stored_memory_hooks, events=self.events,
        )

    # ----- recall (issue 4) -----------------------------------------------------------------

    @cached_property
    def association_forming(self) -> AssociationForming:
        from bmam.usecases.associations import AssociationForming
        from graph.related import RelatedRepository

        return AssociationForming(related=RelatedRepository(self.store), settings=self.settings.recall,
                                  clock=self.clock)

    @cached_property
    def vector_cache(self) -> VectorCache:
        """This process's copy of its users' memory embeddings (graph/vector_cache.py), for every exact scan."""
        from graph.vector_cache import VectorCache

        r = self.settings.recall
        cache = VectorCache(self.vector_dimensions, max_bytes=r.vector_cache_mb * 2**20, store=self.store,
                            background_min=r.vector_cache_background_min,
                            projection_min_rows=r.vector_cache_projection_min)
        self.erasure.add_hook(cache.forget)
        return cache

    @cached_property
    def recall(self) -> RecallUseCases:
        from bmam.usecases.recall import RecallUseCases, repetition_params
        from graph.recall import RecallRepository
        from graph.related import RelatedRepository
        from ingest.repetition import RepetitionTracker

        repetition = self._repetition_tracker(RepetitionTracker, repetition_params(self.settings))  # issue 8

        def forget_sessions(scope: Scope) -> None:  # forgetUser drops the user's anti-repetition state too
            repetition.forget_user(scope.tenant, scope.user_id)

        def forget_session(scope: Scope, session_id: str) -> None:
            # forgetSession: what recall surfaced in it (the shared kind's stored history goes with its nodes)
            repetition.forget_session((scope.tenant, scope.user_id, session_id))

        self.erasure.add_hook(forget_sessions)
        self.sessions.add_hook(forget_session)
        return RecallUseCases(
            settings=self.settings, clock=self.clock, embedder=self.embedder,
            repository=RecallRepository(self.store, self.vector_dimensions, self.vector_cache),
            related=RelatedRepository(self.store),
            repetition=repetition, turn_source=self.working_memory.recent, weight_policy=self.weight_policy,
        )

    @cached_property
    def plan_warm_up(self) -> PlanWarmUp:
        from bmam.usecases.warm_up import PlanWarmUp

        return PlanWarmUp(self.recall, max_depth=self.settings.limits.max_traversal_depth)

    # ----- living memory (issue 5) ----------------------------------------------------------

    @cached_property
    def weight_policy(self) -> WeightPolicy:
        from ingest.weights import SCENARIO_FACTORS, Scenario, WeightPolicy

        w, lv = self.settings.weights, self.settings.living
        factor = lv.emotional_daily_factor or SCENARIO_FACTORS[Scenario(lv.scenario)]
        return WeightPolicy(
            passive_share=w.passive_share, active_share=w.active_share, preset_share=w.preset_share,
            recall_boost=lv.recall_boost, weekly_passive_decay=lv.weekly_passive_decay,
            explicit_feedback=lv.explicit_feedback, implicit_feedback=lv.implicit_feedback,
            emotional_daily_factor=factor, winner_bonus=lv.winner_bonus, loser_penalty=lv.loser_penalty,
            preset_default=w.preset_default, preset_safety=w.preset_safety, preset_temporary=w.preset_temporary,
        )

    @cached_property
    def feedback(self) -> FeedbackUseCases:
        from bmam.usecases.feedback import FeedbackUseCases
        from graph.weights import WeightRepository

        return FeedbackUseCases(clock=self.clock, weights=WeightRepository(self.store), policy=self.weight_policy)

    @property
    def measured_lines(self) -> ModelCalibration | None:
        """The embedding model's measured cosine lines (settings.recall.calibration), None for a model not listed:
        the conflict and merge rules then take their own fallbacks, not another model's lines."""
        return self.settings.recall.calibration.get(self.settings.embedding.model)

    @cached_property
    def conflict_lines(self) -> ConflictLines:
        """The conflict rules' cosine lines, the negation one shared by ingest's conflict checks and maintenance's."""
        from bmam.usecases.conflicts import conflict_lines

        return conflict_lines(self.measured_lines, self.settings.living)

    @property
    def conflict_similarity(self) -> float:
        return self.conflict_lines.negation

    @cached_property
    def conflicts(self) -> ConflictUseCases:
        from bmam.usecases.conflicts import ConflictSettings, ConflictUseCases, TranslatedValue
        from graph.conflicts import ConflictRepository, ConflictStrategy

        lv, lines = self.settings.living, self.conflict_lines
        conflicts = ConflictUseCases(
            clock=self.clock, events=self.events, conflicts=ConflictRepository(self.store, self.vector_cache),
            memories=self.memory_repository, triples=TripleRepository(self.store), policy=self.weight_policy,
            settings=ConflictSettings(strategy=ConflictStrategy(lv.conflict_strategy),
                                      similarity_threshold=lines.negation, favourite_threshold=lines.favourite,
                                      cancel_threshold=lines.cancel,
                                      revision_threshold=self.settings.ingest.duplicate_similarity,
                                      max_page=self.settings.limits.max_page_size),
            translated=TranslatedValue(self.embedder, lines.translated) if lines.translated is not None else None,
        )
        # a loser's uncontested facts live on (looked up when called: the remains run the hooks, which hold this)
        conflicts.superseded.append(lambda scope, settled: self.remains.on_superseded(scope, settled))
        conflicts.resolved_by_user.append(self._winner_takes_core)
        return conflicts

    def _winner_takes_core(self, scope: Scope, before: Conflict, settled: Conflict) -> None:
        """The user chose a memory over a locked core one (a conflict held for review): it takes the loser's place,
        in core and locked, as a correction does (it stayed in temp and went stale: the user was left no home). The
        loser, now history, unlocked and out of core, takes no room there; should core be full all the same, the
        winner stays where it is (never stale: ingest/tier_policy.py) and the refusal is logged. Whether the loser
        was locked is read from the conflict as it was before the settlement (which unlocks the loser)."""
        memories = {m.id: m for m in (before.new_memory, before.old_memory) if m is not None}
        loser, winner = memories.get(settled.loser_id or ""), memories.get(settled.winner_id or "")
        if loser is None or winner is None or not loser.locked or winner.locked:
            return
        try:
            self.tiers.lock(scope.tenant, scope.user_id, winner.id)
        except ConflictError as exc:
            log.warning("winner %s of %s stays in %s: %s", winner.id, log_name(scope), winner.tier.value, exc)

    @cached_property
    def remains(self) -> RemainsUseCases:
        from bmam.usecases.remains import RemainsSettings, RemainsUseCases
        from graph.remains import RemainsRepository
        from ingest.extract import RuleTripleExtractor

        return RemainsUseCases(
            clock=self.clock, embedder=self.embedder, extractor=RuleTripleExtractor(),
            remains=RemainsRepository(self.store),
            memories=self.memory_repository, triples=TripleRepository(self.store), tiers=self.tiers,
            events=self.events, store=self.store, hooks=self.stored_memory_hooks,
            settings=RemainsSettings(loser_penalty=self.weight_policy.loser_penalty),
        )

    @cached_property
    def corrections(self) -> CorrectionUseCases:
        from bmam.usecases.corrections import CorrectionUseCases
        from graph.conflicts import ConflictRepository
        from graph.remains import RemainsRepository
        from ingest.extract import RuleTripleExtractor

        return CorrectionUseCases(
            clock=self.clock, embedder=self.embedder, extractor=RuleTripleExtractor(),
            memories=self.memory_repository, triples=TripleRepository(self.store),
            conflicts=ConflictRepository(self.store, self.vector_cache), remains=RemainsRepository(self.store),
            tiers=self.tiers, events=self.events, store=self.store, hooks=self.stored_memory_hooks,
            policy=self.weight_policy, max_text_bytes=self.settings.limits.max_text_bytes,
        )

    @cached_property
    def maintenance(self) -> MaintenanceUseCases:
        from bmam.usecases.maintenance import MaintenancePolicy, MaintenanceUseCases, merge_similarity_for
        from graph.changesets import ChangesetRepository
        from graph.maintenance import MaintenanceRepository
        from ingest.weights import RebalancePolicy

        m = self.settings.maintenance
        policy = MaintenancePolicy(
            purge_below=m.purge_below,
            merge_similarity=merge_similarity_for(self.measured_lines, m.merge_similarity),
            conflict_similarity=self.conflict_similarity,
            min_headroom=m.min_working_memory_headroom, plan_page=m.plan_page,
            rebalance=RebalancePolicy(
                damp_above=m.damp_above, damp_by=m.damp_by, lift_active_min=m.lift_active_min,
                lift_mentions_min=m.lift_mentions_min, lift_max_recalls=m.lift_max_recalls, lift_below=m.lift_below,
                lift_passive_floor=m.lift_passive_floor),
        )
        changesets = ChangesetRepository(self.maintenance_store)
        return MaintenanceUseCases(
            clock=self.clock, events=self.events, changesets=changesets, weights=self.weight_policy, policy=policy,
            repository=MaintenanceRepository(self.maintenance_store, changesets, self.vector_dimensions),
            working_memory_stats=lambda: self.working_memory.stats(), max_page=self.settings.limits.max_page_size,
        )

    @cached_property
    def maintenance_store(self) -> GraphStore:
        """Maintenance's own connection: the same database, with the long transaction timeout one user's
        maintenance (a single transaction) needs, and raw rows (graph/maintenance.py MaintenanceStore)."""
        from graph.maintenance import MaintenanceStore

        n = self.settings.neo4j
        return MaintenanceStore(StoreConfig(uri=n.bolt_uri, user=n.user, password=n.password, database=n.database,
                                      tx_timeout_s=self.settings.maintenance.tx_timeout_s,
                                      tx_timeout_setting="BMAM_MAINTENANCE__TX_TIMEOUT_S", max_pool_size=4,
                                      retry_time_s=n.retry_time_s))

    @cached_property
    def scheduler(self) -> MaintenanceScheduler:
        """The optional maintenance schedule; start() it only when settings.maintenance.schedule is on."""
        from bmam.scheduler import MaintenanceScheduler, Schedule, scheduled_job
        from graph.schedule import ScheduleRepository

        m = self.settings.maintenance
        schedule = Schedule(check_every=timedelta(hours=m.check_every_hours),
                            rebalance_every=timedelta(days=m.rebalance_every_days),
                            full_every=timedelta(days=m.full_every_days), tick_s=m.tick_seconds,
                            lease=timedelta(hours=m.lease_hours))
        return MaintenanceScheduler(job=scheduled_job(self.maintenance, self.tiers, self.remains), clock=self.clock,
                                    schedule=schedule, claims=ScheduleRepository(self.store))

    @cached_property
    def export(self) -> ExportUseCases:
        """Knowledge out (issue 7): RDF / GraphML export and RDF import."""
        from bmam.usecases.export import ExportUseCases, ImportFollowUp
        from graph.knowledge_io import KnowledgeRepository
        from graph.nested import NestedReads

        x = self.settings.export
        # an import keeps the tier capacities and runs the stored-memory hooks, as ingest does
        follow_up = ImportFollowUp(store=self.store, tiers=self.tiers, memories=self.memory_repository,
                                   nested=NestedReads(self.store), hooks=self.stored_memory_hooks, clock=self.clock)
        return ExportUseCases(
            repository=KnowledgeRepository(self.store, page_size=x.page_size, batch_size=x.import_batch_size),
            settings=x, embedder=lambda: self.embedder, follow_up=follow_up, limits=self.settings.limits,
            clock_skew=timedelta(seconds=self.settings.ingest.clock_skew_s),
        )

    # ----- operations (issue 8): session state shared by every worker and machine -----------------

    def _working_memory_class(self, local: type[WorkingMemory]) -> type[WorkingMemory]:
        """settings.deployment.session_state: "shared" reads working memory from the episodes on every
        access (ingest/shared_session.py), "local" holds it in this process."""
        if self.settings.deployment.session_state == "shared":
            from ingest.shared_session import SharedWorkingMemory

            return SharedWorkingMemory
        return local

    def _repetition_tracker(self, local: type[RepetitionTracker], params: RepetitionParams) -> RepetitionTracker:
        """Anti-repetition state: in Neo4j when shared (every worker damps what any of them surfaced)."""
        if self.settings.deployment.session_state == "shared":
            from graph.session_state import SessionStateRepository
            from ingest.shared_session import SharedRepetitionTracker, StoreSurfacedHistory

            history = StoreSurfacedHistory(SessionStateRepository(self.store), self.clock.now)
            return SharedRepetitionTracker(params, history)
        return local(params)

    def migrate(self) -> MigrationReport:
        return apply_schema(self.store, vector_dimensions=self.vector_dimensions, now=self.clock.now())

    def missing_migrations(self) -> list[str]:
        """Schema files and data steps the store has not recorded as applied."""
        return missing_migrations(self.store)

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
        if "maintenance_store" in self.__dict__:
            self.maintenance_store.close()
