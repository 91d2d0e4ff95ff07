// Quick check: core memories of a tenant (one user or all) that are not reachable: no HAS_MEMORY edge from
// their user, or no embedding (so recall cannot find them).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND ($user_id IS NULL OR m.user_id = $user_id) AND m.tier = 'core'
  AND m.valid_to IS NULL  // superseded history is outside the tiers (a corrected core memory keeps tier 'core')
WITH m,
     EXISTS { MATCH (u:User)-[:HAS_MEMORY]->(m) WHERE u.tenant = m.tenant AND u.user_id = m.user_id } AS owned,
     m.embedding IS NOT NULL AS embedded
WHERE NOT owned OR NOT embedded
RETURN m.user_id AS user_id, m.id AS id, owned, embedded
ORDER BY user_id, id
LIMIT $limit
