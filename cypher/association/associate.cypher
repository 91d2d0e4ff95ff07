// Associate two memories of one user with a strength in [0, 1]. The edge is undirected in meaning;
// it is stored once, from the smaller id to the larger, so a pair never has two edges.
// Only between live memories: a superseded one (valid_to set) is history, whose associations its conflict's
// settlement moved to the winner, and which neither the listings nor relatedSearch show. Then nothing is
// written and `superseded` names it (graph/associations.py answers CONFLICT); no row when either is missing.
MATCH (a:Memory {id: $low_id}), (b:Memory {id: $high_id})
WHERE a.tenant = $tenant AND a.user_id = $user_id AND b.tenant = $tenant AND b.user_id = $user_id
CALL (a, b) {
  WITH a, b WHERE a.valid_to IS NULL AND b.valid_to IS NULL
  MERGE (a)-[r:ASSOCIATED]->(b)
    ON CREATE SET r.created_at = $now, r.tenant = $tenant, r.user_id = $user_id
  // The user's word on the pair from now on, however the edge formed: forming again (association/form_many)
  // leaves it alone; memories recalled together still strengthen it (recall/touch), as any use does, unless
  // the user set 0: "not related" stays so.
  SET r.strength = $strength, r.updated_at = $now, r.formed_by = 'user'
  RETURN collect(r.strength) AS set_to  // [] when nothing was written
}
RETURN a.id AS memory_a, b.id AS memory_b, set_to[0] AS strength,
       [x IN [a, b] WHERE x.valid_to IS NOT NULL | x.id] AS superseded
