// Take the write lock on one user's node (created when missing) for the rest of the transaction, so
// a user's ingests, reactions and sweeps run one at a time and capacities hold under concurrency.
// Setting and removing a marker leaves the node unchanged but holds its lock until commit.
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u.created_at = $now
SET u.tier_lock = true
REMOVE u.tier_lock
RETURN u.user_id AS user_id
