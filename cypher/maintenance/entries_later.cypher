// Memories of one user changed again by a changeset that is not undone and whose change was applied after
// this one's ($applied: the apply stamp of this changeset's transaction for the user; entries without a
// stamp were written before stamps existed, so before any stamped one). Undoing the older change over
// them would silently throw the later one away, so undo refuses until the later one is undone.
MATCH (e:ChangeEntry)
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.memory_id IN $memory_ids
  AND e.changeset_id <> $changeset_id AND e.applied > $applied
MATCH (c:Changeset {id: e.changeset_id})
WHERE c.tenant = $tenant AND c.undone = false
WITH c, e ORDER BY e.memory_id
RETURN c.id AS changeset_id, c.kind AS kind, collect(DISTINCT e.memory_id)[..5] AS memory_ids
ORDER BY changeset_id
LIMIT 10
