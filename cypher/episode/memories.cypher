// Memories of one user by id (after an ingest, to answer with their final state).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
RETURN collect(m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
          valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
          last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
          last_feedback_at: toString(m.last_feedback_at)}) AS memories
