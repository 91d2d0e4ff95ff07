// Mark a changeset of one tenant undone, first in the undo transaction: its write lock, held to the end, makes
// a second undo wait (then find it undone) and a running run's next user stop (graph/changesets.py guard).
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant AND c.undone = false
SET c.undone = true, c.undone_at = $now
RETURN c {.*} AS changeset
