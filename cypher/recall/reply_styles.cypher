// The live memories of one user that say how the user wants to be answered (an affirmed ($predicate) triple of
// the user's entity, any of $subject_ids: ingest/reply_style.py), newest first, at most $limit, as memory/get
// reads them: contextPrompt shows them in a section of their own on every turn, related to the input or not.
UNWIND $subject_ids AS subject_id
MATCH (:Entity {id: subject_id})-[t:TRIPLE]->(:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.predicate = $predicate AND t.polarity = 1
MATCH (m:Memory {id: t.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
WITH DISTINCT m
ORDER BY m.created_at DESC, m.id
LIMIT $limit
RETURN m {.*, embedding: null} AS memory
