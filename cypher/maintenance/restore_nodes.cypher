// Undo: re-create memories of one user a run deleted (merged away or purged) from their before-images:
// exactly the recorded properties and labels (an existing node is reset to them, but undo refuses unless
// every one was created here); the embedding goes back through the vector procedure (float32, as stored).
UNWIND $nodes AS n
MERGE (m:Memory {id: n.id})
  ON CREATE SET m.tenant = $tenant, m.user_id = $user_id, m._restored = true
WITH m, n
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH m, n, coalesce(m._restored, false) AS created
SET m += n.props
WITH m, n, created, [k IN keys(m) WHERE NOT k IN keys(n.props) AND k <> 'embedding'] AS extra,
     [l IN labels(m) WHERE NOT l IN n.labels] AS extra_labels
FOREACH (k IN extra | SET m[k] = null)
SET m:$(n.labels)
REMOVE m:$(extra_labels)
// The user's scope_token (graph/scope_token.py) and the text's repeat key (n.text_key, graph/text_key.py)
// whatever the before-image holds (one taken before the tokens or keys existed has none).
SET m.scope_token = $scope_token, m.text_key = n.text_key
WITH m, n, created
// A re-created memory keeps its old sequence number (undo is exact), so the user's memory epoch
// changes instead: an in-process vector cache (graph/vector_cache.py) reads the user anew.
CALL (m, created) {
  WITH m WHERE created
  MATCH (u:User {tenant: $tenant, user_id: $user_id})
  SET u.memory_epoch = randomUUID()
}
WITH m, n, created
CALL (m, n) {
  WITH m, n WHERE n.embedding IS NOT NULL AND n.float32
  CALL db.create.setNodeVectorProperty(m, 'embedding', n.embedding)
}
CALL (m, n) {
  WITH m, n WHERE n.embedding IS NOT NULL AND NOT n.float32
  SET m.embedding = n.embedding
}
// created: how many did not exist (undo refuses when one was re-created since it looked).
RETURN count(m) AS restored, sum(CASE WHEN created THEN 1 ELSE 0 END) AS created
