// Export: the knowledge triples asserted by a page of one user's memories (found through the TRIPLE
// memory_id index), each with the ids of its two entities (resolved to IRIs once per page).
UNWIND $memory_ids AS memory_id
MATCH (s:Entity)-[t:TRIPLE {memory_id: memory_id}]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id
  AND s.tenant = $tenant AND s.user_id = $user_id AND o.tenant = $tenant AND o.user_id = $user_id
RETURN properties(t) AS props, s.id AS subject, o.id AS object
ORDER BY t.memory_id, t.id
