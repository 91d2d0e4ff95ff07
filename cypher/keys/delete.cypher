// Delete one API key for good, only once revoked: a key still valid is returned as it is and kept (the caller
// says to revoke it first). With $tenant set, only a key of that tenant; null is the operator CLI, which may
// delete any key by id. Returns the key as it was (no row: no such key).
MATCH (k:ApiKey {id: $id})
WHERE $tenant IS NULL OR k.tenant = $tenant
WITH k, k {.id, .tenant, .name, .prefix, .created_at, .revoked_at, .admin} AS key
FOREACH (_ IN CASE WHEN k.revoked_at IS NOT NULL THEN [1] ELSE [] END | DETACH DELETE k)
RETURN key
