// What settling a new memory's conflicts will find, read before anything is written (settling inside a
// transaction that cannot be rolled back on its own looks ahead: does the new memory lose before its last
// finding?): the new memory and, per item of $items ({id, old_id}, in order), the old memory and the status
// and loser of the conflict if it is recorded already. A missing memory (forgotten, or someone else's) is null.
OPTIONAL MATCH (n:Memory {id: $new_id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n
UNWIND range(0, size($items) - 1) AS i
WITH n, i, $items[i] AS item
OPTIONAL MATCH (o:Memory {id: item.old_id})
WHERE o.tenant = $tenant AND o.user_id = $user_id
OPTIONAL MATCH (c:Conflict {id: item.id})
WHERE c.tenant = $tenant AND c.user_id = $user_id
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
RETURN i, c.status AS status, c.loser_id AS loser_id,
       n {.*, embedding: null, created_at: toString(n.created_at), valid_from: toString(n.valid_from),
          valid_to: toString(n.valid_to), last_mentioned_at: toString(n.last_mentioned_at),
          last_recalled_at: toString(n.last_recalled_at), decayed_at: toString(n.decayed_at),
          last_feedback_at: toString(n.last_feedback_at)} AS new_memory,
       o {.*, embedding: null, created_at: toString(o.created_at), valid_from: toString(o.valid_from),
          valid_to: toString(o.valid_to), last_mentioned_at: toString(o.last_mentioned_at),
          last_recalled_at: toString(o.last_recalled_at), decayed_at: toString(o.decayed_at),
          last_feedback_at: toString(o.last_feedback_at)} AS old_memory
