// forgetTenant, after its users: erase up to $batch nodes of one tenant that belong to no user of it, through
// the Changeset tenant index: the tenant-wide maintenance changesets (user_id null) and the tenant's changeset
// counter (label ChangesetCounter, maintenance/tenant_lock). API keys are not Changesets: they stay.
MATCH (n:Changeset)
WHERE n.tenant = $tenant AND n.user_id IS NULL
WITH n LIMIT $batch
{{> erasure/delete_nodes}}
