// Delete unlocked memories of one user (eviction, a stale or dismissed temp memory) with their edges
// and the triples they assert. A locked memory is never deleted here (only forget with confirm), nor
// superseded history or a memory held in an open conflict (ingest/tier_policy.py never picks them;
// checked again here, as a conflict may have opened since the rows were read). As forget leaves nothing
// naming a memory (memory/forget), so here: the user's settled conflicts it was in (their reason quotes its
// text; a winner gone from one left it half-attached) and the entities only it named (memory/orphan_entities).
UNWIND $ids AS id
WITH DISTINCT id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked AND m.valid_to IS NULL
  AND NOT EXISTS { MATCH (c:Conflict {status: 'OPEN'})-[:BETWEEN]->(m) WHERE c.tenant = $tenant }
CALL (m) {
  MATCH (k:Conflict)-[:BETWEEN]->(m)
  WHERE k.tenant = $tenant AND k.user_id = $user_id
  DETACH DELETE k
}
OPTIONAL MATCH (s:Entity)-[t:TRIPLE {memory_id: m.id}]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id
WITH m, collect(t) AS triples, collect(s) + collect(o) AS ends
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
WITH m, triples, ends, collect(e) AS mentioned
WITH m, triples, ends + mentioned AS entities
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id, m.tier AS tier, entities
DETACH DELETE m
// the orphan check runs once over every deleted memory's entities: run per row, the planner's Eager after the
// deletes let one row delete an entity that a later row's list still held, and reading it failed
// (Neo.ClientError.Statement.EntityNotFound)
WITH collect({id: id, tier: tier}) AS deleted, collect(entities) AS lists
WITH deleted, reduce(acc = [], l IN lists | acc + l) AS entities
{{> memory/orphan_entities}}
UNWIND deleted AS d
RETURN d.id AS id, d.tier AS tier
