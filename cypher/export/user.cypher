// Export: the (:User) node of one user with its labels and properties; no row when the user has
// nothing stored.
MATCH (u:User)
WHERE u.tenant = $tenant AND u.user_id = $user_id
RETURN labels(u) AS labels, properties(u) AS props
