// forgetUser, sweep: erase up to $batch nodes of one (tenant, user) whatever their label (so labels
// added later by any feature are covered), with every relationship touching them; report what went.
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n LIMIT $batch
{{> erasure/delete_nodes}}
