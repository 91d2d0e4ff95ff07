// The triples asserted by each of several memories of one user, in one round trip (the DataLoader
// behind Memory.triples, so a page of memories costs one query, not one per memory).
UNWIND $memory_ids AS memory_id
MATCH (s:Entity)-[t:TRIPLE {memory_id: memory_id}]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id
RETURN memory_id, t.id AS id, s {.id, .name, .kind} AS subject, t.predicate AS predicate,
       o {.id, .name, .kind} AS object, t.polarity AS polarity, t.memory_id AS memory_id_of_triple,
       t.created_at AS created_at, t.valid_to AS valid_to
ORDER BY memory_id, created_at, id
