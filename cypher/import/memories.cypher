// Import: create one user's memories from an export, one per row (idempotent on the row's id: a memory
// that exists is kept as it is). Labels come from the file, checked in graph/rdf.py; the embedding is
// computed anew by the current model. A row whose id belongs to another user yields nothing (the
// caller then gives it a derived id). $scope_token names the user in the full-text index (graph/scope_token.py);
// r.text_key is the text's repeat key (graph/text_key.py), computed anew like the embedding. A memory created
// here waits for its stored-memory hooks since $hooks_pending_at (null: none, the target user had no memories
// of their own to meet), as ingest marks its new memories (bmam/usecases/hooks.py; hooks_done clears it).
UNWIND $rows AS r
MERGE (m:Memory {id: r.id})
  ON CREATE SET m += r.props, m.tenant = $tenant, m.user_id = $user_id, m.origin_id = r.origin_id,
                m.scope_token = $scope_token, m.text_key = r.text_key, m.is_new = true,
                m.hooks_pending_at = datetime($hooks_pending_at)
WITH m, r
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH m, r, coalesce(m.is_new, false) AS created
REMOVE m.is_new
WITH m, r, created
CALL (m, r, created) {
  WITH m, r WHERE created
  SET m:$(r.labels)
  // A new memory takes the user's next sequence number (graph/vector_cache.py catches up by it).
  WITH m, r
  CALL (m) {
    MATCH (u:User {tenant: $tenant, user_id: $user_id})
    SET u.memory_seq = coalesce(u.memory_seq, 0) + 1, u.memory_epoch = coalesce(u.memory_epoch, randomUUID())
    SET m.seq = u.memory_seq
  }
  WITH m, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
}
RETURN m.id AS id, created, m.seq AS seq
