// The changesets of one tenant (optionally those that cover one user), newest first.
MATCH (c:Changeset)
WHERE c.tenant = $tenant AND ($user_id IS NULL OR c.user_id = $user_id OR c.user_id IS NULL)
RETURN c {.*} AS changeset
ORDER BY c.created_at DESC, c.id DESC
LIMIT $limit
