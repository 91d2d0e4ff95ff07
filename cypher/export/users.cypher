// Export of a whole tenant: its users' ids, a page at a time (keyset on user_id, ordered by the
// (tenant, user_id) key). The only export statement that filters on the tenant alone: it lists the
// users that the tenant-wide export then reads one at a time, each by (tenant, user_id).
MATCH (u:User)
WHERE u.tenant = $tenant AND ($after IS NULL OR u.user_id > $after)
RETURN u.user_id AS user_id
ORDER BY user_id
LIMIT $limit
