// The embedding of one memory of one user (conflict detection run on demand for a stored memory).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.embedding AS embedding
