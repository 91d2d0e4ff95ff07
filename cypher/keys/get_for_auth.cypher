// One API key by id with its salt and hash, to verify a presented key. The only key lookup not
// filtered on tenant: the tenant is what a verified key tells us.
MATCH (k:ApiKey {id: $id})
RETURN k {.id, .tenant, .name, .prefix, .salt, .hash, .created_at, .revoked_at, .admin} AS key
