// Memories whose after-store hooks were left unfinished since before $before (a failure after the ingest
// committed, a process that stopped): in one tenant ($tenant) or in all (null), for one user ($user_id) or
// all (null), oldest first, at most $limit; each with its embedding and what a hook is given about it
// (bmam/usecases/hooks.py StoredMemoryContext; the triples are read by graph/nested.py).
MATCH (m:Memory)
WHERE m.hooks_pending_at < datetime($before)
  AND ($tenant IS NULL OR m.tenant = $tenant) AND ($user_id IS NULL OR m.user_id = $user_id)
WITH m ORDER BY m.hooks_pending_at, m.tenant, m.user_id, m.seq, m.id
LIMIT $limit
RETURN m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
          valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
          last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
          last_feedback_at: toString(m.last_feedback_at), hooks_pending_at: null} AS memory,
       m.embedding AS embedding
