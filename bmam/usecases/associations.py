"""Associations that form by themselves (issue 4): when a memory is stored it is associated with the other
memories of the same episode, with those sharing an entity with it, and with those sharing one of its
rare words (a name the extractor missed). (Memories recalled together
strengthen their edge inside recall's transaction, bmam/usecases/recall.py.)"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from bmam.clock import Clock
from bmam.settings import RecallSettings
from bmam.usecases.hooks import StoredMemoryContext
from graph.model import Association, Scope
from graph.related import FormBatch, FormRequest, FormSettings, RelatedRepository, TraversalParams
from graph.store import Tx
from ingest.lexicon import (
    ASKING_PATTERN,
    PERSON_WORD_PATTERN,
    SEQUENCE_STEP_PATTERN,
    SEQUENCE_STEP_RE,
    says_preference,
    simplified,
)
from ingest.scoring import COMMON_EN, change_said, link_term, link_text, lucene_query, says_own_change, terms

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# A turn opening with a pronoun is about someone the turn before named ("she lives in Denver. she's a nurse
# there" after "my sister Jess is flying in"): linked to that turn's memories, or "What does Jess do?" missed it.
_FOLLOW_UP_RE = re.compile(r"\s*(?:(?:and|but|so|oh|yeah|also|well)[,.!]?\s+)?"
                           r"(?:he|she|his|her|him)(?:'s|'ll|'d)?(?![A-Za-z])|\s*(?:他|她)(?!们)",
                           re.IGNORECASE)

log = logging.getLogger(__name__)


class AssociationForming:
    """Forms the associations of stored memories. Also a batch-aware StoredMemoryHook
    (container.stored_memory_hooks)."""

    def __init__(self, *, related: RelatedRepository, settings: RecallSettings, clock: Clock) -> None:
        self._related = related
        self._settings = settings
        self._clock = clock
        self._form = FormSettings(
            same_episode=settings.same_episode_strength,
            traversal=TraversalParams(entity_base=settings.entity_strength, max_degree=settings.max_entity_degree),
            per_entity=settings.associate_per_entity, term_base=settings.term_link_strength,
            max_df=settings.term_link_max_df, scan_max=settings.term_link_scan_max,
            limit=settings.term_link_index_limit, min_memories=settings.term_link_min_memories,
            sequence_pattern=SEQUENCE_STEP_PATTERN, person_word_pattern=PERSON_WORD_PATTERN,
            asking_pattern=ASKING_PATTERN,
        )

    def _request(self, memory_id: str, *, text: str | None, episode_id: str | None,
                 episode_mates: Sequence[str] = ()) -> FormRequest:
        s = self._settings
        han: list[str] = []
        latin: list[str] = []
        changed: list[str] = []
        if text and s.term_link_max_df > 0:
            found = terms(link_text(text), limit=s.term_link_terms)
            han = [t for t in found if _CJK.match(t) and link_term(t)]
            latin = [t for t in found if not _CJK.match(t) and len(t) >= 3 and not t.isdigit() and t not in COMMON_EN]
            if says_own_change(text):
                # the clauses are read in simplified characters; the terms match the text as written
                where = set(terms(link_text(change_said(text))))
                changed = [t for t in han + latin if simplified(t) in where]
        return FormRequest(memory_id=memory_id, episode_id=episode_id, episode_mates=tuple(episode_mates),
                           follows_up=bool(text and episode_id and _FOLLOW_UP_RE.match(text)),
                           continues=bool(text and episode_id and SEQUENCE_STEP_RE.fullmatch(text)),
                           refines=bool(text and episode_id and says_preference(text)),
                           now=self._clock.now(), han_terms=han, latin_terms=latin,
                           lucene=lucene_query(han + latin) if han or latin else None,
                           change_terms=changed)

    def form(self, scope: Scope, memory_id: str, *, text: str | None = None, episode_id: str | None = None,
             episode_mates: Sequence[str] = ()) -> list[Association]:
        """Associate one stored memory: episode mates (the Episode's DERIVED_FROM memories, or the ids
        given) at same_episode_strength, memories sharing a non-hub entity at the entity hop strength, and
        (given the memory's text) memories sharing one of its rare terms. An existing edge keeps the
        stronger of the two strengths."""
        request = self._request(memory_id, text=text, episode_id=episode_id, episode_mates=episode_mates)
        return self._related.form_many(scope, self._form, [request])[0]

    def __call__(self, context: StoredMemoryContext) -> None:
        self.many([context])

    def many(self, contexts: Sequence[StoredMemoryContext]) -> None:
        """The batch form of the hook: the associations of all the given stored memories in one statement
        per user (association/form_many), memory after memory in the order given, as one by one would.
        (A memory forgotten meanwhile matches nothing and gets no association.)"""
        for scope, items, requests in self._requests(contexts):
            self._log(items, self._related.form_many(scope, self._form, requests))

    def many_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> list[Callable[[], None]]:
        """many inside the caller's transaction (bmam/usecases/hooks.py TxStoredMemoryHook); nothing waits
        for the commit."""
        for scope, items, requests in self._requests(contexts):
            self._log(items, self._related.form_many_in(tx, scope, self._form, requests))
        return []

    def defer_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> list[FormBatch]:
        """What many_in would write, not run (bmam/usecases/hooks.py TxDeferringHook): the next hook writes it before
        anything of its own, in its own first statement when it can. Reads and writes nothing."""
        batches = [FormBatch(scope, self._form, requests) for scope, _, requests in self._requests(contexts)]
        log.debug("associations of %d memories handed to the next hook", len(contexts))
        return batches

    def _requests(self, contexts: Sequence[StoredMemoryContext]
                  ) -> list[tuple[Scope, list[StoredMemoryContext], list[FormRequest]]]:
        by_scope: dict[Scope, list[StoredMemoryContext]] = {}
        for context in contexts:
            by_scope.setdefault(context.scope, []).append(context)
        return [(scope, items, [self._request(c.memory.id, text=c.memory.text,
                                              episode_id=c.episode_id or c.memory.provenance.episode_id)
                                for c in items]) for scope, items in by_scope.items()]

    @staticmethod
    def _log(items: Sequence[StoredMemoryContext], formed: Sequence[Sequence[Association]]) -> None:
        for c, edges in zip(items, formed, strict=True):
            log.debug("memory %s: %d associations formed or strengthened", c.memory.id, len(edges))
