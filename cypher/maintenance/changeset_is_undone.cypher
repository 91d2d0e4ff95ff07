// Whether a changeset of one tenant was undone (a run checks before it records each user's entries, under
// the tenant's lock: a run undone while it ran stops there).
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant
RETURN c.undone AS undone
