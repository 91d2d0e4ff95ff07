// One memory of one user by id; nothing when the id belongs to someone else.
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m {.*, embedding: null} AS memory
