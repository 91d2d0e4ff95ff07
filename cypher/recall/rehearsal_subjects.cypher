// The plan warm-up's subjects (bmam/usecases/warm_up.py): Neo4j keys a compiled plan by the size class of each
// string and list parameter too (length 1, 2-10, 11-100, 101-1000...: graph/recall.py plan_size_class), so a plan
// compiled for user "user-100000" is not the one user "user-10000" gets. For each size class of (tenant, user id)
// among users with memories, the user with the most memories (whose first recall after a restart costs most, and
// the likeliest to be asked again), at most $limit of them, biggest first; and, among the first 200 of its live
// memories, the one with the most associations (relatedSearch from it walks more of its rounds). No row on a store
// without memories. One degree read per user.
MATCH (u:User)
WITH u, COUNT { (u)-[:HAS_MEMORY]->() } AS memories
WHERE memories > 0
WITH u, memories,
     [s IN [u.tenant, u.user_id] | CASE WHEN size(s) <= 1 THEN size(s) ELSE size(toString(size(s) - 1)) END] AS class
ORDER BY memories DESC, u.tenant, u.user_id
WITH class, head(collect({user: u, memories: memories})) AS biggest
WITH biggest.user AS u, biggest.memories AS memories
ORDER BY memories DESC, u.tenant, u.user_id
LIMIT $limit
CALL (u) {
  MATCH (u)-[:HAS_MEMORY]->(m:Memory)
  WHERE m.valid_to IS NULL
  WITH m LIMIT 200
  WITH m, COUNT { (m)-[:ASSOCIATED]-() } AS degree
  ORDER BY degree DESC, m.id
  RETURN m
  LIMIT 1
}
RETURN u.tenant AS tenant, u.user_id AS user_id, m.id AS memory_id, memories
