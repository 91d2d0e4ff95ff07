// Memories of one user touched by a later changeset that is not undone: undoing an older changeset over
// them would silently throw the later one away, so undo refuses until the later one is undone.
MATCH (e:ChangeEntry)
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.memory_id IN $memory_ids AND e.changeset_id <> $changeset_id
MATCH (c:Changeset {id: e.changeset_id})
WHERE c.tenant = $tenant AND c.undone = false AND c.seq > $seq
RETURN DISTINCT c.id AS changeset_id
ORDER BY changeset_id
LIMIT 10
