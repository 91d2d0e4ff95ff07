// Recall candidates of one user for one query, in one read: the nearest memories by embedding and the
// best full-text hits, each with its cosine to the query (Neo4j's (1 + cos) / 2; graph/recall.py converts).
// Dense: an exact scan over the user's own memories, or the global vector index asked for
// k * (all memories / the user's) * $oversample candidates (at most $max_candidates) and filtered to the
// user. The exact scan is chosen when it is the cheaper of the two: the user has at most $exact_max
// memories, or at most $exact_per_candidate memories per candidate the index would have to return
// (bench/recall_latency.py measures both: an HNSW query's cost grows with the candidates asked for, a
// scan's with the user's memories). Full-text: the `memory_text` index
// (cjk analyzer) with the escaped term query $lucene, oversampled the same way, for a large user; for a
// small one the memories holding any of $terms (lower-cased substring; Python re-checks whole terms).
// Each candidate is a compact row (id, text, weight, when last mentioned in epoch ms, the names of the
// entities it mentions): recall reads the full memories only for the ones it returns (recall/touch).
// Filters on both: $types, $tiers, and validity: $as_of (valid at that instant) or else live memories only
// unless $include_history.
MATCH (u:User {tenant: $tenant, user_id: $user_id})
WITH u, COUNT { (u)-[:HAS_MEMORY]->() } AS mine
CALL () { MATCH (any_memory:Memory) RETURN count(any_memory) AS total }
WITH u, mine,
     CASE WHEN mine = 0 THEN 1.0 ELSE toFloat(total) / mine * $oversample END AS ratio
WITH u, mine, ratio,
     CASE WHEN $k_dense * ratio > $max_candidates THEN $max_candidates ELSE $k_dense * ratio END AS asked
WITH u, mine, ratio, mine <= $exact_max OR mine <= $exact_per_candidate * asked AS exact
CALL (u, exact, ratio) {
  WITH u, exact WHERE exact
  MATCH (u)-[:HAS_MEMORY]->(m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND size(m.embedding) = size($embedding)
    AND ($types IS NULL OR m.type IN $types)
    AND ($tiers IS NULL OR m.tier IN $tiers)
    AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
             ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS sim
  ORDER BY sim DESC, m.id
  LIMIT $k_dense
  RETURN collect({id: m.id, text: m.text, weight: m.weight, seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  sim: sim, names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name]}) AS dense
  UNION ALL
  WITH ratio, exact WHERE NOT exact
  CALL db.index.vector.queryNodes('memory_embedding_{{dimensions}}',
                                  toInteger(CASE WHEN $k_dense * ratio > $max_candidates THEN $max_candidates
                                                 WHEN $k_dense * ratio < $k_dense THEN $k_dense
                                                 ELSE $k_dense * ratio END),
                                  $embedding)
  YIELD node AS m, score AS sim
  WHERE m.tenant = $tenant AND m.user_id = $user_id
    AND ($types IS NULL OR m.type IN $types)
    AND ($tiers IS NULL OR m.tier IN $tiers)
    AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
             ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
  WITH m, sim
  ORDER BY sim DESC, m.id
  LIMIT $k_dense
  RETURN collect({id: m.id, text: m.text, weight: m.weight, seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  sim: sim, names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name]}) AS dense
}
// Each branch answers one row (an aggregate over no rows is an empty list): join the two.
WITH u, mine, ratio, exact, collect(dense) AS parts
CALL (u, exact, ratio) {
  // A small user: every memory holding one of the query's terms (Python scores them with the same terms).
  WITH u, exact WHERE exact AND size($terms) > 0
  MATCH (u)-[:HAS_MEMORY]->(m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id
    AND ($types IS NULL OR m.type IN $types)
    AND ($tiers IS NULL OR m.tier IN $tiers)
    AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
             ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
  WITH m, toLower(m.text) AS lower
  WITH m, size([t IN $terms WHERE lower CONTAINS t]) AS hits
  WHERE hits > 0
  WITH m, hits
  ORDER BY hits DESC, m.id
  LIMIT $k_text
  RETURN collect({id: m.id, text: m.text, weight: m.weight, seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  score: toFloat(hits), names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name],
                  sim: CASE WHEN size(m.embedding) = size($embedding)
                            THEN vector.similarity.cosine(m.embedding, $embedding) END}) AS text
  UNION ALL
  // A large user: the memory_text index (cjk analyzer), oversampled and filtered to the user.
  WITH ratio, exact WHERE NOT exact AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', $lucene,
                                    {limit: toInteger(CASE WHEN $k_text * ratio > $max_candidates THEN $max_candidates
                                                           WHEN $k_text * ratio < $k_text THEN $k_text
                                                           ELSE $k_text * ratio END)})
  YIELD node AS m, score
  WHERE m.tenant = $tenant AND m.user_id = $user_id
    AND ($types IS NULL OR m.type IN $types)
    AND ($tiers IS NULL OR m.tier IN $tiers)
    AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
             ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
  WITH m, score
  ORDER BY score DESC, m.id
  LIMIT $k_text
  RETURN collect({id: m.id, text: m.text, weight: m.weight, seen: coalesce(m.last_mentioned_at, m.created_at).epochMillis,
                  score: score, names: [(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name],
                  sim: CASE WHEN size(m.embedding) = size($embedding)
                            THEN vector.similarity.cosine(m.embedding, $embedding) END}) AS text
}
WITH mine, parts, collect(text) AS texts
RETURN mine, reduce(acc = [], p IN parts | acc + p) AS dense, reduce(acc = [], p IN texts | acc + p) AS text
