// The full-text candidates of a large user: the `memory_text_scoped` index (cjk analyzer) asked for
// $index_text hits of $lucene, the escaped term query scoped to the user (graph/scope_token.py: Lucene
// returns the user's own best hits); the user and recall's filters ($types, $tiers, validity: see
// recall/candidates) checked again here, the best $k_text as compact candidate rows with their cosine to
// $embedding (null for an embedding of another size). Included by recall/candidates and
// recall/rows_checked; one row (an empty list when nothing matches).
CALL db.index.fulltext.queryNodes('memory_text_scoped', $lucene, {limit: $index_text})
YIELD node AS m, score
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND {{> recall/visible}}
WITH m, score
ORDER BY score DESC, m.id
LIMIT $k_text
RETURN collect({id: m.id, text: m.text, weight:
                  {{> recall/weight_now}}
                  , seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                score: score, names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name],
                sim: CASE WHEN size(m.embedding) = size($embedding)
                          THEN vector.similarity.cosine(m.embedding, $embedding) END}) AS text
