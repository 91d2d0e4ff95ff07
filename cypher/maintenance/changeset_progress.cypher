// Add one user's results to a running changeset of the tenant (in that user's own transaction, so the
// changeset never lists a change that was rolled back).
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant AND ($run_user_id IS NULL OR c.user_id = $run_user_id)
SET c.users_done = c.users_done + 1,
    c.decayed = c.decayed + $decayed,
    c.merged = c.merged + $merged,
    c.purged = c.purged + $purged,
    c.damped = c.damped + $damped,
    c.lifted = c.lifted + $lifted
RETURN c.id AS id
