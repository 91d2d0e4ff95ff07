// forgetTenant, fast path: a page of the users of one tenant, those after $after in id order, through the
// User key constraint's index (every write of a user's data merges its User node).
MATCH (u:User)
WHERE u.tenant = $tenant AND u.user_id > $after
RETURN u.user_id AS user_id
ORDER BY user_id
LIMIT $limit
