// Delete up to $batch API keys of one tenant, revoked or not (`bmam forget-tenant --keys`: nothing of the
// tenant is left); how many went. Through the api_key_tenant index.
MATCH (k:ApiKey)
WHERE k.tenant = $tenant
WITH k LIMIT $batch
DETACH DELETE k
RETURN count(*) AS deleted
