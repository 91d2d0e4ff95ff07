"""Related search and association forming (cypher/related/*): the depth-bounded best-path traversal over
ASSOCIATED edges and shared entities, and the edges (and the mentions of entities named without a triple) a newly
stored memory gets by itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from graph.errors import NotFound
from graph.model import Association, Memory, Scope
from graph.records import memory_from_row, time_param
from graph.scope_token import scope_token, scoped_query
from graph.store import GraphStore, Tx

MIN_DEPTH = 1
MAX_DEPTH = 5  # the allow-list `depth` in graph/cypher_library.py; the statement has this many rounds


class Via(StrEnum):
    """How one memory reaches another: an association edge or a shared entity."""

    ASSOCIATED = "ASSOCIATED"
    ENTITY = "ENTITY"


@dataclass(frozen=True, slots=True)
class PathStep:
    from_id: str
    to_id: str
    via: Via
    strength: float
    entity: str | None = None  # the shared entity's name, for an ENTITY step


@dataclass(frozen=True, slots=True)
class RelatedMemory:
    memory: Memory
    score: float  # product of the strengths along path
    path: list[PathStep]


@dataclass(frozen=True, slots=True)
class TraversalParams:
    """Entity hops: min(1, entity_base / sqrt(mentions - 1)); no hop through an entity with more than
    max_degree mentions."""

    entity_base: float = 0.5
    max_degree: int = 50


@dataclass(frozen=True, slots=True)
class FormSettings:
    """How stored memories get their associations (RecallSettings): episode mates at same_episode, shared
    non-hub entities at the entity hop strength (the newest per_entity per entity), and shared rare terms
    (at most max_df other memories hold the term; none below min_memories memories; a user with at most
    scan_max memories is scanned, a larger one searched in the full-text index, at most limit hits)."""

    same_episode: float
    traversal: TraversalParams
    per_entity: int
    term_base: float
    max_df: int
    scan_max: int
    limit: int
    min_memories: int
    # A user turn opening with a step word (a Java regex, matched whole against an Episode's text: the turns a
    # sequence's link reaches back through are steps too; bmam/usecases/associations.py)
    sequence_pattern: str = "(?!)"
    person_word_pattern: str = "(?!)"  # a text speaking of someone unnamed (a follow-up's "she" may be them)
    asking_pattern: str = "(?!)"  # a user turn asking for something (a refinement's liking is its answer's terms)
    # how many older memories (at most) come to mention an entity a memory's triples brought in (FormRequest.named_by)
    mention_backfill: int = 10


@dataclass(frozen=True, slots=True)
class FormRequest:
    """One stored memory to associate; no terms, no rare-term links."""

    memory_id: str
    episode_id: str | None
    now: datetime
    episode_mates: Sequence[str] = ()
    follows_up: bool = False  # it opens with a pronoun: about someone the user's turn before named
    continues: bool = False  # it opens with a step word ("Then ...", 然后): the next step of the turns before
    refines: bool = False  # it says a liking: the terms of what the user's turn before asked for, if it asked
    han_terms: Sequence[str] = ()
    latin_terms: Sequence[str] = ()
    lucene: str | None = None
    # Of its terms, those where it says a change of the user's own ("R5退了 换了尼康Z8": r5, 尼康 ...): their
    # rare-term links form however few memories the user has, so the older word on the same thing is one hop
    # away (association/form_many)
    change_terms: Sequence[str] = ()
    # The entities of the user's its text names without a triple (ids): it MENTIONS them (association/form_many)
    names: Sequence[str] = ()
    # (entity id, memory ids newest first): an entity its own triples brought in and the other memories whose text
    # names it, the first mention_backfill of them still live MENTION it from now on (before this memory's
    # associations form, so the shared entity links them)
    named_by: Sequence[tuple[str, Sequence[str]]] = ()


@dataclass(frozen=True, slots=True)
class FreshEntity:
    """An entity of a named kind that stored memories' own triples brought in (association/names), with the user's
    live memories whose text may say its name, newest first (full-text hits, to be checked: ingest/names_said.py)."""

    entity_id: str
    name: str
    memory_ids: tuple[str, ...]  # the memories whose triples brought it in
    hits: tuple[tuple[str, str], ...]  # (memory id, text)


@dataclass(frozen=True, slots=True)
class KnownNames:
    """What association forming looks for in stored memories' texts (association/names): the user's named entities
    as (id, name), newest first, and the entities the memories' own triples brought in."""

    names: tuple[tuple[str, str], ...]
    fresh: tuple[FreshEntity, ...]


@dataclass(frozen=True, slots=True)
class NamesQuery:
    """association/names' bounds: the entity kinds that are names, how many of the user's entities are looked for
    (0: none) and how many full-text hits are read per entity brought in (0: none)."""

    kinds: Sequence[str]
    name_limit: int
    hit_limit: int

    @property
    def reads(self) -> bool:
        return self.name_limit > 0 or self.hit_limit > 0


def _associations(rows: Sequence[Mapping[str, Any]]) -> list[Association]:
    return [Association(memory_a=r["memory_a"], memory_b=r["memory_b"], strength=float(r["strength"])) for r in rows]


@dataclass(frozen=True, slots=True)
class FormBatch:
    """association/form_many's work for stored memories of one user, not run yet: run_in runs it; a statement that
    includes association/form_many before its own work (conflict/form_settle_many) takes its params() instead."""

    scope: Scope
    settings: FormSettings
    requests: Sequence[FormRequest]

    def params(self) -> dict[str, Any]:
        settings = self.settings
        return {
            "tenant": self.scope.tenant,
            "user_id": self.scope.user_id,
            "items": [{
                "memory_id": r.memory_id, "episode_id": r.episode_id, "episode_mates": list(r.episode_mates),
                "follows_up": r.follows_up, "continues": r.continues, "refines": r.refines,
                "now": time_param(r.now), "terms": bool(r.han_terms or r.latin_terms),
                "han_terms": list(r.han_terms), "latin_terms": list(r.latin_terms),
                "lucene": scoped_query(self.scope, r.lucene), "change_terms": list(r.change_terms),
                "names": list(r.names),
                "named_by": [{"entity_id": e, "memory_ids": list(ids)} for e, ids in r.named_by],
            } for r in self.requests],
            "same_episode": settings.same_episode,
            "sequence_pattern": settings.sequence_pattern, "person_word_pattern": settings.person_word_pattern,
            "asking_pattern": settings.asking_pattern,
            "entity_base": settings.traversal.entity_base,
            "max_degree": settings.traversal.max_degree,
            "per_entity": settings.per_entity,
            "term_base": settings.term_base,
            "max_df": settings.max_df,
            "scan_max": settings.scan_max,
            "limit": settings.limit,
            "min_memories": settings.min_memories,
            "mention_backfill": settings.mention_backfill,
        }

    def run_in(self, tx: Tx) -> list[list[Association]]:
        """The edges formed or strengthened for each request (association/form_many in tx)."""
        if not self.requests:
            return []
        return [_associations([*r["by_form"], *r["by_terms"]]) for r in tx.run("association/form_many", self.params())]


def search_params(scope: Scope, memory_id: str, *, limit: int, min_strength: float, traversal: TraversalParams,
                  width: int, include_history: bool = False) -> dict[str, Any]:
    """related/search's parameters (bench/related_dense.py gives its unbounded baseline the same ones)."""
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")  # a programming error: the use-case clamps it
    return {
        "tenant": scope.tenant,
        "user_id": scope.user_id,
        "memory_id": memory_id,
        "limit": limit,
        "min_strength": min_strength,
        "entity_base": traversal.entity_base,
        "max_degree": traversal.max_degree,
        "include_history": include_history,
        "per_memory": width,
    }


class RelatedRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def search(
        self,
        scope: Scope,
        memory_id: str,
        *,
        depth: int,
        limit: int,
        min_strength: float,
        traversal: TraversalParams,
        width: int | None = None,
        include_history: bool = False,
    ) -> list[RelatedMemory]:
        """Best paths from memory_id; NotFound when it is not this user's memory. depth must already be
        validated: it is spliced (through the allow-list, which refuses anything outside 1..5). Each round
        expands at most `limit` memories, each along at most `width` (default: limit) of its strongest hops
        (cypher/related/search_round.cypher): at `limit` the results are the unbounded search's."""
        rows = self._store.read("related/search", search_params(
            scope, memory_id, limit=limit, min_strength=min_strength, traversal=traversal,
            width=limit if width is None else width, include_history=include_history), depth=depth)
        if not rows:
            raise NotFound(f"memory {memory_id} not found")
        return [
            RelatedMemory(
                memory=memory_from_row(r["memory"]),
                score=float(r["score"]),
                path=[PathStep(from_id=s["from"], to_id=s["to"], via=Via(s["via"]), strength=float(s["strength"]),
                               entity=s.get("entity")) for s in r["path"]],
            )
            for r in rows[0]["results"]
        ]

    def form_many_in(self, tx: Tx, scope: Scope, settings: FormSettings,
                     requests: Sequence[FormRequest]) -> list[list[Association]]:
        """Form the associations of several stored memories in one statement (association/form_many), memory
        after memory in the order given, so each sees the edges of those before it: the edges formed or
        strengthened for each request (an existing edge keeps the stronger strength); inside the caller's
        transaction (the stored-memory hooks of an ingest batch share one)."""
        return FormBatch(scope, settings, requests).run_in(tx)

    def form_named_many(self, scope: Scope, settings: FormSettings, query: NamesQuery, memory_ids: Sequence[str],
                        requests_for: Callable[[KnownNames], Sequence[FormRequest]]) -> list[list[Association]]:
        """form_many_in of the requests built from what the memories may name (known_names_in, read in the same write
        transaction: the triples just stored are seen on any member of a cluster)."""

        def work(tx: Tx) -> list[list[Association]]:
            requests = requests_for(self.known_names_in(tx, scope, memory_ids, query))
            return self.form_many_in(tx, scope, settings, requests)

        return self._store.write_tx(work)

    def known_names_in(self, tx: Tx, scope: Scope, memory_ids: Sequence[str], query: NamesQuery) -> KnownNames:
        """The names stored memories may say (association/names): the user's entities of query.kinds, and those the
        memories' own triples brought in with the memories whose text may name them."""
        if not query.reads or not memory_ids:
            return KnownNames(names=(), fresh=())
        [row] = tx.run("association/names", {
            "tenant": scope.tenant, "user_id": scope.user_id, "ids": list(memory_ids), "kinds": list(query.kinds),
            "name_limit": query.name_limit, "hit_limit": query.hit_limit,
            "token": scope_token(scope.tenant, scope.user_id)})
        return KnownNames(
            names=tuple((str(n["id"]), str(n["name"])) for n in row["names"]),
            fresh=tuple(FreshEntity(entity_id=str(f["entity_id"]), name=str(f["name"]),
                                    memory_ids=tuple(str(i) for i in f["memory_ids"]),
                                    hits=tuple((str(h["id"]), str(h["text"])) for h in f["hits"]))
                        for f in row["fresh"]))
