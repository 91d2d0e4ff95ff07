// For each candidate turn, the live memories of one user with cosine score >= $threshold through the
// global vector index (asked for $candidates_per_turn, then filtered to the user), or with the same text
// key (c.key, graph/text_key.py; a seek on memory_scope_text_key), and the triples they assert: for users
// with more memories than an exact scan handles quickly. At most $k, best first, equal scores by id.
UNWIND $candidates AS c
CALL (c) {
  CALL (c) {
    CALL db.index.vector.queryNodes('memory_embedding_{{dimensions}}', $candidates_per_turn, c.embedding)
    YIELD node AS m, score
    WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL AND score >= $threshold
    RETURN m, score
    UNION
    MATCH (m:Memory {tenant: $tenant, user_id: $user_id, text_key: c.key})
    WHERE m.valid_to IS NULL AND size(m.embedding) = size(c.embedding)
    RETURN m, vector.similarity.cosine(m.embedding, c.embedding) AS score
  }
  // (a memory both ways once: the index's score and the scan's could differ in the last bit)
  WITH m, max(score) AS score
  RETURN m, score
  ORDER BY score DESC, m.id
  LIMIT $k
}
RETURN c.i AS i, m.id AS id, m.text AS text, m.tier AS tier, m.locked AS locked,
       m.mention_count AS mention_count, score,
       [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant
        | [s.name, t.predicate, o.name, t.polarity]] AS triples
