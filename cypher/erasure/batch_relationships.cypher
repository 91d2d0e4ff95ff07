// forgetUser, last sweep: erase up to $batch relationships stamped with one (tenant, user) that are
// still left (their nodes are gone already in any consistent graph; this makes sure).
MATCH ()-[r]->()
WHERE r.tenant = $tenant AND r.user_id = $user_id
WITH r LIMIT $batch
{{> erasure/delete_relationships}}
