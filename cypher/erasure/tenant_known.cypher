// Whether anything of one tenant is stored, any label (its users' data, its changesets, its API keys): what
// forgetTenant asks before it erases, so an unknown tenant is NOT_FOUND, not an empty receipt.
OPTIONAL MATCH (n)
WHERE n.tenant = $tenant
WITH n LIMIT 1
RETURN n IS NOT NULL AS known
