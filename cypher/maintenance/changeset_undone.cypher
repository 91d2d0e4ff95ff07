// Mark a changeset of one tenant undone (after every user's entries were restored).
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant AND c.undone = false
SET c.undone = true, c.undone_at = $now
RETURN c {.*} AS changeset
