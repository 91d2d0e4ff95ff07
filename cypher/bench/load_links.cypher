// Bench only (bench/recall_latency.py): bulk-load entity mentions and association edges between
// filler memories of one user (fresh ones: the caller passes each mention and pair once, so CREATE, which
// stays fast on a hub entity where MERGE would scan its mentions). Never run by the service.
UNWIND $mentions AS x
MATCH (m:Memory {id: x.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
MERGE (e:Entity {id: x.entity_id})
  ON CREATE SET e.tenant = $tenant, e.user_id = $user_id, e.name = x.name, e.kind = 'thing', e.created_at = $now
CREATE (m)-[:MENTIONS]->(e)
WITH count(*) AS mentioned
UNWIND $pairs AS p
MATCH (a:Memory {id: p.low}), (b:Memory {id: p.high})
WHERE a.tenant = $tenant AND a.user_id = $user_id AND b.tenant = $tenant AND b.user_id = $user_id
CREATE (a)-[r:ASSOCIATED {created_at: $now, strength: p.strength, updated_at: $now, tenant: $tenant,
                          user_id: $user_id}]->(b)
RETURN mentioned, count(*) AS associated
