// Bench only (bench/scale_load.py): for a batch of memories of several users of one tenant, the triple each
// asserts between two of its user's entities (with MENTIONS to both) and its association edges (stored
// from the smaller id to the larger, as the service does). Never run by the service.
UNWIND $triples AS t
MATCH (m:Memory {id: t.memory_id})
WHERE m.tenant = $tenant AND m.user_id = t.user_id
MATCH (s:Entity {id: t.s}), (o:Entity {id: t.o})
WHERE s.tenant = $tenant AND s.user_id = t.user_id AND o.tenant = $tenant AND o.user_id = t.user_id
CREATE (s)-[:TRIPLE {id: t.id, predicate: t.p, polarity: 1, memory_id: m.id, tenant: $tenant,
                     user_id: t.user_id, created_at: $now, valid_to: null}]->(o)
CREATE (m)-[:MENTIONS]->(s)
CREATE (m)-[:MENTIONS]->(o)
WITH count(*) AS triples
UNWIND $pairs AS p
MATCH (a:Memory {id: p.low})
WHERE a.tenant = $tenant AND a.user_id = p.user_id
MATCH (b:Memory {id: p.high})
WHERE b.tenant = $tenant AND b.user_id = p.user_id
CREATE (a)-[:ASSOCIATED {strength: p.strength, created_at: $now, updated_at: $now}]->(b)
RETURN triples, count(*) AS associated
