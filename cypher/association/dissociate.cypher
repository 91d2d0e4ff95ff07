// Remove the association between two memories of one user (the pair's one edge, whichever way it is stored).
// The memories stay; the system may form the pair again (same episode, shared terms, recalled together): the
// user's lasting "not related" is association/associate with strength 0. No row when either memory is missing
// or another user's; `removed` counts the edges deleted (0 or 1).
MATCH (a:Memory {id: $low_id}), (b:Memory {id: $high_id})
WHERE a.tenant = $tenant AND a.user_id = $user_id AND b.tenant = $tenant AND b.user_id = $user_id
OPTIONAL MATCH (a)-[r:ASSOCIATED]-(b)
DELETE r
RETURN a.id AS memory_a, b.id AS memory_b, count(r) AS removed
