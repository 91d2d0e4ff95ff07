// The memories $ids of one user as conflict detection weighs which of a pair was said later (validity start,
// creation, session and turn, the user's memory sequence) and reads the later one's text: a missing id (forgotten,
// or someone else's) is left out. Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime
// hydration is slow.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
          valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
          last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
          last_feedback_at: toString(m.last_feedback_at)} AS memory
