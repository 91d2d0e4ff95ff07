// Revoke one API key (idempotent: the first revocation time is kept). With $tenant set, only a key of
// that tenant; null is the operator CLI, which may revoke any key by id.
MATCH (k:ApiKey {id: $id})
WHERE $tenant IS NULL OR k.tenant = $tenant
SET k.revoked_at = coalesce(k.revoked_at, $now)
RETURN k {.id, .tenant, .name, .prefix, .created_at, .revoked_at, .admin} AS key
