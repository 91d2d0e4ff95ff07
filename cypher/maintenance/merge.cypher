// Merge one near-duplicate memory (the loser) into another of the same user (the survivor); both must
// still be live and unlocked. The survivor keeps all provenance and evidence: counts summed, each weight
// part the larger of the two (weight recomputed), the earliest created_at / valid_from and the latest
// last_*_at, the loser's id, text and provenance appended to merged_* lists, the loser's triples
// re-pointed to it (exact duplicates dropped), and every relationship of the loser carried over
// (associations keep the stronger strength, one edge per pair from the smaller id; other types are
// copied with their properties unless an identical one exists). Then the loser is deleted.
// Neither may be held in an open conflict (checked again here, inside the transaction: the plan was read
// before it, and a conflict naming a deleted loser could never be resolved).
MATCH (s:Memory {id: $survivor_id}), (l:Memory {id: $loser_id})
WHERE s.tenant = $tenant AND s.user_id = $user_id AND l.tenant = $tenant AND l.user_id = $user_id
  AND s <> l AND NOT s.locked AND NOT l.locked AND s.valid_to IS NULL AND l.valid_to IS NULL
  AND NOT EXISTS { MATCH (c:Conflict {status: 'OPEN'})-[:BETWEEN]->(m) WHERE m IN [s, l] AND c.tenant = $tenant }
SET s.mention_count = coalesce(s.mention_count, 0) + coalesce(l.mention_count, 0),
    s.recall_count = coalesce(s.recall_count, 0) + coalesce(l.recall_count, 0),
    s.feedback_count = coalesce(s.feedback_count, 0) + coalesce(l.feedback_count, 0),
    s.passive = CASE WHEN l.passive > s.passive THEN l.passive ELSE s.passive END,
    s.active = CASE WHEN l.active > s.active THEN l.active ELSE s.active END,
    s.created_at = CASE WHEN l.created_at < s.created_at THEN l.created_at ELSE s.created_at END,
    s.valid_from = CASE WHEN coalesce(l.valid_from, l.created_at) < coalesce(s.valid_from, s.created_at)
                        THEN coalesce(l.valid_from, l.created_at) ELSE coalesce(s.valid_from, s.created_at) END,
    s.last_mentioned_at = CASE WHEN s.last_mentioned_at IS NULL OR l.last_mentioned_at > s.last_mentioned_at
                               THEN l.last_mentioned_at ELSE s.last_mentioned_at END,
    s.last_recalled_at = CASE WHEN s.last_recalled_at IS NULL OR l.last_recalled_at > s.last_recalled_at
                              THEN l.last_recalled_at ELSE s.last_recalled_at END,
    s.merged_ids = coalesce(s.merged_ids, []) + [l.id] + coalesce(l.merged_ids, []),
    s.merged_texts = coalesce(s.merged_texts, []) + [l.text] + coalesce(l.merged_texts, []),
    s.merged_session_ids = coalesce(s.merged_session_ids, []) + [x IN [l.session_id] WHERE x IS NOT NULL]
                           + coalesce(l.merged_session_ids, []),
    s.merged_device_ids = coalesce(s.merged_device_ids, []) + [x IN [l.device_id] WHERE x IS NOT NULL]
                          + coalesce(l.merged_device_ids, []),
    s.merged_episode_ids = coalesce(s.merged_episode_ids, []) + [x IN [l.episode_id] WHERE x IS NOT NULL]
                           + coalesce(l.merged_episode_ids, []),
    s.merged_at = $now
WITH s, l, $passive_share * s.passive + $active_share * s.active + $preset_share * s.preset AS w
SET s.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
WITH s, l
CALL (s, l) {
  MATCH ()-[t:TRIPLE {memory_id: l.id}]->()
  WHERE t.tenant = $tenant AND t.user_id = $user_id
  SET t.memory_id = s.id
}
CALL (s, l) {
  MATCH (a)-[t:TRIPLE {memory_id: s.id}]->(b)
  WHERE t.tenant = $tenant AND t.user_id = $user_id
  WITH a, b, t.predicate AS predicate, t.polarity AS polarity, t ORDER BY t.created_at, t.id
  WITH a, b, predicate, polarity, collect(t) AS same
  WHERE size(same) > 1
  UNWIND same[1..] AS duplicate
  DELETE duplicate
}
CALL (s, l) {
  MATCH (l)-[r:ASSOCIATED]-(x:Memory)
  WHERE x <> s AND x.tenant = $tenant AND x.user_id = $user_id
  WITH s, x, r.strength AS strength, properties(r) AS props
  CALL (s, x, strength, props) {
    WITH s, x, strength, props WHERE s.id < x.id
    MERGE (s)-[n:ASSOCIATED]->(x)
      ON CREATE SET n = props
      ON MATCH SET n.strength = CASE WHEN n.strength < strength THEN strength ELSE n.strength END
  }
  CALL (s, x, strength, props) {
    WITH s, x, strength, props WHERE x.id < s.id
    MERGE (x)-[n:ASSOCIATED]->(s)
      ON CREATE SET n = props
      ON MATCH SET n.strength = CASE WHEN n.strength < strength THEN strength ELSE n.strength END
  }
}
CALL (s, l) {
  MATCH (l)-[r]->(x)
  WHERE x <> s AND NOT type(r) IN ['ASSOCIATED']
  WITH s, x, type(r) AS type, properties(r) AS props
  WHERE NOT EXISTS { MATCH (s)-[e]->(x) WHERE type(e) = type AND properties(e) = props }
  CREATE (s)-[n:$(type)]->(x)
  SET n = props
}
CALL (s, l) {
  MATCH (l)<-[r]-(x)
  WHERE x <> s AND NOT type(r) IN ['ASSOCIATED', 'HAS_MEMORY']
  WITH s, x, type(r) AS type, properties(r) AS props
  WHERE NOT EXISTS { MATCH (x)-[e]->(s) WHERE type(e) = type AND properties(e) = props }
  CREATE (x)-[n:$(type)]->(s)
  SET n = props
}
WITH s, l, l.id AS loser_id
DETACH DELETE l
RETURN s.id AS survivor_id, loser_id, s.weight AS weight
