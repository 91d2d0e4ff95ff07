// Whether a changeset of one tenant was undone (a run's user transaction asks, under the changeset's lock,
// maintenance/changeset_lock, before it records its entries: a run undone while it ran stops there).
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant
RETURN c.undone AS undone
