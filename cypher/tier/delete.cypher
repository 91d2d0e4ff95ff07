// Delete unlocked memories of one user (eviction, a stale or dismissed temp memory) with their edges
// and the triples they assert. A locked memory is never deleted here (only forget with confirm), nor
// superseded history or a memory held in an open conflict (ingest/tier_policy.py never picks them;
// checked again here, as a conflict may have opened since the rows were read).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked AND m.valid_to IS NULL
  AND NOT EXISTS { MATCH (c:Conflict {status: 'OPEN'})-[:BETWEEN]->(m) WHERE c.tenant = $tenant }
OPTIONAL MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
WITH m, collect(t) AS triples
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id, m.tier AS tier
DETACH DELETE m
RETURN id, tier
