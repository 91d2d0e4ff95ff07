"""Knowledge out: a user's (or a whole tenant's) knowledge as RDF (Turtle, N-Triples, JSON-LD, RDF/XML)
or as a graph for visualisation (GraphML, GEXF); an RDF export imported back into the same or another
user, or a tenant-wide one into a tenant, user by user. (The Cypher queries of cypher/inspect/ for Neo4j
Browser: graph/inspect_queries.py, and the guide and favourites built from them: bmam/usecases/inspect_guide.py.)"""

from __future__ import annotations

import io
import itertools
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bmam import validate
from bmam.clock import Clock
from bmam.settings import ExportSettings, LimitSettings
from bmam.usecases.hooks import StoredMemoryContext, StoredMemoryHook, marked_done, run_hooks
from bmam.usecases.keys import Principal, require_admin
from bmam.usecases.tiers import TierUseCases
from graph.errors import BadInput, LimitExceeded, NotFound
from graph.graph_export import GraphFormat, build_graph, write_graph
from graph.knowledge_io import IdMap, ImportReport, KnowledgeRepository
from graph.memories import MemoryRepository
from graph.model import Scope, Tier
from graph.nested import NestedReads
from graph.rdf import parse_rdf, read_export, read_exports
from graph.rdf_checks import ValueRules, check_plan
from graph.rdf_records import Chunk, ImportPlan
from graph.rdf_terms import NodeKind
from graph.rdf_writers import RdfFormat, serialize
from graph.store import GraphStore
from ingest.embedding import Embedder
from ingest.weights import Parts, final_weight

EMBED_BATCH = 256  # memory texts embedded per call during an import
HOOKS_BATCH = 256  # imported memories handed to the stored-memory hooks at once (ingest's batches are of this size)

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ImportFollowUp:
    """What an import sets off in the target user after its writes, as ingest does for the memories it stores:
    the tier capacities (core checked before anything is written; mid and temp restored afterwards, as ingest
    restores them) and the stored-memory hooks (conflicts and associations with the user's own memories).

    The hooks run only when the target user has memories of their own besides the file's: the conflicts and
    associations among the file's memories come with the file (a conflict held for review is found again under
    the same id, which the import derives as detection does; an association keeps the stronger strength), so
    into a user with nothing else they would find nothing the file does not hold, and the round trip stays exact.
    The memories are written marked pending (graph/knowledge_io.py) and the mark is cleared with the hooks'
    writes, so hooks that did not go through run again at the user's next ingest or at server start
    (IngestUseCases.resume_hooks), or when the same file is imported again."""

    store: GraphStore
    tiers: TierUseCases
    memories: MemoryRepository
    nested: NestedReads
    hooks: Sequence[StoredMemoryHook]  # the container's list: features append to it after construction
    clock: Clock

    def check_core(self, scope: Scope, plan: ImportPlan, ids: IdMap) -> None:
        """CONFLICT before any write when the file's new live core memories do not fit in the user's core
        (superseded history counts in no capacity; a memory the user already holds is not added again)."""
        adding = sum(1 for n in plan.of_kind(NodeKind.MEMORY)
                     if n.ref not in ids.existing and n.props.get("tier") == Tier.CORE.value
                     and n.props.get("valid_to") is None)
        self.tiers.check_core_room(scope, adding, what="the file brings")

    def hooks_since(self, scope: Scope, plan: ImportPlan, ids: IdMap) -> datetime | None:
        """When the memories the import creates start waiting for their hooks: now when the user holds memories
        besides the file's (already imported ones count as the file's), else None (no hooks: see the class)."""
        if not self.hooks:
            return None
        held_of_file = sum(1 for n in plan.of_kind(NodeKind.MEMORY) if n.ref in ids.existing)
        return self.clock.now() if self.memories.count(scope) > held_of_file else None

    def after_write(self, scope: Scope, report: ImportReport) -> None:
        """Restore mid and temp capacities (the least useful give way, as after an ingest: imported memories
        are not spared), then run the hooks of the file's memories still waiting for them, in batches."""
        report.capacity = [{"memory_id": c.memory_id, "from": c.from_tier.value,
                            "to": c.to_tier.value if c.to_tier is not None else None, "reason": c.reason.value}
                           for c in self.tiers.restore_capacity(scope)]
        if not self.hooks:
            return
        for start in range(0, len(report.memory_ids), HOOKS_BATCH):
            part = report.memory_ids[start:start + HOOKS_BATCH]
            pending = self.memories.hooks_pending_of(scope, part)  # an evicted memory is not among them
            if not pending:
                continue
            triples = self.nested.triples(scope, [p.memory.id for p in pending])
            contexts = [StoredMemoryContext(scope=scope, memory=p.memory, triples=triples.get(p.memory.id, []),
                                            embedding=p.embedding, episode_id=p.memory.provenance.episode_id)
                        for p in pending]
            if run_hooks(list(self.hooks), contexts, log, store=self.store, finish=marked_done(self.memories)):
                report.hooks_run += len(contexts)
            else:  # some went through (marked done), the others wait for resume_hooks
                left = len(self.memories.hooks_pending_of(scope, [c.memory.id for c in contexts]))
                report.hooks_run += len(contexts) - left
                report.hooks_left += left


@dataclass
class TenantImportReport:
    """What an import of a tenant-wide file wrote (or with dry_run would write): a report per user of the file,
    each restored into the user of the same id, in user order; and how many of the file's statements are under
    none of its users (ignored)."""

    reports: list[ImportReport] = field(default_factory=list)
    ignored: int = 0


class ExportUseCases:
    def __init__(self, *, repository: KnowledgeRepository, settings: ExportSettings,
                 embedder: Callable[[], Embedder], follow_up: ImportFollowUp,
                 limits: LimitSettings, clock_skew: timedelta) -> None:
        self._repo = repository
        self._settings = settings
        self._embedder = embedder  # loaded only when an import needs it
        self._follow_up = follow_up
        # The API's input limits (text size): an import takes what the API takes, no more.
        self._limits = limits
        self._clock_skew = clock_skew  # how far ahead of the clock a time may be, as ingest allows a turn's at

    def scope(self, tenant: str, user_id: str) -> Scope:
        return Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))

    # ----- export -------------------------------------------------------------------------------

    def chunks(self, tenant: str, user_id: str | None) -> Iterator[Chunk]:
        """One user's pages, or (user_id None) every user of the tenant, one after the other. Checked now, before
        anything is read or written: NOT_FOUND for a user with nothing stored, and for a tenant with no users (a
        mistyped --tenant gave an empty backup and exit 0)."""
        if user_id is not None:
            scope = self.scope(tenant, user_id)
            if not self._repo.has_user(scope):
                raise NotFound(f"user {scope.user_id} has nothing stored")
            return self._repo.chunks(scope)
        users = self._repo.users(tenant)
        first = next(users, None)
        if first is None:
            raise NotFound(f"tenant '{tenant}' has no users")
        return (chunk for user in itertools.chain([first], users)
                for chunk in self._repo.chunks(Scope(tenant=tenant, user_id=user)))

    def export_rdf(self, tenant: str, user_id: str | None, fmt: str | RdfFormat) -> Iterator[bytes]:
        """The document as UTF-8 pieces, streamed: the user is checked now (NOT_FOUND before anything is
        sent), then one page is read, serialized and handed on at a time."""
        rdf_format = _rdf_format(fmt)
        chunks = self.chunks(tenant, user_id)
        return (piece.encode("utf-8") for piece in serialize(chunks, rdf_format))

    def export_tenant_rdf(self, caller: Principal, fmt: str | RdfFormat) -> Iterator[bytes]:
        """Every user of the caller's tenant as one RDF document, what `bmam export --all-users` writes, streamed as
        export_rdf streams a user (GET /export.{ext}): an admin key's only (FORBIDDEN for an app key: a dump of every
        user at once is an operator's tool), RDF only (BAD_USER_INPUT for GraphML and GEXF, one user at a time),
        NOT_FOUND for a tenant with no users; all checked before anything is sent."""
        require_admin(caller, "export the whole app's knowledge at once (GET /export/{userId}.{ext} exports one "
                              "user)")
        if isinstance(fmt, str) and fmt.strip().lower().lstrip(".") in {g.value for g in GraphFormat}:
            raise BadInput("GraphML and GEXF export one user at a time: GET /export/{userId}.{ext}", field="format")
        return self.export_rdf(caller.tenant, None, fmt)

    def export_rdf_text(self, tenant: str, user_id: str, fmt: str | RdfFormat, *,
                        max_bytes: int | None = None) -> str:
        """The whole document as one string, for small exports (the GraphQL field)."""
        limit = max_bytes if max_bytes is not None else self._settings.graphql_max_bytes
        out = io.BytesIO()
        for piece in self.export_rdf(tenant, user_id, fmt):
            out.write(piece)
            if out.tell() > limit:
                raise LimitExceeded(
                    f"the export is larger than {limit} bytes; download it from GET /export/{{userId}}.{{ext}} "
                    "or with `bmam export`", field="userId")
        return out.getvalue().decode("utf-8")

    def export_graph(self, tenant: str, user_id: str, fmt: str | GraphFormat) -> bytes:
        """GraphML or GEXF of one user's subgraph (in memory: the user's graph without embeddings)."""
        graph_format = fmt if isinstance(fmt, GraphFormat) else GraphFormat.parse(fmt)
        return write_graph(build_graph(self.chunks(tenant, user_id)), graph_format)

    # ----- import -------------------------------------------------------------------------------

    def value_rules(self) -> ValueRules:
        """The API's validation of text, ids and times, which every imported value goes through too."""
        max_bytes = self._limits.max_text_bytes
        now, skew = self._follow_up.clock.now(), self._clock_skew
        weights = self._follow_up.tiers.rules.weights
        return ValueRules(text=lambda value, field: validate.text(value, field=field, max_bytes=max_bytes),
                          identifier=lambda value, field: validate.identifier(value, field=field),
                          when=lambda value, field: validate.past_moment(value, field=field, now=now, skew=skew),
                          weight_of=lambda p, a, s: final_weight(Parts(passive=p, active=a, preset=s), weights))

    def import_rdf(self, tenant: str, user_id: str, data: bytes, fmt: str | RdfFormat, *,
                   source_user: str | None = None, dry_run: bool = False) -> ImportReport:
        """Load an export into a user. The whole file is parsed and checked first (a bad file imports
        nothing and says which line, or which node and property), and so is the room in the user's core
        (CONFLICT when the file's core memories do not fit); then ids are derived for the target
        user and the nodes, triples and relationships are written in idempotent batches (a re-run
        changes nothing). Afterwards mid and temp are brought within their capacities and the stored-memory
        hooks run for the new memories (ImportFollowUp)."""
        scope = self.scope(tenant, user_id)
        plan = read_export(parse_rdf(data, _rdf_format(fmt)), source_user=source_user)
        [report] = self._import_plans([(scope, plan)], dry_run=dry_run)
        return report

    def import_rdf_all_users(self, tenant: str, data: bytes, fmt: str | RdfFormat, *,
                             dry_run: bool = False) -> TenantImportReport:
        """Load a tenant-wide export (`bmam export --all-users`) into a tenant (the file's or another): each user of
        the file into the user of the same id, as import_rdf loads one. Every user's part is checked before anything
        is written (its values, its turns against the user's, the room in the user's core): a file refused for one
        user imports nothing for any. Then the users are written one after the other, each in idempotent batches:
        importing the file again changes nothing, and an import cut between two users completes when run again."""
        plans, ignored = read_exports(parse_rdf(data, _rdf_format(fmt)))
        targets = [(self.scope(tenant, plan.source.user_id), plan) for plan in plans]
        return TenantImportReport(reports=self._import_plans(targets, dry_run=dry_run), ignored=ignored)

    def _import_plans(self, targets: Sequence[tuple[Scope, ImportPlan]], *, dry_run: bool) -> list[ImportReport]:
        """Check every plan, resolve its ids in its target user and check that user's core, all before any write;
        then (not a dry run) write each plan in turn, with its follow-up."""
        rules = self.value_rules()
        for _, plan in targets:
            check_plan(plan, rules)
        resolved = [(scope, plan, self._repo.resolve(scope, plan)) for scope, plan in targets]
        for scope, plan, ids in resolved:
            self._follow_up.check_core(scope, plan, ids)
        if dry_run:
            return [_dry_run_report(scope, plan, ids) for scope, plan, ids in resolved]
        return [self._write(scope, plan, ids) for scope, plan, ids in resolved]

    def _write(self, scope: Scope, plan: ImportPlan, ids: IdMap) -> ImportReport:
        """A checked plan into its user: the new memories embedded, the writes, then the follow-up."""
        todo = [n for n in plan.of_kind(NodeKind.MEMORY) if n.ref not in ids.existing]
        embeddings: dict[Any, list[float]] = {}
        if todo:
            embedder = self._embedder()
            for start in range(0, len(todo), EMBED_BATCH):
                part = todo[start:start + EMBED_BATCH]
                vectors = embedder.embed_passages([str(n.props["text"]) for n in part])
                embeddings.update({n.ref: [float(x) for x in v] for n, v in zip(part, vectors, strict=True)})
        report = self._repo.write(scope, plan, ids, embeddings, now=self._follow_up.clock.now(),
                                  hooks_pending_at=self._follow_up.hooks_since(scope, plan, ids))
        self._follow_up.after_write(scope, report)
        return report

    def import_rdf_text(self, tenant: str, user_id: str, data: str, fmt: str | RdfFormat, *,
                        source_user: str | None = None, dry_run: bool = False,
                        max_bytes: int | None = None) -> ImportReport:
        """A small file given as one string (the GraphQL mutation importRdf): LIMIT_EXCEEDED above the configured
        size, which the HTTP upload does not have, else import_rdf."""
        raw = self._small_file(data, max_bytes, mutation="importRdf", upload="POST /import/{userId}.{ext} (ext: "
                               "ttl, nt, jsonld, rdf) or use `bmam remote import`")
        return self.import_rdf(tenant, user_id, raw, fmt, source_user=source_user, dry_run=dry_run)

    def import_rdf_all_users_text(self, tenant: str, data: str, fmt: str | RdfFormat, *, dry_run: bool = False,
                                  max_bytes: int | None = None) -> TenantImportReport:
        """A small tenant-wide file given as one string (the GraphQL mutation importRdfAllUsers): LIMIT_EXCEEDED
        above the configured size, else import_rdf_all_users."""
        raw = self._small_file(data, max_bytes, mutation="importRdfAllUsers",
                               upload="POST /import.{ext} (ext: ttl, nt, jsonld, rdf)")
        return self.import_rdf_all_users(tenant, raw, fmt, dry_run=dry_run)

    def _small_file(self, data: str, max_bytes: int | None, *, mutation: str, upload: str) -> bytes:
        """A file given as one string, as UTF-8; LIMIT_EXCEEDED above max_bytes (default: the configured size of
        the GraphQL mutations), pointing to the way to upload it."""
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate (JSON can escape one): no UTF-8 file holds it
            raise BadInput(f"data is not valid Unicode at character {exc.start} (a lone surrogate)",
                           field="data") from exc
        limit = max_bytes if max_bytes is not None else self._settings.graphql_import_max_bytes
        if len(raw) > limit:
            raise LimitExceeded(
                f"the file is {len(raw)} bytes, over the {limit} bytes {mutation} takes; upload it to {upload}",
                field="data")
        return raw


def _rdf_format(fmt: str | RdfFormat) -> RdfFormat:
    return fmt if isinstance(fmt, RdfFormat) else RdfFormat.parse(fmt)


def _dry_run_report(scope: Scope, plan: ImportPlan, ids: IdMap) -> ImportReport:
    """What writing a checked plan would do: per node kind, how many nodes it would create and how many the user
    holds already; its triples and relationships."""
    report = ImportReport(source=plan.source, target=scope, ignored=plan.ignored, dry_run=True,
                          triples=len(plan.triples), relationships=len(plan.rels))
    for kind in NodeKind:
        nodes = plan.of_kind(kind)
        if nodes:
            existing = sum(1 for n in nodes if n.ref in ids.existing)
            report.created[kind.value] = len(nodes) - existing
            report.existing[kind.value] = existing
    return report
