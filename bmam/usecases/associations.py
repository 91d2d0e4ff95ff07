"""Associations that form by themselves (issue 4): when a memory is stored it is associated with the other
memories of the same episode, with those sharing an entity with it, and with those sharing one of its
rare words (a name the extractor missed). An entity it names without a triple counts as shared: a memory MENTIONS
the entities of the user's (a person, a pet, a place, an organization) its text names (ingest/names_said.py), and the
older memories that named an entity its own triples bring in MENTION it too, so "Tom is getting married in June." is
linked to "My brother Tom lives in Munich." at any size of the user, whichever was said first. (Memories recalled
together strengthen their edge inside recall's transaction, bmam/usecases/recall.py.)"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bmam.clock import Clock
from bmam.settings import RecallSettings
from bmam.usecases.hooks import StoredMemoryContext
from graph.model import Association, Scope
from graph.related import (
    FormBatch,
    FormRequest,
    FormSettings,
    KnownNames,
    NamesQuery,
    RelatedRepository,
    TraversalParams,
)
from graph.store import Tx
from ingest.lexicon import (
    ASKING_PATTERN,
    PERSON_WORD_PATTERN,
    SEQUENCE_STEP_PATTERN,
    SEQUENCE_STEP_RE,
    says_preference,
    simplified,
)
from ingest.names_said import NAMED_KINDS, NameFinder
from ingest.scoring import change_said, link_term, link_text, link_word, lucene_query, says_own_change, terms

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# A turn opening with a pronoun is about someone the turn before named ("she lives in Denver. she's a nurse
# there" after "my sister Jess is flying in"): linked to that turn's memories, or "What does Jess do?" missed it.
_FOLLOW_UP_RE = re.compile(r"\s*(?:(?:and|but|so|oh|yeah|also|well)[,.!]?\s+)?"
                           r"(?:he|she|his|her|him)(?:'s|'ll|'d)?(?![A-Za-z])|\s*(?:他|她)(?!们)",
                           re.IGNORECASE)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToAssociate:
    """A stored memory to associate, as the hook is given it."""

    memory_id: str
    text: str | None
    episode_id: str | None
    episode_mates: Sequence[str] = ()


def named_mentions(stored: Sequence[ToAssociate], known: KnownNames, *, backfill: bool = True
                   ) -> tuple[list[list[str]], list[list[tuple[str, tuple[str, ...]]]]]:
    """For each stored memory (in order): the ids of the entities of known.names its text names, and the entities
    its own triples brought in (known.fresh: each entity to the first of the memories that brought it in, none when
    not `backfill`) with the other hits whose text names it (ingest/names_said.py), newest first: the first
    recall.mention_backfill of them still live mention it (association/form_many). The same every time it runs on
    the same graph: a hook run again mentions nothing more."""
    ids_by_name: dict[str, list[str]] = {}
    for entity_id, name in known.names:
        ids_by_name.setdefault(name, []).append(entity_id)
    finder = NameFinder(ids_by_name)
    names = [[e for n in finder.said(s.text) for e in ids_by_name[n]] if s.text and len(finder) else []
             for s in stored]
    first: dict[str, int] = {}
    for i, s in enumerate(stored):
        first.setdefault(s.memory_id, i)
    named_by: list[list[tuple[str, tuple[str, ...]]]] = [[] for _ in stored]
    for fresh in known.fresh:
        owners = [first[m] for m in fresh.memory_ids if m in first]
        if not owners or not backfill:
            continue
        one = NameFinder([fresh.name])
        said = tuple(memory_id for memory_id, text in fresh.hits
                     if memory_id not in fresh.memory_ids and one.said(text))
        if said:
            named_by[min(owners)].append((fresh.entity_id, said))
    return names, named_by


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
            asking_pattern=ASKING_PATTERN, mention_backfill=settings.mention_backfill,
        )
        self._names = NamesQuery(kinds=NAMED_KINDS, name_limit=settings.mention_names_limit,
                                 hit_limit=settings.mention_backfill_hits if settings.mention_backfill > 0 else 0)

    def _built(self, stored: Sequence[ToAssociate], known: KnownNames) -> list[FormRequest]:
        """The requests of the stored memories (in order), with the entities they name (association/names read)."""
        names, named_by = named_mentions(stored, known, backfill=self._settings.mention_backfill > 0)
        return [self._request(s.memory_id, text=s.text, episode_id=s.episode_id, episode_mates=s.episode_mates,
                              names=n, named_by=b) for s, n, b in zip(stored, names, named_by, strict=True)]

    def _request(self, memory_id: str, *, text: str | None, episode_id: str | None,
                 episode_mates: Sequence[str] = (), names: Sequence[str] = (),
                 named_by: Sequence[tuple[str, Sequence[str]]] = ()) -> FormRequest:
        s = self._settings
        han: list[str] = []
        latin: list[str] = []
        changed: list[str] = []
        if text and s.term_link_max_df > 0:
            found = terms(link_text(text), limit=s.term_link_terms)
            han = [t for t in found if _CJK.match(t) and link_term(t)]
            latin = [t for t in found if not _CJK.match(t) and link_word(t, text)]
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
                           change_terms=changed, names=tuple(names), named_by=tuple(named_by))

    def form(self, scope: Scope, memory_id: str, *, text: str | None = None, episode_id: str | None = None,
             episode_mates: Sequence[str] = ()) -> list[Association]:
        """Associate one stored memory: episode mates (the Episode's DERIVED_FROM memories, or the ids
        given) at same_episode_strength, memories sharing a non-hub entity at the entity hop strength (the
        entities its text names counted: see the module's docstring), and (given the memory's text) memories
        sharing one of its rare terms. An existing edge keeps the stronger of the two strengths."""
        stored = [ToAssociate(memory_id, text, episode_id, tuple(episode_mates))]
        return self._related.form_named_many(scope, self._form, self._names, [memory_id],
                                             lambda known: self._built(stored, known))[0]

    def __call__(self, context: StoredMemoryContext) -> None:
        self.many([context])

    def many(self, contexts: Sequence[StoredMemoryContext]) -> None:
        """The batch form of the hook: the associations of all the given stored memories in one statement
        per user (association/form_many), memory after memory in the order given, as one by one would.
        (A memory forgotten meanwhile matches nothing and gets no association.) With the names they may say
        (association/names), read in the same transaction."""
        for scope, items in self._by_scope(contexts):
            stored = self._stored(items)
            self._log(items, self._related.form_named_many(scope, self._form, self._names,
                                                           [s.memory_id for s in stored],
                                                           functools.partial(self._built, stored)))

    def many_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> list[Callable[[], None]]:
        """many inside the caller's transaction (bmam/usecases/hooks.py TxStoredMemoryHook); nothing waits
        for the commit."""
        for scope, items, requests in self._requests_in(tx, contexts):
            self._log(items, self._related.form_many_in(tx, scope, self._form, requests))
        return []

    def defer_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> list[FormBatch]:
        """What many_in would write, not run (bmam/usecases/hooks.py TxDeferringHook): the next hook writes it before
        anything of its own, in its own first statement when it can. Writes nothing; reads the names the memories
        may say (association/names, a statement per user)."""
        batches = [FormBatch(scope, self._form, requests) for scope, _, requests in self._requests_in(tx, contexts)]
        log.debug("associations of %d memories handed to the next hook", len(contexts))
        return batches

    @staticmethod
    def _by_scope(contexts: Sequence[StoredMemoryContext]) -> list[tuple[Scope, list[StoredMemoryContext]]]:
        by_scope: dict[Scope, list[StoredMemoryContext]] = {}
        for context in contexts:
            by_scope.setdefault(context.scope, []).append(context)
        return list(by_scope.items())

    @staticmethod
    def _stored(items: Sequence[StoredMemoryContext]) -> list[ToAssociate]:
        return [ToAssociate(c.memory.id, c.memory.text, c.episode_id or c.memory.provenance.episode_id) for c in items]

    def _requests_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]
                     ) -> list[tuple[Scope, list[StoredMemoryContext], list[FormRequest]]]:
        out = []
        for scope, items in self._by_scope(contexts):
            stored = self._stored(items)
            out.append((scope, items, self._built(stored, self._known_in(tx, scope, items))))
        return out

    def _known_in(self, tx: Tx, scope: Scope, items: Sequence[StoredMemoryContext]) -> KnownNames:
        """association/names for the items; read once for the whole batch they came with (run_hooks hands it over
        in segments, a statement each was a quarter of the hooks' statements): the user's named entities do not
        change while the hooks run (they write no entity), nor do the texts; a memory superseded meanwhile is
        given no mention (association/form_many checks)."""
        batch = items[0].batch
        if batch is None or any(c.batch is not batch for c in items):
            return self._related.known_names_in(tx, scope, [c.memory.id for c in items], self._names)
        key = f"association/names\x1f{scope.tenant}\x1f{scope.user_id}"
        known = batch.kept.get(key)
        if not isinstance(known, KnownNames):
            ids = [m.id for m in batch.memories if m.tenant == scope.tenant and m.user_id == scope.user_id]
            known = self._related.known_names_in(tx, scope, ids, self._names)
            batch.kept[key] = known
        return known

    @staticmethod
    def _log(items: Sequence[StoredMemoryContext], formed: Sequence[Sequence[Association]]) -> None:
        for c, edges in zip(items, formed, strict=True):
            log.debug("memory %s: %d associations formed or strengthened", c.memory.id, len(edges))
