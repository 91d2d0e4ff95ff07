"""Related search and association forming (cypher/related/*): the depth-bounded best-path traversal over
ASSOCIATED edges and shared entities, and the edges a newly stored memory gets by itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from graph.errors import NotFound
from graph.model import Association, Memory, Scope
from graph.records import memory_from_row
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
class TermLinks:
    """The rare-term part of forming one memory's associations (related/form_terms)."""

    han_terms: Sequence[str]
    latin_terms: Sequence[str]
    lucene: str | None
    term_base: float
    max_df: int
    scan_max: int
    limit: int
    min_memories: int


@dataclass(frozen=True, slots=True)
class FormRequest:
    """Forming one stored memory's associations: related/form, then (given terms) related/form_terms."""

    memory_id: str
    episode_id: str | None
    same_episode: float
    traversal: TraversalParams
    per_entity: int
    now: datetime
    episode_mates: Sequence[str] = ()
    terms: TermLinks | None = None


def _associations(rows: Sequence[Mapping[str, Any]]) -> list[Association]:
    return [Association(memory_a=r["memory_a"], memory_b=r["memory_b"], strength=float(r["strength"])) for r in rows]


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
        include_history: bool = False,
    ) -> list[RelatedMemory]:
        """Best paths from memory_id; NotFound when it is not this user's memory. depth must already be
        validated: it is spliced (through the allow-list, which refuses anything outside 1..5)."""
        rows = self._store.read(
            "related/search",
            {
                "tenant": scope.tenant,
                "user_id": scope.user_id,
                "memory_id": memory_id,
                "limit": limit,
                "min_strength": min_strength,
                "entity_base": traversal.entity_base,
                "max_degree": traversal.max_degree,
                "include_history": include_history,
            },
            depth=depth,
        )
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

    def form(
        self,
        scope: Scope,
        memory_id: str,
        *,
        episode_id: str | None,
        episode_mates: Sequence[str] = (),
        same_episode: float,
        traversal: TraversalParams,
        per_entity: int,
        now: datetime,
    ) -> list[Association]:
        """Associate a stored memory with its episode mates and the memories sharing its entities."""
        request = FormRequest(memory_id=memory_id, episode_id=episode_id, episode_mates=episode_mates,
                              same_episode=same_episode, traversal=traversal, per_entity=per_entity, now=now)
        return self._store.write_tx(lambda tx: self._form_in(tx, scope, request))

    def form_many(self, scope: Scope, requests: Sequence[FormRequest]) -> list[list[Association]]:
        """Form the associations of several stored memories in one write transaction, one memory after the
        other in the order given (related/form then related/form_terms for each, exactly as form and
        form_by_terms one by one would): the associations formed for each request."""
        if not requests:
            return []

        def work(tx: Tx) -> list[list[Association]]:
            out: list[list[Association]] = []
            for request in requests:
                formed = self._form_in(tx, scope, request)
                if request.terms is not None:
                    formed += self._form_terms_in(tx, scope, request.memory_id, request.terms, request.now)
                out.append(formed)
            return out

        return self._store.write_tx(work)

    def form_each(self, scope: Scope, requests: Sequence[FormRequest]) -> dict[str, int]:
        """The same as form_many in one statement (related/form_many, an UNWIND over the requests, memory
        after memory in order): the number of edges formed or strengthened per memory id. The requests
        must share the settings (same_episode, traversal, per_entity and the term settings)."""
        if not requests:
            return {}
        first = requests[0]
        shared = next((r.terms for r in requests if r.terms is not None), None)
        for r in requests:
            if (r.same_episode, r.traversal, r.per_entity) != (first.same_episode, first.traversal, first.per_entity) \
                    or (r.terms is not None and shared is not None and
                        (r.terms.term_base, r.terms.max_df, r.terms.scan_max, r.terms.limit, r.terms.min_memories)
                        != (shared.term_base, shared.max_df, shared.scan_max, shared.limit, shared.min_memories)):
                raise ValueError("form_each: the requests must share their settings")
        items = [{
            "memory_id": r.memory_id, "episode_id": r.episode_id, "episode_mates": list(r.episode_mates),
            "now": r.now, "terms": r.terms is not None and bool(r.terms.han_terms or r.terms.latin_terms),
            "han_terms": list(r.terms.han_terms) if r.terms else [],
            "latin_terms": list(r.terms.latin_terms) if r.terms else [],
            "lucene": r.terms.lucene if r.terms else None,
        } for r in requests]
        rows = self._store.write("related/form_many", {
            "tenant": scope.tenant,
            "user_id": scope.user_id,
            "items": items,
            "same_episode": first.same_episode,
            "entity_base": first.traversal.entity_base,
            "max_degree": first.traversal.max_degree,
            "per_entity": first.per_entity,
            "term_base": shared.term_base if shared else 0.0,
            "max_df": shared.max_df if shared else 0,
            "scan_max": shared.scan_max if shared else 0,
            "limit": shared.limit if shared else 0,
            "min_memories": shared.min_memories if shared else 0,
        })
        return {r["memory_id"]: int(r["by_form"]) + int(r["by_terms"]) for r in rows}

    @staticmethod
    def _form_in(tx: Tx, scope: Scope, request: FormRequest) -> list[Association]:
        rows = tx.run(
            "related/form",
            {
                "tenant": scope.tenant,
                "user_id": scope.user_id,
                "memory_id": request.memory_id,
                "episode_id": request.episode_id,
                "episode_mates": list(request.episode_mates),
                "same_episode": request.same_episode,
                "entity_base": request.traversal.entity_base,
                "max_degree": request.traversal.max_degree,
                "per_entity": request.per_entity,
                "now": request.now,
            },
        )
        return _associations(rows)

    @staticmethod
    def _form_terms_in(tx: Tx, scope: Scope, memory_id: str, terms: TermLinks, now: datetime) -> list[Association]:
        if not terms.han_terms and not terms.latin_terms:
            return []
        rows = tx.run(
            "related/form_terms",
            {
                "tenant": scope.tenant,
                "user_id": scope.user_id,
                "memory_id": memory_id,
                "han_terms": list(terms.han_terms),
                "latin_terms": list(terms.latin_terms),
                "lucene": terms.lucene,
                "term_base": terms.term_base,
                "max_df": terms.max_df,
                "scan_max": terms.scan_max,
                "limit": terms.limit,
                "min_memories": terms.min_memories,
                "now": now,
            },
        )
        return _associations(rows)

    def form_by_terms(
        self,
        scope: Scope,
        memory_id: str,
        *,
        han_terms: Sequence[str],
        latin_terms: Sequence[str],
        lucene: str | None,
        term_base: float,
        max_df: int,
        scan_max: int,
        limit: int,
        min_memories: int,
        now: datetime,
    ) -> list[Association]:
        """Associate a stored memory with the memories sharing one of its rare terms (at most max_df others
        hold it): strength min(1, term_base / sqrt(df))."""
        if not han_terms and not latin_terms:
            return []
        links = TermLinks(han_terms=han_terms, latin_terms=latin_terms, lucene=lucene, term_base=term_base,
                          max_df=max_df, scan_max=scan_max, limit=limit, min_memories=min_memories)
        return self._store.write_tx(lambda tx: self._form_terms_in(tx, scope, memory_id, links, now))
