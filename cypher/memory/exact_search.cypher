// Nearest memories of one user by an exact cosine scan over that user's memories only
// (faster than the global index for a user with few memories among many).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  AND size(m.embedding) = size($embedding)
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC
LIMIT $k
RETURN m {.*, embedding: null} AS memory, score
