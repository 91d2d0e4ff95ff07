// Memories of one user as they are now (properties without the embedding, and whether the user locked
// them): for the after-image a run records of what it reweighted, and for undo to compare with it.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant AND m.user_id = $user_id
RETURN m.id AS id, m.locked AS locked, m {.*, embedding: null} AS props
ORDER BY id
