// Take the write lock of one changeset of one tenant for the rest of the transaction: a run's user
// transaction takes it before it records its entries, undo takes it first (maintenance/changeset_undone), so
// the two never interleave; then maintenance/changeset_is_undone tells the run whether to go on.
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant
SET c._lock = true
REMOVE c._lock
RETURN c.id AS id
