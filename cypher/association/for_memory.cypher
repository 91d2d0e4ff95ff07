// The associations of one memory with live memories, strongest first: a superseded one (valid_to set) is
// history, neither reached nor crossed by relatedSearch, so not shown here either (a store written before
// association/form_many left history alone may hold such edges).
MATCH (m:Memory {id: $memory_id})-[r:ASSOCIATED]-(other:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND other.tenant = $tenant AND other.user_id = $user_id AND other.valid_to IS NULL
RETURN m.id AS memory_a, other.id AS memory_b, r.strength AS strength
ORDER BY strength DESC, memory_b
LIMIT $limit
