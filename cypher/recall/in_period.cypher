// The memories of one user said in a period (a question about it: ingest/periods.py), as compact candidate
// rows with their cosine to $embedding (Neo4j's (1 + cos) / 2; null for a vector of another size): those
// derived from a turn at $start <= at < $end (said then, or said again then) and those created then without a
// turn (remember), with recall's filters (recall/visible); the most recently mentioned first, at most $limit.
CALL () {
  MATCH (e:Episode)
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.at >= $start AND e.at < $end
  MATCH (m:Memory)-[:DERIVED_FROM]->(e)
  RETURN m
  UNION
  MATCH (m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.created_at >= $start AND m.created_at < $end
  RETURN m
}
WITH m
WHERE m.tenant = $tenant AND m.user_id = $user_id AND {{> recall/visible}}
WITH m
ORDER BY coalesce(m.last_mentioned_at, m.created_at) DESC, m.id
LIMIT $limit
RETURN
{{> recall/row_columns}},
       CASE WHEN size(m.embedding) = size($embedding)
            THEN vector.similarity.cosine(m.embedding, $embedding) END AS sim
