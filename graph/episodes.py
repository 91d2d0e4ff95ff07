"""Episodes and sessions: one (:Episode) per conversation turn, chained by NEXT inside its (:Session),
the reads ingest needs inside its transaction (existing turns, similar memories, temp topics), and a session's
stored turns a page at a time (turns).

The similar memories and temp topics of a batch's turns are exact cosine scans of the user's memories:
with the in-process vector cache (graph/vector_cache.py) they run in numpy and only the memories found
are read back (episode/cached_rows); without it, or for a user too large for it, Neo4j scans
(episode/similar_memories, episode/temp_topics), with the same answer."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

import numpy as np

from graph.cached_scans import CachedScan, scan, scores
from graph.ids import derived_id, entity_id
from graph.model import Memory, Scope, Tier, scope_params
from graph.paging import Paged, decode_turn_cursor, encode_turn_cursor, paged
from graph.records import Floats, memory_from_row, time_param, to_datetime
from graph.store import GraphStore, Tx
from graph.text_key import text_key
from graph.tiers import tier_counts
from graph.vector_cache import VectorCache

# An embedding: a list of floats, or float32 as the embedder gave it (both are read as float32 for the cache's
# scans and as Python floats for Neo4j's).
Vector = Sequence[float] | np.ndarray


@dataclass(frozen=True, slots=True)
class Episode:
    """One conversation turn as stored. The device is provenance, never part of the id."""

    id: str
    session_id: str
    turn: int
    speaker: str
    text: str
    at: datetime
    device_id: str | None = None


@dataclass(frozen=True, slots=True)
class SessionTurn:
    """A stored turn of a session (its episode) with the ids of the live memories derived from it (DERIVED_FROM: the
    memories it made, and those it mentioned again), sorted. `at` is None for a turn imported without its time."""

    episode_id: str
    turn: int
    speaker: str
    text: str
    at: datetime | None
    device_id: str | None
    memory_ids: tuple[str, ...]


def turn_cursor(t: SessionTurn) -> str:
    return encode_turn_cursor(t.turn)


@dataclass(frozen=True, slots=True)
class BatchStart:
    """EpisodeRepository.batch_start: the batch's episode ids the user has already (id -> (speaker, text)),
    the memories per tier and the entity names of the live temp memories (empty unless asked for)."""

    existing: dict[str, tuple[str, str]]
    counts: dict[Tier, int]
    temp_entities: dict[str, list[str]]
    hooks_left: bool = False  # memories of the user whose hooks were left pending since before hooks_before


@dataclass(frozen=True, slots=True)
class SessionTail:
    """The last stored turn of a session (an appended turn without index comes after it)."""

    session_id: str
    episode_id: str
    turn: int
    speaker: str
    text: str
    at: datetime | None


@dataclass(frozen=True, slots=True)
class SimilarMemory:
    """A live memory like a candidate turn: cosine in [-1, 1] (not Neo4j's [0, 1] score)."""

    candidate: int
    id: str
    text: str
    tier: Tier
    locked: bool
    mention_count: int
    cosine: float
    triples: tuple[tuple[str, str, str, int], ...] = ()  # (subject, predicate, object, polarity) names
    preset_kind: str = ""  # read by episode/asserting only


# A fact a candidate turn states, as the extractor gives it: (subject kind, subject, predicate, object kind, object,
# polarity)
StatedFact = tuple[str, str, str, str, str, int]


@dataclass(frozen=True, slots=True)
class TurnMatches:
    """What a batch's candidate turns repeat (similar_memories) and pick up (temp_topics)."""

    similar: list[SimilarMemory]
    topics: list[tuple[int, str, float]]  # (candidate index, temp memory id, cosine)
    # the live triples of the temp memories picked up, (subject, predicate, object, polarity) names each; their texts
    topic_triples: dict[str, tuple[tuple[str, str, str, int], ...]] = field(default_factory=dict)
    topic_texts: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EpisodeRow:
    """An episode about to be written."""

    id: str
    session_id: str
    turn: int
    speaker: str
    text: str
    at: datetime
    device_id: str | None


def session_node_id(scope: Scope, session_id: str) -> str:
    return derived_id("s", scope, session_id)


def episode_id(scope: Scope, session_id: str, turn: int) -> str:
    """Derived from (tenant, user, session, turn index): ingesting the same turn again finds it."""
    return derived_id("ep", scope, session_id, str(turn))


def memory_id_for(episode: str, scope: Scope, index: int = 0) -> str:
    """The id of the index-th memory a turn creates: derived from its episode, so a re-ingest finds it."""
    return derived_id("m", scope, episode, str(index))


def _score(cosine: float) -> float:
    """Neo4j's vector.similarity.cosine answers (1 + cos) / 2; thresholds here are plain cosines."""
    return (1.0 + cosine) / 2.0


def _cosine(score: float) -> float:
    return 2.0 * float(score) - 1.0


def episode_from_row(props: dict[str, Any]) -> Episode:
    at = to_datetime(props["at"])
    if at is None:
        raise ValueError(f"episode {props['id']} has no time")
    return Episode(id=props["id"], session_id=props["session_id"], turn=int(props["turn"]), speaker=props["speaker"],
                   text=props["text"], at=at, device_id=props.get("device_id"))


def write_params(scope: Scope, episodes: Sequence[EpisodeRow]) -> dict[str, Any]:
    """episode/write_batch's parameters but the user's: the sessions with their spans, the episodes, and where
    each session's NEXT chain is relinked from (all empty for no episodes)."""
    spans: dict[str, tuple[datetime, datetime, int]] = {}
    for e in episodes:
        first, last, low = spans.get(e.session_id, (e.at, e.at, e.turn))
        spans[e.session_id] = (min(first, e.at), max(last, e.at), min(low, e.turn))
    sessions = [{"id": session_node_id(scope, s), "session_id": s, "first_at": time_param(first),
                 "last_at": time_param(last)} for s, (first, last, _) in spans.items()]
    rows = [{"id": e.id, "session_node_id": session_node_id(scope, e.session_id), "session_id": e.session_id,
             "turn": e.turn, "speaker": e.speaker, "text": e.text, "at": time_param(e.at), "device_id": e.device_id}
            for e in episodes]
    links = [{"id": session_node_id(scope, s), "from_turn": low} for s, (_, _, low) in spans.items()]
    return {"sessions": sessions, "episodes": rows, "links": links}


def _triples(rows: Sequence[Sequence[Any]]) -> tuple[tuple[str, str, str, int], ...]:
    """Triples as the statements read them: [subject, predicate, object, polarity] names each."""
    return tuple((str(s), str(p), str(o), int(pol)) for s, p, o, pol in rows)


class EpisodeRepository:
    def __init__(self, store: GraphStore, vector_dimensions: int, cache: VectorCache | None = None) -> None:
        self._store = store
        self._dimensions = vector_dimensions
        # the exact scans in numpy (graph/vector_cache.py); a cache of 0 bytes is none: Neo4j scans
        self._cache = cache if cache is not None and cache.max_bytes > 0 else None

    # ----- inside the ingest transaction --------------------------------------------------

    def session_tails(self, tx: Tx, scope: Scope, session_ids: Sequence[str]) -> dict[str, SessionTail]:
        """session_id -> its last stored turn, for the sessions that have one."""
        if not session_ids:
            return {}
        by_node = {session_node_id(scope, s): s for s in session_ids}
        rows = tx.run("episode/session_tails", {**scope_params(scope), "sessions": list(by_node)})
        out: dict[str, SessionTail] = {}
        for r in rows:
            session = by_node[r["session"]]
            out[session] = SessionTail(session_id=session, episode_id=r["id"], turn=int(r["turn"]),
                                       speaker=r["speaker"], text=r["text"], at=to_datetime(r["at"]))
        return out

    def write(self, tx: Tx, scope: Scope, episodes: Sequence[EpisodeRow]) -> None:
        """Sessions (with their span), episodes and the NEXT chain around the new turns."""
        if not episodes:
            return
        tx.run("episode/write_batch", {**scope_params(scope), **write_params(scope, episodes)})

    def batch_start(self, tx: Tx, scope: Scope, ids: Sequence[str], *, lock_at: datetime | None,
                    temp: bool, hooks_before: datetime | None = None) -> BatchStart:
        """What an ingest batch starts from, in one statement (episode/batch_start): given lock_at, the user's
        write lock first (TierRepository.lock_user); then which of the episode ids it has already (id ->
        (speaker, text)), the tier counts, given temp, the entity names each temp memory mentions, and given
        hooks_before, whether memories of the user still wait for their hooks since before then."""
        row = tx.run("episode/batch_start", {**scope_params(scope), "ids": list(ids), "now": time_param(lock_at),
                                             "temp": temp, "hooks_before": time_param(hooks_before)})[0]
        return BatchStart(existing={r["id"]: (r["speaker"], r["text"]) for r in row["existing"]},
                          counts=tier_counts(row["counts"]),
                          temp_entities={r["id"]: list(r["names"]) for r in row["temp"]},
                          hooks_left=bool(row["hooks_left"]))

    def batch_end(self, tx: Tx, scope: Scope, ids: Sequence[str], derived: Sequence[tuple[str, str]] = (),
                  tier_updates: Mapping[str, Any] | None = None, episodes: Sequence[EpisodeRow] = ()
                  ) -> tuple[dict[Tier, int], dict[str, Memory]]:
        """write(episodes), tier/update with tier_updates (TierRepository.update_params; none when None),
        (memory)-[:DERIVED_FROM]->(episode) for each (memory id, episode id) of derived, then the tier counts and
        memories(ids), in one statement (episode/batch_end)."""
        derived_from = [{"memory_id": m, "episode_id": e} for m, e in derived]
        updates = tier_updates if tier_updates is not None else {
            "updates": [], "passive_share": 0.0, "active_share": 0.0, "preset_share": 0.0}
        row = tx.run("episode/batch_end", {**scope_params(scope), **write_params(scope, episodes), **updates,
                                           "ids": list(ids), "derived": derived_from})[0]
        return tier_counts(row["counts"]), {m["id"]: memory_from_row(m) for m in row["memories"]}

    def matches(
        self, tx: Tx, scope: Scope, candidates: Sequence[tuple[int, str, Vector]], *,
        duplicate: float, engagement: float, k: int = 3, exact_max: int,
    ) -> TurnMatches:
        """For each (index, text, embedding): similar_memories(min_cosine=duplicate, k) and
        temp_topics(min_cosine=engagement), from the vector cache when it can answer, else scanned in
        Neo4j (exactly up to exact_max memories, through the vector index beyond; the cache is exact
        at any size)."""
        if not candidates:
            return TurnMatches(similar=[], topics=[])
        if self._cache is not None:
            cached = scan(tx, scope, self._cache)
            if cached.empty:
                return TurnMatches(similar=[], topics=[])
            if cached.rows is not None:
                return self._cached_matches(tx, scope, cached, candidates, duplicate=duplicate,
                                            engagement=engagement, k=k)
        exact = self.memory_count(tx, scope) <= exact_max
        topics, topic_triples, topic_texts = self.temp_topics(tx, scope, [(i, emb) for i, _, emb in candidates],
                                                              min_cosine=engagement)
        return TurnMatches(
            similar=self.similar_memories(tx, scope, candidates, min_cosine=duplicate, k=k, exact=exact),
            topics=topics, topic_triples=topic_triples, topic_texts=topic_texts)

    def _cached_matches(
        self, tx: Tx, scope: Scope, cached: CachedScan, candidates: Sequence[tuple[int, str, Vector]], *,
        duplicate: float, engagement: float, k: int,
    ) -> TurnMatches:
        """The Neo4j scans' answers from the cache: every memory above a threshold (or, for repetition,
        with the same text key) ranked in numpy, read back by id (episode/cached_rows) and filtered as the
        statements filter (live, and for engagement tier temp)."""
        rows_of = cached.rows
        assert rows_of is not None
        ids, matrix = rows_of.snapshot()
        # scores() reads any vector as float32 (np.asarray): the embedder's arrays need no list of floats first
        score = scores(matrix, cast(Sequence[Sequence[float]], [emb for _, _, emb in candidates]))
        dup_threshold, topic_threshold = _score(duplicate), _score(engagement)
        similar_hits: list[list[int]] = []
        topic_hits: list[list[int]] = []
        for c, (_, text, _) in enumerate(candidates):
            row = score[c]
            similar_hits.append(sorted({*np.flatnonzero(row >= dup_threshold).tolist(),
                                        *(j for j in rows_of.rows_of_key(text_key(text)) if j < len(ids))}))
            topic_hits.append(np.flatnonzero(row >= topic_threshold).tolist())
        with_triples = {ids[j] for hits in (*similar_hits, *topic_hits) for j in hits}
        wanted = list(dict.fromkeys(ids[j] for hits in (*similar_hits, *topic_hits) for j in hits))
        rows = tx.run("episode/cached_rows", {**scope_params(scope), "rows": [
            {"id": m, "triples": m in with_triples} for m in wanted]})[0]["rows"] if wanted else []
        found = {r["id"]: r for r in rows}
        similar: list[SimilarMemory] = []
        topics: list[tuple[int, str, float]] = []
        for c, (i, _, _) in enumerate(candidates):
            live = sorted(((float(score[c, j]), ids[j]) for j in similar_hits[c]
                           if ids[j] in found and found[ids[j]]["live"]), key=lambda sm: (-sm[0], sm[1]))
            for s, mid in live[:k]:
                r = found[mid]
                similar.append(SimilarMemory(
                    candidate=i, id=mid, text=r["text"], tier=Tier(r["tier"]), locked=bool(r["locked"]),
                    mention_count=int(r["mention_count"] or 0), cosine=_cosine(s),
                    triples=_triples(r["triples"])))
            temp = sorted(((float(score[c, j]), ids[j]) for j in topic_hits[c]
                           if ids[j] in found and found[ids[j]]["live"] and not found[ids[j]]["temporary"]
                           and found[ids[j]]["tier"] == Tier.TEMP.value),
                          key=lambda sm: (-sm[0], sm[1]))
            topics += [(i, mid, _cosine(s)) for s, mid in temp]
        topic_triples = {mid: _triples(found[mid]["triples"]) for _, mid, _ in topics}
        return TurnMatches(similar=similar, topics=topics, topic_triples=topic_triples,
                           topic_texts={mid: str(found[mid]["text"]) for _, mid, _ in topics})

    def similar_memories(
        self, tx: Tx, scope: Scope, candidates: Sequence[tuple[int, str, Vector]], *,
        min_cosine: float, k: int = 3, exact: bool = True,
    ) -> list[SimilarMemory]:
        """For each (index, text, embedding): live memories with cosine >= min_cosine or the same text key
        (graph/text_key.py), best first (equal scores by id), at most k each; scanned in Neo4j (matches()
        asks the vector cache first)."""
        if not candidates:
            return []
        params: dict[str, Any] = {
            **scope_params(scope), "threshold": _score(min_cosine), "k": k,
            "candidates": [{"i": i, "key": text_key(text), "embedding": Floats(map(float, emb))}
                           for i, text, emb in candidates],
        }
        if exact:
            rows = tx.run("episode/similar_memories", params)
        else:
            params["candidates_per_turn"] = max(100, 20 * k)
            rows = tx.run("episode/similar_memories_indexed", params, dimensions=self._dimensions)
        return [SimilarMemory(candidate=int(r["i"]), id=r["id"], text=r["text"], tier=Tier(r["tier"]),
                              locked=bool(r["locked"]), mention_count=int(r["mention_count"] or 0),
                              cosine=_cosine(r["score"]),
                              triples=_triples(r["triples"]))
                for r in rows]

    def asserting(self, tx: Tx, scope: Scope, candidates: Sequence[tuple[int, Vector, Sequence[StatedFact]]], *,
                  k: int = 3) -> list[SimilarMemory]:
        """For each (index, embedding, facts) with facts: the live memories asserting every one of them (the same
        entities, as triple/add names them, predicate and polarity), oldest first, at most k each, with their
        preset kind."""
        rows = [{"i": i, "embedding": Floats(map(float, emb)),
                 "facts": [{"subject_id": entity_id(scope, sk, subject), "predicate": predicate,
                            "object_id": entity_id(scope, ok, obj), "polarity": polarity}
                           for sk, subject, predicate, ok, obj, polarity in facts]}
                for i, emb, facts in candidates if facts]
        if not rows:
            return []
        found = tx.run("episode/asserting", {**scope_params(scope), "candidates": rows, "k": k})
        return [SimilarMemory(candidate=int(r["i"]), id=r["id"], text=r["text"], tier=Tier(r["tier"]),
                              locked=bool(r["locked"]), mention_count=int(r["mention_count"] or 0),
                              cosine=_cosine(r["score"]), triples=_triples(r["triples"]),
                              preset_kind=str(r["preset_kind"] or ""))
                for r in found]

    def temp_topics(
        self, tx: Tx, scope: Scope, candidates: Sequence[tuple[int, Vector]], *, min_cosine: float
    ) -> tuple[list[tuple[int, str, float]], dict[str, tuple[tuple[str, str, str, int], ...]], dict[str, str]]:
        """(candidate index, temp memory id, cosine) for live temp memories at least min_cosine alike, per
        candidate best first (equal scores by id), and each one's live triples and text; scanned in Neo4j
        (matches() asks the vector cache first)."""
        if not candidates:
            return [], {}, {}
        rows = tx.run("episode/temp_topics", {
            **scope_params(scope), "threshold": _score(min_cosine),
            "candidates": [{"i": i, "embedding": Floats(map(float, emb))} for i, emb in candidates],
        })
        return ([(int(r["i"]), r["id"], _cosine(r["score"])) for r in rows],
                {r["id"]: _triples(r["triples"]) for r in rows}, {r["id"]: str(r["text"]) for r in rows})

    def memory_count(self, tx: Tx, scope: Scope) -> int:
        return int(tx.run("memory/count_for_user", scope_params(scope))[0]["n"])

    def memories(self, tx: Tx, scope: Scope, ids: Sequence[str]) -> dict[str, Memory]:
        if not ids:
            return {}
        rows = tx.run("episode/memories", {**scope_params(scope), "ids": list(ids)})[0]["memories"]
        return {m["id"]: memory_from_row(m) for m in rows}

    # ----- reads on their own -------------------------------------------------------------

    def recent(self, scope: Scope, session_id: str, n: int) -> list[Episode]:
        """The last n turns of a session, oldest first."""
        rows = self._store.read("episode/recent", {**scope_params(scope), "session": session_node_id(scope, session_id),
                                                   "n": n})
        return [episode_from_row(r["episode"]) for r in reversed(rows)]

    def turns(self, scope: Scope, session_id: str, *, limit: int,
              after: str | None = None) -> Paged[SessionTurn] | None:
        """`limit` of the session's stored turns in turn order after the cursor `after` (episode/turns); None when
        the user has no such session."""
        [row] = self._store.read("episode/turns", {
            **scope_params(scope), "session": session_node_id(scope, session_id),
            "after_turn": decode_turn_cursor(after) if after else None, "limit": limit + 1})
        if not row["known"]:
            return None
        found = [SessionTurn(episode_id=t["id"], turn=int(t["turn"]), speaker=t["speaker"], text=t["text"],
                             at=to_datetime(t["at"]), device_id=t["device_id"], memory_ids=tuple(sorted(t["memories"])))
                 for t in row["turns"]]
        return paged(found, limit, turn_cursor)

    def dump(self, scope: Scope) -> tuple[list[str], list[str]]:
        """A canonical dump of everything the user has: sorted JSON lines of nodes and of edges."""
        nodes = self._store.read("episode/dump_user_nodes", scope_params(scope))
        edges = self._store.read("episode/dump_user_edges", scope_params(scope))
        node_lines = sorted(json.dumps({"labels": sorted(r["labels"]), "props": _plain(r["props"])},
                                       sort_keys=True, ensure_ascii=False) for r in nodes)
        edge_lines = sorted(json.dumps({"a": [sorted(r["a_labels"]), r["a_key"]], "type": r["type"],
                                        "props": _plain(r["props"]), "b": [sorted(r["b_labels"]), r["b_key"]]},
                                       sort_keys=True, ensure_ascii=False) for r in edges)
        return node_lines, edge_lines


def _plain(value: Any) -> Any:
    """Neo4j values to JSON-able ones (times as ISO text, floats as their exact repr)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return repr(value)
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if isinstance(value, datetime):
        return value.isoformat()
    return value
