// The history of one user's knowledge, superseded memories included: the memories about an entity (by
// name, case-insensitive), or one memory, or (neither given) every memory in a SUPERSEDES chain and every
// superseded one (valid_to set: also one whose successor was deleted since, by forget or the tiers); each
// widened to its whole supersession chain (up to 10 steps either way), oldest first, with what it
// supersedes and what superseded it.
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
OPTIONAL MATCH (h)-[:SUPERSEDES]->(older:Memory)
WITH h, collect(DISTINCT older.id) AS supersedes
OPTIONAL MATCH (newer:Memory)-[:SUPERSEDES]->(h)
WITH h, supersedes, collect(DISTINCT newer.id) AS superseded_by
RETURN h {.*, embedding: null} AS memory, supersedes, superseded_by
ORDER BY h.valid_from, h.id
LIMIT $limit
