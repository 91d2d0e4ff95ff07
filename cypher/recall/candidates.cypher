// Recall candidates of one user for one query, in one read: the nearest memories by embedding and the
// best full-text hits, each with its cosine to the query (Neo4j's (1 + cos) / 2; graph/recall.py converts).
// graph/recall.py decides the path from recall/user_state ($exact): an exact scan over the user's own
// memories, or the global vector index asked for $index_dense candidates and filtered to the user.
// Full-text: for a small user ($exact) the memories holding any of $terms (lower-cased substring; Python
// re-checks whole terms); for a large one the `memory_text_scoped` index (cjk analyzer) with the escaped term
// query $lucene, asked for $index_text hits. $want_dense / $want_text skip a part the in-process vector
// cache (graph/vector_cache.py) answers instead.
// Each candidate is a compact row (id, text, weight, when last mentioned in epoch ms, the names of the
// entities it mentions): recall reads the full memories only for the ones it returns (recall/touch).
// Filters on both: $types, $tiers, and validity: $as_of (valid at that instant) or else live memories only
// unless $include_history.
MATCH (u:User {tenant: $tenant, user_id: $user_id})
WITH u, $exact AS exact
CALL (u, exact) {
  WITH u, exact WHERE exact AND $want_dense
  MATCH (u)-[:HAS_MEMORY]->(m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND size(m.embedding) = size($embedding)
    AND {{> recall/visible}}
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS sim
  ORDER BY sim DESC, m.id
  LIMIT $k_dense
  RETURN collect({id: m.id, text: m.text, weight:
                  {{> recall/weight_now}}
                  , seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  sim: sim, names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name]}) AS dense
  UNION ALL
  WITH exact WHERE NOT exact AND $want_dense
  CALL db.index.vector.queryNodes('memory_embedding_{{dimensions}}', $index_dense, $embedding)
  YIELD node AS m, score AS sim
  WHERE m.tenant = $tenant AND m.user_id = $user_id
    AND {{> recall/visible}}
  WITH m, sim
  ORDER BY sim DESC, m.id
  LIMIT $k_dense
  RETURN collect({id: m.id, text: m.text, weight:
                  {{> recall/weight_now}}
                  , seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  sim: sim, names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name]}) AS dense
}
// Each branch answers one row (an aggregate over no rows is an empty list): join the two.
WITH u, exact, collect(dense) AS parts
CALL (u, exact) {
  // A small user: every memory holding one of the query's terms (Python scores them with the same terms).
  WITH u, exact WHERE exact AND $want_text AND size($terms) > 0
  MATCH (u)-[:HAS_MEMORY]->(m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id
    AND {{> recall/visible}}
  WITH m, toLower(m.text) AS lower
  WITH m, size([t IN $terms WHERE lower CONTAINS t]) AS hits
  WHERE hits > 0
  WITH m, hits
  ORDER BY hits DESC, m.id
  LIMIT $k_text
  RETURN collect({id: m.id, text: m.text, weight:
                  {{> recall/weight_now}}
                  , seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  score: toFloat(hits), names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name],
                  sim: CASE WHEN size(m.embedding) = size($embedding)
                            THEN vector.similarity.cosine(m.embedding, $embedding) END}) AS text
  UNION ALL
  // A large user: the memory_text_scoped index (cjk analyzer), the user's own hits.
  WITH exact WHERE NOT exact AND $want_text AND $lucene IS NOT NULL
  {{> recall/index_text}}
}
WITH parts, collect(text) AS texts
RETURN reduce(acc = [], p IN parts | acc + p) AS dense, reduce(acc = [], p IN texts | acc + p) AS text
