// Store a new API key of a tenant (an app): its id, name and the salted hash of its secret, never the secret.
// Keys belong to a tenant, not to a user inside it, so they carry no user_id. admin: the key may manage the
// tenant's keys (graph/keys.py reads a key stored without it as admin).
CREATE (k:ApiKey {id: $id, tenant: $tenant, name: $name, prefix: $prefix, salt: $salt, hash: $hash,
                  created_at: $now, admin: $admin})
RETURN k {.id, .tenant, .name, .prefix, .created_at, .revoked_at, .admin} AS key
