// For each candidate turn, one user's live temp memories whose topic it picks up, with their live triples (a
// turn contradicting one does not engage with it: bmam/usecases/ingest.py): cosine score (Neo4j's, in [0, 1])
// >= $threshold; per candidate best first, equal scores by id. Live only, as episode/similar_memories:
// a superseded memory is history, engaging with its topic must not promote it; nor a temporary one (weather, a
// one-off: "It's sunny today" after "It's raining today" is no interest in the rain). Temp is bounded by its
// capacity, so this is a small scan (when the in-process vector cache cannot answer: graph/episodes.py).
UNWIND $candidates AS c
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'temp' AND m.valid_to IS NULL
  AND coalesce(m.preset_kind, '') <> 'temporary'
  AND size(m.embedding) = size(c.embedding)
WITH c, m, vector.similarity.cosine(m.embedding, c.embedding) AS score
WHERE score >= $threshold
RETURN c.i AS i, m.id AS id, score, m.text AS text,
       [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant AND t.valid_to IS NULL
        | [s.name, t.predicate, o.name, t.polarity]] AS triples
ORDER BY i, score DESC, id
