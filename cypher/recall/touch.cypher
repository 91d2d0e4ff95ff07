// Recall's final read, and its usage update in the same statement: each recalled live memory of one user
// (in $ids order) gets recall_count + 1, last_recalled_at = $now and passive + $boost (clamped to 1), and
// its weight recomputed from its parts (clamped to [0, 1]). The write lock is taken (in id order, so two
// recalls never deadlock) before the values are read, so concurrent recalls never lose an update.
// First, the memories recalled together ($pairs, smaller id first): each pair's association gets + $delta,
// clamped to [0, 1]; a pair not yet associated gets an edge of strength $delta (one edge per pair, as
// association/associate stores it), locked before its strength is read; an edge the user set to 0 stays 0.
// A pair with a superseded memory (recalled with includeHistory or asOf) is left out: history keeps no
// associations (conflict/settle_pair moved them to the winner).
CALL () {
  UNWIND $pairs AS pair
  MATCH (a:Memory {id: pair.low}), (b:Memory {id: pair.high})
  WHERE a.tenant = $tenant AND a.user_id = $user_id AND b.tenant = $tenant AND b.user_id = $user_id
    AND a.valid_to IS NULL AND b.valid_to IS NULL
  MERGE (a)-[r:ASSOCIATED]-(b)
    ON CREATE SET r.created_at = $now, r.strength = 0.0, r.tenant = $tenant, r.user_id = $user_id,
                  r.formed_by = 'recalled'
  SET r._lock = true
  REMOVE r._lock
  // 0 from the user (association/associate) is their "not related": recalled together, it stays 0
  WITH r, CASE WHEN r.formed_by = 'user' AND r.strength = 0.0 THEN 0.0
               ELSE coalesce(r.strength, 0.0) + $delta END AS s
  SET r.strength = CASE WHEN s > 1.0 THEN 1.0 WHEN s < 0.0 THEN 0.0 ELSE s END,
      r.updated_at = $now, r.co_recalled = coalesce(r.co_recalled, 0) + 1
}
// A superseded memory (recalled with includeHistory or asOf) is read back untouched: looking at the past is no
// use of what no longer holds.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH m ORDER BY m.id
CALL (m) {
  WITH m WHERE m.valid_to IS NULL
  SET m._recall_lock = true
  REMOVE m._recall_lock
  WITH m, coalesce(m.passive, 0.0) + $boost AS p
  SET m.passive = CASE WHEN p > 1.0 THEN 1.0 WHEN p < 0.0 THEN 0.0 ELSE p END,
      m.recall_count = coalesce(m.recall_count, 0) + 1,
      m.last_recalled_at = $now
  WITH m, $passive_share * m.passive + $active_share * coalesce(m.active, 0.0)
          + $preset_share * coalesce(m.preset, 0.0) AS w
  SET m.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
}
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
RETURN m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
          valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
          last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
          last_feedback_at: toString(m.last_feedback_at)} AS memory
