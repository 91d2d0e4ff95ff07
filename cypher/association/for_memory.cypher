// The associations of one memory, strongest first.
MATCH (m:Memory {id: $memory_id})-[r:ASSOCIATED]-(other:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND other.tenant = $tenant AND other.user_id = $user_id
RETURN m.id AS memory_a, other.id AS memory_b, r.strength AS strength
ORDER BY strength DESC, memory_b
LIMIT $limit
