// Import: the target user's (:User) node, created with the file's properties or kept as it is.
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u += $props
RETURN u.user_id AS user_id
