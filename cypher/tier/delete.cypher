// Delete unlocked memories of one user (eviction, a stale or dismissed temp memory) with their edges
// and the triples they assert. A locked memory is never deleted here (only forget with confirm).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked
OPTIONAL MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
WITH m, collect(t) AS triples
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id, m.tier AS tier
DETACH DELETE m
RETURN id, tier
