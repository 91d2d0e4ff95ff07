// Record the conflicts of one new memory of one user with several old ones at once ($items, in order:
// {id, old_id, kind, reason}): for each item whose old memory exists, what conflict/record does (idempotent on
// the derived id; BETWEEN {role} edges to both sides), after write-locking the new memory and every old one
// found, all in id order, as weights/lock locks them. One row per recorded item: its position i, and with
// $with_memories both memories as conflict/get_many reads them (null without).
MATCH (n:Memory {id: $new_id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
CALL (n) {
  MATCH (o:Memory)
  WHERE o.id IN [item IN $items | item.old_id] AND o.tenant = $tenant AND o.user_id = $user_id
  WITH n, collect(o) AS olds
  UNWIND olds + [n] AS m
  WITH DISTINCT m
  ORDER BY m.id
  SET m._lock = true
  REMOVE m._lock
}
UNWIND range(0, size($items) - 1) AS i
WITH n, i, $items[i] AS item
MATCH (o:Memory {id: item.old_id})
WHERE o.tenant = $tenant AND o.user_id = $user_id
MERGE (c:Conflict {id: item.id})
  ON CREATE SET c.tenant = $tenant, c.user_id = $user_id, c.kind = item.kind, c.status = 'OPEN',
                c.strategy = $strategy, c.reason = item.reason, c.new_id = $new_id, c.old_id = item.old_id,
                c.created_at = $now, c.is_new = true
WITH i, c, n, o
WHERE c.tenant = $tenant AND c.user_id = $user_id
WITH i, c, n, o, coalesce(c.is_new, false) AS created
REMOVE c.is_new
MERGE (c)-[rn:BETWEEN {role: 'new'}]->(n)
  ON CREATE SET rn.tenant = $tenant, rn.user_id = $user_id
MERGE (c)-[ro:BETWEEN {role: 'old'}]->(o)
  ON CREATE SET ro.tenant = $tenant, ro.user_id = $user_id
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
RETURN i, c {.*, created_at: toString(c.created_at), resolved_at: toString(c.resolved_at)} AS conflict, created,
       CASE WHEN $with_memories THEN n {.*, embedding: null, created_at: toString(n.created_at),
          valid_from: toString(n.valid_from), valid_to: toString(n.valid_to),
          last_mentioned_at: toString(n.last_mentioned_at), last_recalled_at: toString(n.last_recalled_at),
          decayed_at: toString(n.decayed_at), last_feedback_at: toString(n.last_feedback_at)} END AS new_memory,
       CASE WHEN $with_memories THEN o {.*, embedding: null, created_at: toString(o.created_at),
          valid_from: toString(o.valid_from), valid_to: toString(o.valid_to),
          last_mentioned_at: toString(o.last_mentioned_at), last_recalled_at: toString(o.last_recalled_at),
          decayed_at: toString(o.decayed_at), last_feedback_at: toString(o.last_feedback_at)} END AS old_memory
