// Several conflicts of one user by id, each with both of its memories (new and old), as conflict/get reads
// one; an unknown id has no row.
UNWIND $ids AS id
MATCH (c:Conflict {id: id})
WHERE c.tenant = $tenant AND c.user_id = $user_id
OPTIONAL MATCH (n:Memory {id: c.new_id}) WHERE n.tenant = $tenant AND n.user_id = $user_id
OPTIONAL MATCH (o:Memory {id: c.old_id}) WHERE o.tenant = $tenant AND o.user_id = $user_id
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
RETURN c {.*, created_at: toString(c.created_at), resolved_at: toString(c.resolved_at)} AS conflict,
       n {.*, embedding: null, created_at: toString(n.created_at), valid_from: toString(n.valid_from),
          valid_to: toString(n.valid_to), last_mentioned_at: toString(n.last_mentioned_at),
          last_recalled_at: toString(n.last_recalled_at), decayed_at: toString(n.decayed_at),
          last_feedback_at: toString(n.last_feedback_at)} AS new_memory,
       o {.*, embedding: null, created_at: toString(o.created_at), valid_from: toString(o.valid_from),
          valid_to: toString(o.valid_to), last_mentioned_at: toString(o.last_mentioned_at),
          last_recalled_at: toString(o.last_recalled_at), decayed_at: toString(o.decayed_at),
          last_feedback_at: toString(o.last_feedback_at)} AS old_memory
