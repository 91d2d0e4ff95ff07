// For each candidate turn, one user's temp memories whose topic it picks up: cosine score (Neo4j's,
// in [0, 1]) >= $threshold. Temp is bounded by its capacity, so this is a small scan.
UNWIND $candidates AS c
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'temp'
  AND size(m.embedding) = size(c.embedding)
WITH c, m, vector.similarity.cosine(m.embedding, c.embedding) AS score
WHERE score >= $threshold
RETURN c.i AS i, m.id AS id, score
