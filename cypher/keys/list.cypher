// The API keys of one tenant ($tenant), or of every tenant when $tenant is null (operator CLI only);
// revoked keys only when $include_revoked. Never returns salts or hashes.
MATCH (k:ApiKey)
WHERE ($tenant IS NULL OR k.tenant = $tenant)
  AND ($include_revoked OR k.revoked_at IS NULL)
RETURN k {.id, .tenant, .name, .prefix, .created_at, .revoked_at, .admin} AS key
ORDER BY k.tenant, k.created_at, k.id
LIMIT $limit
