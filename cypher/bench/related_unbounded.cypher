// Bench only (bench/related_dense.py): related/search as it was before its bound (every memory whose best
// score improved in the round before is expanded along every hop it has), kept as the same-run baseline of
// that bench. Same parameters and results as related/search but for the bound; never run by the service.
// What follows is that statement's text, unchanged:
// relatedSearch: from one memory of one user, the memories reachable over at most {{depth}} hops, each
// with its best path and that path's score (the product of the strengths along it). A hop is an
// ASSOCIATED edge (its strength) or a shared entity, memory-[:MENTIONS]->entity<-[:MENTIONS]-memory, whose
// strength comes from the entity's degree: min(1, $entity_base / sqrt(mentions - 1)), and no hop at all
// through an entity mentioned by more than $max_degree memories (a hub), nor through the user themself
// (the entity 'user' of every "I ..." triple: a hub from the first memories on, whatever its degree).
// The depth literal is spliced from the allow-list (1..5), never from the request. The search is a
// hop-bounded Bellman-Ford for the best product: round k expands only the memories whose best score
// improved in round k - 1, and a partial path below $min_strength is dropped (strengths are <= 1, so it
// can only get weaker) before its far end is read: an edge or an entity too weak for the path's score so
// far is not followed at all (what keeps depth 3 cheap around entities with many mentions). Never leaves the (tenant, user): every node is checked. Superseded memories
// (valid_to set) are neither reached nor crossed unless $include_history. No row when the start memory
// is not the user's.
MATCH (start:Memory {id: $memory_id})
WHERE start.tenant = $tenant AND start.user_id = $user_id
WITH [{id: start.id, score: 1.0, round: 0, path: []}] AS best
// ----- round 1: expand what improved in round 0 -----
CALL (best) {
  WITH best WHERE {{depth}} >= 1
  UNWIND [x IN best WHERE x.round = 0] AS f
  MATCH (a:Memory {id: f.id})
  WHERE a.tenant = $tenant AND a.user_id = $user_id
  CALL (a, f) {
    MATCH (a)-[r:ASSOCIATED]-(b:Memory)
    WHERE f.score * coalesce(r.strength, 0.0) >= $min_strength
      AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    RETURN b, coalesce(r.strength, 0.0) AS strength, 'ASSOCIATED' AS via, null AS entity
    UNION ALL
    MATCH (a)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH a, f, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
      AND f.score * CASE WHEN $entity_base / sqrt(degree - 1) > 1.0 THEN 1.0
                         ELSE $entity_base / sqrt(degree - 1) END >= $min_strength
    MATCH (e)<-[:MENTIONS]-(b:Memory)
    WHERE b <> a AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    WITH b, $entity_base / sqrt(degree - 1) AS raw, e
    RETURN b, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength, 'ENTITY' AS via, e.name AS entity
  }
  WITH f, a, b, strength, via, entity, f.score * strength AS score
  WHERE b.id <> $memory_id AND score > 0.0 AND score >= $min_strength
  RETURN collect({id: b.id, score: score, round: 1,
                  path: f.path + [{from: a.id, to: b.id, via: via, strength: strength, entity: entity}]}) AS found
}
CALL (best, found) {
  UNWIND best + found AS x
  WITH x ORDER BY x.score DESC, x.round ASC
  WITH x.id AS id, collect(x)[0] AS top
  RETURN collect(top) AS merged
}
WITH merged AS best
// ----- round 2: expand what improved in round 1 -----
CALL (best) {
  WITH best WHERE {{depth}} >= 2
  UNWIND [x IN best WHERE x.round = 1] AS f
  MATCH (a:Memory {id: f.id})
  WHERE a.tenant = $tenant AND a.user_id = $user_id
  CALL (a, f) {
    MATCH (a)-[r:ASSOCIATED]-(b:Memory)
    WHERE f.score * coalesce(r.strength, 0.0) >= $min_strength
      AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    RETURN b, coalesce(r.strength, 0.0) AS strength, 'ASSOCIATED' AS via, null AS entity
    UNION ALL
    MATCH (a)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH a, f, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
      AND f.score * CASE WHEN $entity_base / sqrt(degree - 1) > 1.0 THEN 1.0
                         ELSE $entity_base / sqrt(degree - 1) END >= $min_strength
    MATCH (e)<-[:MENTIONS]-(b:Memory)
    WHERE b <> a AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    WITH b, $entity_base / sqrt(degree - 1) AS raw, e
    RETURN b, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength, 'ENTITY' AS via, e.name AS entity
  }
  WITH f, a, b, strength, via, entity, f.score * strength AS score
  WHERE b.id <> $memory_id AND score > 0.0 AND score >= $min_strength
  RETURN collect({id: b.id, score: score, round: 2,
                  path: f.path + [{from: a.id, to: b.id, via: via, strength: strength, entity: entity}]}) AS found
}
CALL (best, found) {
  UNWIND best + found AS x
  WITH x ORDER BY x.score DESC, x.round ASC
  WITH x.id AS id, collect(x)[0] AS top
  RETURN collect(top) AS merged
}
WITH merged AS best
// ----- round 3: expand what improved in round 2 -----
CALL (best) {
  WITH best WHERE {{depth}} >= 3
  UNWIND [x IN best WHERE x.round = 2] AS f
  MATCH (a:Memory {id: f.id})
  WHERE a.tenant = $tenant AND a.user_id = $user_id
  CALL (a, f) {
    MATCH (a)-[r:ASSOCIATED]-(b:Memory)
    WHERE f.score * coalesce(r.strength, 0.0) >= $min_strength
      AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    RETURN b, coalesce(r.strength, 0.0) AS strength, 'ASSOCIATED' AS via, null AS entity
    UNION ALL
    MATCH (a)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH a, f, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
      AND f.score * CASE WHEN $entity_base / sqrt(degree - 1) > 1.0 THEN 1.0
                         ELSE $entity_base / sqrt(degree - 1) END >= $min_strength
    MATCH (e)<-[:MENTIONS]-(b:Memory)
    WHERE b <> a AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    WITH b, $entity_base / sqrt(degree - 1) AS raw, e
    RETURN b, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength, 'ENTITY' AS via, e.name AS entity
  }
  WITH f, a, b, strength, via, entity, f.score * strength AS score
  WHERE b.id <> $memory_id AND score > 0.0 AND score >= $min_strength
  RETURN collect({id: b.id, score: score, round: 3,
                  path: f.path + [{from: a.id, to: b.id, via: via, strength: strength, entity: entity}]}) AS found
}
CALL (best, found) {
  UNWIND best + found AS x
  WITH x ORDER BY x.score DESC, x.round ASC
  WITH x.id AS id, collect(x)[0] AS top
  RETURN collect(top) AS merged
}
WITH merged AS best
// ----- round 4: expand what improved in round 3 -----
CALL (best) {
  WITH best WHERE {{depth}} >= 4
  UNWIND [x IN best WHERE x.round = 3] AS f
  MATCH (a:Memory {id: f.id})
  WHERE a.tenant = $tenant AND a.user_id = $user_id
  CALL (a, f) {
    MATCH (a)-[r:ASSOCIATED]-(b:Memory)
    WHERE f.score * coalesce(r.strength, 0.0) >= $min_strength
      AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    RETURN b, coalesce(r.strength, 0.0) AS strength, 'ASSOCIATED' AS via, null AS entity
    UNION ALL
    MATCH (a)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH a, f, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
      AND f.score * CASE WHEN $entity_base / sqrt(degree - 1) > 1.0 THEN 1.0
                         ELSE $entity_base / sqrt(degree - 1) END >= $min_strength
    MATCH (e)<-[:MENTIONS]-(b:Memory)
    WHERE b <> a AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    WITH b, $entity_base / sqrt(degree - 1) AS raw, e
    RETURN b, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength, 'ENTITY' AS via, e.name AS entity
  }
  WITH f, a, b, strength, via, entity, f.score * strength AS score
  WHERE b.id <> $memory_id AND score > 0.0 AND score >= $min_strength
  RETURN collect({id: b.id, score: score, round: 4,
                  path: f.path + [{from: a.id, to: b.id, via: via, strength: strength, entity: entity}]}) AS found
}
CALL (best, found) {
  UNWIND best + found AS x
  WITH x ORDER BY x.score DESC, x.round ASC
  WITH x.id AS id, collect(x)[0] AS top
  RETURN collect(top) AS merged
}
WITH merged AS best
// ----- round 5: expand what improved in round 4 -----
CALL (best) {
  WITH best WHERE {{depth}} >= 5
  UNWIND [x IN best WHERE x.round = 4] AS f
  MATCH (a:Memory {id: f.id})
  WHERE a.tenant = $tenant AND a.user_id = $user_id
  CALL (a, f) {
    MATCH (a)-[r:ASSOCIATED]-(b:Memory)
    WHERE f.score * coalesce(r.strength, 0.0) >= $min_strength
      AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    RETURN b, coalesce(r.strength, 0.0) AS strength, 'ASSOCIATED' AS via, null AS entity
    UNION ALL
    MATCH (a)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH a, f, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
      AND f.score * CASE WHEN $entity_base / sqrt(degree - 1) > 1.0 THEN 1.0
                         ELSE $entity_base / sqrt(degree - 1) END >= $min_strength
    MATCH (e)<-[:MENTIONS]-(b:Memory)
    WHERE b <> a AND b.tenant = $tenant AND b.user_id = $user_id AND ($include_history OR b.valid_to IS NULL)
    WITH b, $entity_base / sqrt(degree - 1) AS raw, e
    RETURN b, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength, 'ENTITY' AS via, e.name AS entity
  }
  WITH f, a, b, strength, via, entity, f.score * strength AS score
  WHERE b.id <> $memory_id AND score > 0.0 AND score >= $min_strength
  RETURN collect({id: b.id, score: score, round: 5,
                  path: f.path + [{from: a.id, to: b.id, via: via, strength: strength, entity: entity}]}) AS found
}
CALL (best, found) {
  UNWIND best + found AS x
  WITH x ORDER BY x.score DESC, x.round ASC
  WITH x.id AS id, collect(x)[0] AS top
  RETURN collect(top) AS merged
}
WITH merged AS best
// ----- the results, best first -----
CALL (best) {
  UNWIND best AS x
  WITH x WHERE x.id <> $memory_id
  // The best $limit first, then only those are read (every id in best is one of the user's memories).
  WITH x ORDER BY x.score DESC, size(x.path) ASC, x.id ASC
  LIMIT $limit
  MATCH (m:Memory {id: x.id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id
  WITH m, x ORDER BY x.score DESC, size(x.path) ASC, m.id ASC
  // Timestamps as ISO strings: the driver's DateTime hydration cost ~0.2 ms each, 60 per call.
  RETURN collect({memory: m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
                             valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
                             last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
                             last_feedback_at: toString(m.last_feedback_at)},
                  score: x.score, path: x.path}) AS results
}
RETURN results
