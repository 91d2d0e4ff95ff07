// The tenants that have users (operator runs over every tenant: the CLI `--all-tenants`, the scheduler).
MATCH (u:User)
WHERE $tenant IS NULL OR u.tenant = $tenant
RETURN DISTINCT u.tenant AS tenant
ORDER BY tenant
