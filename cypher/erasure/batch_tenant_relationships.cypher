// forgetTenant, last sweep: erase up to $batch relationships stamped with one tenant that are still left
// (their nodes are gone already in any consistent graph; this makes sure).
MATCH ()-[r]->()
WHERE r.tenant = $tenant
WITH r LIMIT $batch
{{> erasure/delete_relationships}}
