// Of the given memories of one user ($ids), those still waiting for their after-store hooks (an import's new
// memories, run right after it committed: bmam/usecases/export.py), in the order they were said (validity
// start, then creation, then the user's memory sequence), each with its embedding and what a hook is given
// about it, as memory/hooks_pending gives them. A memory evicted since, or whose hooks already went through, is
// not among them.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.hooks_pending_at IS NOT NULL
WITH m ORDER BY coalesce(m.valid_from, m.created_at), m.created_at, m.seq, m.id
RETURN m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
          valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
          last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
          last_feedback_at: toString(m.last_feedback_at), hooks_pending_at: null} AS memory,
       m.embedding AS embedding
