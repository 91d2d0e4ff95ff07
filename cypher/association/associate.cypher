// Associate two memories of one user with a strength in [0, 1]. The edge is undirected in meaning;
// it is stored once, from the smaller id to the larger, so a pair never has two edges.
MATCH (a:Memory {id: $low_id}), (b:Memory {id: $high_id})
WHERE a.tenant = $tenant AND a.user_id = $user_id AND b.tenant = $tenant AND b.user_id = $user_id
MERGE (a)-[r:ASSOCIATED]->(b)
  ON CREATE SET r.created_at = $now, r.tenant = $tenant, r.user_id = $user_id, r.formed_by = 'user'
SET r.strength = $strength, r.updated_at = $now
RETURN a.id AS memory_a, b.id AS memory_b, r.strength AS strength
