// The changesets of one tenant (optionally those that cover one user), newest first (the
// tenant's counter, maintenance/tenant_lock, is no changeset).
MATCH (c:Changeset)
WHERE c.tenant = $tenant AND NOT c:ChangesetCounter AND ($user_id IS NULL OR c.user_id = $user_id OR c.user_id IS NULL)
RETURN c {.*} AS changeset
ORDER BY c.created_at DESC, c.id DESC
LIMIT $limit
