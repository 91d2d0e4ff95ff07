// The triples one memory asserts.
MATCH (s:Entity)-[t:TRIPLE {memory_id: $memory_id}]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id
RETURN t.id AS id, s {.id, .name, .kind} AS subject, t.predicate AS predicate,
       o {.id, .name, .kind} AS object, t.polarity AS polarity, t.memory_id AS memory_id,
       t.created_at AS created_at, t.valid_to AS valid_to
ORDER BY t.created_at, t.id
