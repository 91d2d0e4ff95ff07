// For each candidate turn, the live memories of one user with cosine score >= $threshold (and the
// triples they assert), through the global vector index (asked for $candidates_per_turn, then
// filtered to the user): for users with more memories than an exact scan handles quickly.
UNWIND $candidates AS c
CALL (c) {
  CALL db.index.vector.queryNodes('memory_embedding_{{dimensions}}', $candidates_per_turn, c.embedding)
  YIELD node AS m, score
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL AND score >= $threshold
  RETURN m, score
  ORDER BY score DESC, m.id
  LIMIT $k
}
RETURN c.i AS i, m.id AS id, m.text AS text, m.tier AS tier, m.locked AS locked,
       m.mention_count AS mention_count, score,
       [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant
        | [s.name, t.predicate, o.name, t.polarity]] AS triples
