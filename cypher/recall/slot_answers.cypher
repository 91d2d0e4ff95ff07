// The memories of one user that state a fact of the user a question asks for (ingest/slots.py): those
// asserting an affirmed triple (user)-[predicate IN $predicates]->(value), where the user's entity is any
// of $subject_ids (the entity named "user" of each kind a triple's subject may have been given), with
// recall's filters (types, tiers, validity as recall/rows). Newest first, at most $limit, as compact
// candidate rows with their cosine to $embedding (Neo4j's (1 + cos) / 2) and the predicates they state.
UNWIND $subject_ids AS subject_id
MATCH (:Entity {id: subject_id})-[t:TRIPLE]->(:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.predicate IN $predicates AND t.polarity = 1
MATCH (m:Memory {id: t.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND ($types IS NULL OR m.type IN $types)
  AND ($tiers IS NULL OR m.tier IN $tiers)
  AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
           ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
WITH m, collect(DISTINCT t.predicate) AS answers
ORDER BY m.created_at DESC, m.id
LIMIT $limit
RETURN m.id AS id, m.text AS text,
       {{> recall/weight_now}}
       AS weight, coalesce(m.last_mentioned_at, m.created_at).epochMillis AS seen,
       [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name] AS names,
       vector.similarity.cosine(m.embedding, $embedding) AS sim, answers
