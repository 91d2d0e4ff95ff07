// Store a new API key of a tenant (an app): its id, name and the salted hash of its secret, never the secret.
// Keys belong to a tenant, not to a user inside it, so they carry no user_id.
CREATE (k:ApiKey {id: $id, tenant: $tenant, name: $name, prefix: $prefix, salt: $salt, hash: $hash,
                  created_at: $now})
RETURN k {.id, .tenant, .name, .prefix, .created_at, .revoked_at} AS key
