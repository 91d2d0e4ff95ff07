// The memories associated with each of several memories of one user, strongest first, at most $limit
// each, in one round trip (the DataLoader behind Memory.associated). Live ones only, as
// association/for_memory shows them.
UNWIND $memory_ids AS memory_id
MATCH (m:Memory {id: memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
CALL (m) {
  MATCH (m)-[r:ASSOCIATED]-(o:Memory)
  WHERE o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
  RETURN o, r.strength AS strength
  ORDER BY strength DESC, o.id
  LIMIT $limit
}
RETURN memory_id, o {.*, embedding: null} AS memory, strength
