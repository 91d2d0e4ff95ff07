// Undo, step 2: put memories of one user back to their before-images: create the ones that were deleted
// (merged away or purged), set exactly the recorded properties (removing any added since) and labels;
// the embedding of a re-created memory goes back through the vector procedure (float32, as stored).
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
// The user's scope_token (graph/scope_token.py) whatever the before-image holds (one taken before the
// tokens existed has none).
SET m.scope_token = $scope_token
WITH m, n, created
// A re-created memory keeps its old sequence number (undo is exact), so the user's memory epoch
// changes instead: an in-process vector cache (graph/vector_cache.py) reads the user anew.
CALL (m, created) {
  WITH m WHERE created
  MATCH (u:User {tenant: $tenant, user_id: $user_id})
  SET u.memory_epoch = randomUUID()
}
WITH m, n
CALL (m, n) {
  WITH m, n WHERE n.embedding IS NOT NULL AND n.float32
  CALL db.create.setNodeVectorProperty(m, 'embedding', n.embedding)
}
CALL (m, n) {
  WITH m, n WHERE n.embedding IS NOT NULL AND NOT n.float32
  SET m.embedding = n.embedding
}
RETURN count(m) AS restored
