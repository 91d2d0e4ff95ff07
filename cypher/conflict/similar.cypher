// Live memories of one user whose embedding is close to $embedding (raw cosine >= $threshold; Neo4j's
// vector.similarity.cosine is (1 + cos) / 2, so it is mapped back), closest first: the candidates for a
// negation conflict. An exact scan over this user's memories only.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL AND m.id <> $memory_id
  AND m.embedding IS NOT NULL
WITH m, 2.0 * vector.similarity.cosine(m.embedding, $embedding) - 1.0 AS cosine
WHERE cosine >= $threshold
RETURN m.id AS memory_id, m.text AS text, cosine
ORDER BY cosine DESC, memory_id
LIMIT $limit
