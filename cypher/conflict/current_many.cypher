// Several memories of one user by id (conflict detection of a batch of stored memories): the id, the text
// and whether the memory is still live (not superseded). A missing id (forgotten, or someone else's) has no row.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.id AS id, m.text AS text, m.valid_to IS NULL AS live
