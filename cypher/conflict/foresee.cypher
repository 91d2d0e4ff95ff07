// What settling new memories' conflicts will find, read before anything is written (settling inside a
// transaction that cannot be rolled back on its own looks ahead: does the new memory lose before its last
// finding?): per item of $items ({id, reverse_id, new_id, old_id}, position i) the status, strategy and loser of its
// conflict if it is recorded already (one OPEN by REVIEW is held for review: no settlement takes it) or, when the
// pair is held for review the other way round (reverse_id OPEN by REVIEW, its own id not), of that one (the pair's
// conflict then, as conflict/record and conflict/settle_many answer it: nothing is recorded), and each memory of
// $ids (every new_id and old_id of the items, once) as it stands now; a missing memory (forgotten, or someone
// else's) is left out. One memory's findings, or (the stored-memory hooks of an ingest batch) every finding
// foreseen for the batch at once: a memory is read once however many findings name it. Collected in one row: the
// driver handles each record in Python (~12 us a row).
CALL () {
  UNWIND range(0, size($items) - 1) AS i
  OPTIONAL MATCH (f:Conflict {id: $items[i].id})
  WHERE f.tenant = $tenant AND f.user_id = $user_id
  OPTIONAL MATCH (r:Conflict {id: $items[i].reverse_id})
  WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.status = 'OPEN' AND r.strategy = 'REVIEW'
  WITH i, CASE WHEN f.status = 'OPEN' AND f.strategy = 'REVIEW' THEN f ELSE coalesce(r, f) END AS c
  RETURN collect({i: i, status: c.status, strategy: c.strategy, loser_id: c.loser_id}) AS conflicts
}
CALL () {
  UNWIND $ids AS id
  MATCH (m:Memory {id: id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id
  // Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
  RETURN collect(m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
                    valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
                    last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
                    last_feedback_at: toString(m.last_feedback_at)}) AS memories
}
RETURN conflicts, memories
