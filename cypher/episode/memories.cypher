// Memories of one user by id (after an ingest, to answer with their final state).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m {.*, embedding: null} AS memory
