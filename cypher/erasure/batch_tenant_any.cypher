// forgetTenant, sweep: erase up to $batch nodes stamped with one tenant whatever their label and user (a label a
// deployment added, a node of no user, one written while the tenant's users were being erased), with every
// relationship touching them; the tenant's API keys only when $keys (else they stay). Report what went.
MATCH (n)
WHERE n.tenant = $tenant AND ($keys OR NOT n:ApiKey)
WITH n LIMIT $batch
{{> erasure/delete_nodes}}
