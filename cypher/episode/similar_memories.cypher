// For each candidate turn, the live memories of one user that say the same thing: cosine score
// (Neo4j's, in [0, 1]) >= $threshold, or the same text key (c.key, graph/text_key.py); at most $k, best first,
// with the triples they assert (so a contradiction is not taken for a repeat); equal scores by id.
// An exact scan over the user's own memories in Neo4j (when the in-process vector cache cannot answer:
// graph/episodes.py; used below the index threshold, like search).
UNWIND $candidates AS c
CALL (c) {
  MATCH (m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
    AND size(m.embedding) = size(c.embedding)
  WITH m, vector.similarity.cosine(m.embedding, c.embedding) AS score
  WHERE score >= $threshold OR m.text_key = c.key
  RETURN m, score
  ORDER BY score DESC, m.id
  LIMIT $k
}
RETURN c.i AS i, m.id AS id, m.text AS text, m.tier AS tier, m.locked AS locked,
       m.mention_count AS mention_count, score,
       [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant
        | [s.name, t.predicate, o.name, t.polarity]] AS triples
