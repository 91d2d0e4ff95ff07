// The users to maintain: one user, every user of one tenant, or (operator runs with $tenant null: the CLI
// `--all-tenants` and the scheduler) every user of every tenant.
MATCH (u:User)
WHERE ($tenant IS NULL OR u.tenant = $tenant) AND ($user_id IS NULL OR u.user_id = $user_id)
RETURN u.tenant AS tenant, u.user_id AS user_id
ORDER BY tenant, user_id
