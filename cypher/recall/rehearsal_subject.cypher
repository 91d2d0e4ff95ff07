// The plan warm-up's subject (bmam/usecases/warm_up.py): the user with the most memories (the one whose first
// recall after a restart costs most, and the likeliest to be asked again) and, among the first 200 of its live
// memories, the one with the most associations (relatedSearch from it walks more of its rounds); no row on a
// store without memories. One degree read per user.
MATCH (u:User)
WITH u, COUNT { (u)-[:HAS_MEMORY]->() } AS memories
WHERE memories > 0
ORDER BY memories DESC
LIMIT 1
MATCH (u)-[:HAS_MEMORY]->(m:Memory)
WHERE m.valid_to IS NULL
WITH u, m LIMIT 200
WITH u, m, COUNT { (m)-[:ASSOCIATED]-() } AS degree
ORDER BY degree DESC, m.id
RETURN u.tenant AS tenant, u.user_id AS user_id, m.id AS memory_id
LIMIT 1
