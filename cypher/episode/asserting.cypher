// For each candidate turn and the facts it states ($candidates: {i, embedding, facts: [{subject_id, predicate,
// object_id, polarity}]}, the entities' ids derived as triple/add derives them), the live memories of one user
// asserting every one of them (a live triple of the same entities, predicate and polarity): what a fact said again in
// other words repeats (bmam/usecases/ingest.py restated_memory). At most $k each, oldest first, with what repetition
// needs (as episode/similar_memories reads it, the cosine score in Neo4j's [0, 1]), the preset kind and the triples
// they assert.
UNWIND $candidates AS c
CALL (c) {
  WITH c, c.facts[0] AS first
  MATCH (:Entity {id: first.subject_id})-[t:TRIPLE {predicate: first.predicate}]->(:Entity {id: first.object_id})
  WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.polarity = first.polarity AND t.valid_to IS NULL
  MATCH (m:Memory {id: t.memory_id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
    AND all(f IN c.facts[1..] WHERE EXISTS {
      MATCH (:Entity {id: f.subject_id})-[u:TRIPLE {predicate: f.predicate}]->(:Entity {id: f.object_id})
      WHERE u.memory_id = m.id AND u.tenant = $tenant AND u.polarity = f.polarity AND u.valid_to IS NULL
    })
  WITH DISTINCT m
  RETURN m
  ORDER BY m.created_at, m.id
  LIMIT $k
}
RETURN c.i AS i, m.id AS id, m.text AS text, m.tier AS tier, m.locked AS locked,
       m.mention_count AS mention_count,
       // (no cosine, 0, for a memory embedded by another model)
       CASE WHEN size(m.embedding) = size(c.embedding) THEN vector.similarity.cosine(m.embedding, c.embedding)
            ELSE 0.5 END AS score,
       m.preset_kind AS preset_kind,
       [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant
        | [s.name, t.predicate, o.name, t.polarity]] AS triples
