// Associations formed when a memory is stored: with the other memories derived from the same episode
// (strength $same_episode) and with memories sharing an entity with it (the entity hop strength of
// related/search: min(1, $entity_base / sqrt(mentions - 1)), no hub above $max_degree), the most recent
// $per_entity per entity. An existing edge keeps the stronger of its strength and the new one; one edge
// per pair, both memories of the one user.
MATCH (m:Memory {id: $memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
CALL (m) {
  MATCH (m)-[:DERIVED_FROM]->(ep:Episode)<-[:DERIVED_FROM]-(o:Memory)
  WHERE ep.tenant = $tenant AND ep.user_id = $user_id AND o <> m
    AND o.tenant = $tenant AND o.user_id = $user_id
  RETURN o, $same_episode AS strength
  UNION ALL
  MATCH (ep:Episode {id: $episode_id})<-[:DERIVED_FROM]-(o:Memory)
  WHERE ep.tenant = $tenant AND ep.user_id = $user_id AND o <> m
    AND o.tenant = $tenant AND o.user_id = $user_id
  RETURN o, $same_episode AS strength
  UNION ALL
  UNWIND coalesce($episode_mates, []) AS mate_id
  MATCH (o:Memory {id: mate_id})
  WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id
  RETURN o, $same_episode AS strength
  UNION ALL
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WHERE e.tenant = $tenant AND e.user_id = $user_id
  WITH m, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
  WHERE degree >= 2 AND degree <= $max_degree
  CALL (m, e) {
    MATCH (e)<-[:MENTIONS]-(o:Memory)
    WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    RETURN o ORDER BY o.created_at DESC LIMIT $per_entity
  }
  WITH o, $entity_base / sqrt(degree - 1) AS raw
  RETURN o, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength
}
WITH m, o, max(strength) AS strength
WHERE strength > 0.0
WITH CASE WHEN m.id < o.id THEN m ELSE o END AS a, CASE WHEN m.id < o.id THEN o ELSE m END AS b, strength
MERGE (a)-[r:ASSOCIATED]-(b)
  ON CREATE SET r.created_at = $now, r.strength = 0.0, r.tenant = $tenant, r.user_id = $user_id,
                r.formed_by = 'stored'
SET r._lock = true
REMOVE r._lock
SET r.strength = CASE WHEN coalesce(r.strength, 0.0) < strength THEN strength ELSE r.strength END,
    r.updated_at = $now
RETURN b.id AS memory_b, a.id AS memory_a, r.strength AS strength
