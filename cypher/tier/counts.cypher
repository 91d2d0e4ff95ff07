// How many memories one user holds in each tier (superseded ones included: they still occupy room).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.tier AS tier, count(m) AS n
