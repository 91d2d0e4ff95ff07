// Import: the knowledge triples (subject)-[:TRIPLE]->(object) of one user, each asserted by one of the
// user's memories; idempotent on the triple's id (derived for the target user, as triple/add does).
// The memory's MENTIONS edges are imported with the other relationships, exactly as exported.
UNWIND $rows AS r
MATCH (m:Memory {id: r.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
MATCH (s:Entity {id: r.subject_id})
WHERE s.tenant = $tenant AND s.user_id = $user_id
MATCH (o:Entity {id: r.object_id})
WHERE o.tenant = $tenant AND o.user_id = $user_id
MERGE (s)-[t:TRIPLE {id: r.id}]->(o)
  ON CREATE SET t += r.props, t.predicate = r.predicate, t.memory_id = m.id, t.tenant = $tenant,
                t.user_id = $user_id
RETURN count(t) AS written
