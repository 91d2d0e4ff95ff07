// Nearest memories of one user by embedding through the global vector index. The index holds every
// user's memories, so it is asked for $candidates (oversampled) and then filtered to the scope.
CALL db.index.vector.queryNodes('memory_embedding_{{dimensions}}', $candidates, $embedding)
YIELD node AS m, score
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
RETURN m {.*, embedding: null} AS memory, score
ORDER BY score DESC
LIMIT $k
