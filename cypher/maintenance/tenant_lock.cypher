// Take the write lock of one tenant's changeset counter (created when missing) for the rest of the
// transaction: changesets get their seq, and each user's maintenance transaction its apply stamp, one at
// a time per tenant. The counter is a Changeset node (label ChangesetCounter, no user_id) because the
// unique constraint on Changeset.id is what makes two concurrent first MERGEs create one node, not two.
MERGE (k:Changeset {id: $counter_id})
  ON CREATE SET k:ChangesetCounter, k.tenant = $tenant
SET k._lock = true
REMOVE k._lock
RETURN k.id AS id
