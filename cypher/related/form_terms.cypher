// Associations formed when a memory is stored, by shared rare words: the memory is associated with the
// other live memories of its user that hold one of its terms which at most $max_df other memories hold
// (a name, a place, a company: an entity the extractor may have missed). Strength min(1, $term_base /
// sqrt(df)) for the rarest shared term, the entity hop formula with df + 1 mentions. Han terms match as
// substrings (bigrams), Latin terms as whole words. A small user's memories are scanned; a large one's
// come from the memory_text index ($lucene, at most $limit hits). An existing edge keeps the stronger
// strength; one edge per pair. Nothing below $min_memories memories: there, every word is rare.
MATCH (m:Memory {id: $memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
MATCH (u:User {tenant: $tenant, user_id: $user_id})
WITH m, u, COUNT { (u)-[:HAS_MEMORY]->() } AS mine
WHERE mine >= $min_memories
CALL (m, u, mine) {
  WITH m, u WHERE mine <= $scan_max
  MATCH (u)-[:HAS_MEMORY]->(o:Memory)
  WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
  RETURN o
  UNION ALL
  WITH m WHERE mine > $scan_max AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', $lucene, {limit: $limit}) YIELD node AS o
  WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
  RETURN o
}
WITH m, o, toLower(o.text) AS lower
WITH m, o, [t IN $han_terms WHERE lower CONTAINS t]
           + [t IN $latin_terms WHERE lower CONTAINS t AND lower =~ ('(?s).*\\b' + t + '\\b.*')] AS shared
WHERE size(shared) > 0
WITH m, collect({o: o, shared: shared}) AS rows
WITH m, rows, [t IN $han_terms + $latin_terms | {t: t, df: size([r IN rows WHERE t IN r.shared])}] AS dfs
WITH m, rows, [x IN dfs WHERE x.df >= 1 AND x.df <= $max_df] AS rare
WHERE size(rare) > 0
UNWIND rows AS r
WITH m, r.o AS o, [x IN rare WHERE x.t IN r.shared | x.df] AS shared_dfs
WHERE size(shared_dfs) > 0
WITH m, o, reduce(low = $max_df, d IN shared_dfs | CASE WHEN d < low THEN d ELSE low END) AS df
WITH m, o, $term_base / sqrt(df) AS raw
WITH CASE WHEN m.id < o.id THEN m ELSE o END AS a, CASE WHEN m.id < o.id THEN o ELSE m END AS b,
     CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength
MERGE (a)-[r:ASSOCIATED]-(b)
  ON CREATE SET r.created_at = $now, r.strength = 0.0, r.tenant = $tenant, r.user_id = $user_id,
                r.formed_by = 'terms'
SET r._lock = true
REMOVE r._lock
SET r.strength = CASE WHEN coalesce(r.strength, 0.0) < strength THEN strength ELSE r.strength END,
    r.updated_at = $now
RETURN a.id AS memory_a, b.id AS memory_b, r.strength AS strength
