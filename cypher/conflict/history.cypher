// The history of one user's knowledge, superseded memories included: the memories about an entity (by
// name, case-insensitive), or one memory, or (neither given) every memory in a SUPERSEDES chain and every
// superseded one (valid_to set: also one whose successor was deleted since, by forget or the tiers); each
// widened to its whole supersession chain (up to 10 steps either way), oldest first (by valid_from, a memory
// stored without one by its created_at, as graph/records.py reads it), with what it supersedes and what
// superseded it. A page of them: keyset on (valid_from, id) after ($after_at, $after_id) (graph/paging.py; both
// null for the first page), cut before the links are read.
CALL () {
  MATCH (m:Memory {id: $memory_id})
  WHERE $memory_id IS NOT NULL AND m.tenant = $tenant AND m.user_id = $user_id
  RETURN m
  UNION
  MATCH (m:Memory)-[:MENTIONS]->(e:Entity)
  WHERE $entity IS NOT NULL AND m.tenant = $tenant AND m.user_id = $user_id
    AND e.tenant = $tenant AND e.user_id = $user_id AND toLower(e.name) = toLower($entity)
  RETURN m
  UNION
  MATCH (m:Memory)
  WHERE $memory_id IS NULL AND $entity IS NULL AND m.tenant = $tenant AND m.user_id = $user_id
    AND (m.valid_to IS NOT NULL OR EXISTS { (m)-[:SUPERSEDES]-(:Memory) })
  RETURN m
}
MATCH (m)-[:SUPERSEDES*0..10]-(h:Memory)
WHERE h.tenant = $tenant AND h.user_id = $user_id
WITH DISTINCT h
WITH h, coalesce(h.valid_from, h.created_at) AS since
WHERE $after_id IS NULL OR since > $after_at OR (since = $after_at AND h.id > $after_id)
WITH h, since
ORDER BY since, h.id
LIMIT $limit
OPTIONAL MATCH (h)-[:SUPERSEDES]->(older:Memory)
WITH h, since, collect(DISTINCT older.id) AS supersedes
OPTIONAL MATCH (newer:Memory)-[:SUPERSEDES]->(h)
WITH h, since, supersedes, collect(DISTINCT newer.id) AS superseded_by
RETURN h {.*, embedding: null} AS memory, supersedes, superseded_by
ORDER BY since, h.id
