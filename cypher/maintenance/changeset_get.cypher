// One changeset of one tenant by id, with the users its entries belong to (never the tenant's counter,
// maintenance/tenant_lock).
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant AND NOT c:ChangesetCounter AND ($user_id IS NULL OR c.user_id = $user_id OR c.user_id IS NULL)
{{> maintenance/changeset_users}}
RETURN c {.*} AS changeset, users
