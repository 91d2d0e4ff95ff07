// Bench only (bench/export_rdf.py): delete a batch of one bench user's nodes (memories, then entities,
// then the user), with their edges; returns how many were deleted (call until 0).
CALL () {
  MATCH (m:Memory) WHERE m.tenant = $tenant AND m.user_id = $user_id
  RETURN m AS n LIMIT $batch
  UNION
  MATCH (e:Entity) WHERE e.tenant = $tenant AND e.user_id = $user_id
  RETURN e AS n LIMIT $batch
  UNION
  MATCH (u:User {tenant: $tenant, user_id: $user_id})
  RETURN u AS n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
