// Take the write lock on one user's node for the rest of the transaction, as tier/lock_user does, but only
// when the user exists: no row for an unknown user, and nothing is created (a sweep of a user who never
// stored anything leaves no trace).
MATCH (u:User {tenant: $tenant, user_id: $user_id})
SET u.tier_lock = true
REMOVE u.tier_lock
RETURN u.user_id AS user_id
