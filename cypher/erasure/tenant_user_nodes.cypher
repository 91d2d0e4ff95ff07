// How many user-data nodes (any label, any user) one tenant has: for isolation checks and tests
// (one tenant's writes must never change another's count). API keys (no user_id) are not counted.
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id IS NOT NULL
RETURN count(n) AS nodes
