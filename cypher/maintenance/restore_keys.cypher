// Undo, on memories of one user that still exist: put back the properties a run changed (set: their
// before values; remove: keys the run added), leaving every other property, the labels, relationships and
// embedding as they are now.
UNWIND $nodes AS n
MATCH (m:Memory {id: n.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
SET m += n.set
WITH m, n
FOREACH (k IN n.remove | SET m[k] = null)
RETURN count(m) AS restored
