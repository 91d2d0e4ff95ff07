// The changesets of one tenant (optionally those that cover one user), newest first: by time, then by seq
// (of two runs started in the same instant, the later one first; the tenant's counter,
// maintenance/tenant_lock, is no changeset); each with the users it changed (of $user_id alone when given).
MATCH (c:Changeset)
WHERE c.tenant = $tenant AND NOT c:ChangesetCounter AND ($user_id IS NULL OR c.user_id = $user_id OR c.user_id IS NULL)
WITH c ORDER BY c.created_at DESC, coalesce(c.seq, 0) DESC, c.id DESC
LIMIT $limit
{{> maintenance/changeset_users}}
RETURN c {.*} AS changeset, users
ORDER BY c.created_at DESC, coalesce(c.seq, 0) DESC, c.id DESC
