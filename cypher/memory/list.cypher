// A page of a user's memories, newest first, optionally by type and tier.
// Keyset pagination on (created_at, id): $after_created_at/$after_id come from the cursor.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND ($types IS NULL OR m.type IN $types)
  AND ($tiers IS NULL OR m.tier IN $tiers)
  AND ($include_history OR m.valid_to IS NULL)
  AND ($after_id IS NULL
       OR m.created_at < $after_created_at
       OR (m.created_at = $after_created_at AND m.id < $after_id))
RETURN m {.*, embedding: null} AS memory
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
