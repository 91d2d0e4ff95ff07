// One round of related/search, included there once per round, where each row is `k` (this round's number)
// and `x`, the best path found so far to one memory ({id, score, round, path}; the start among them, with
// score 1 and no path): expands the memories whose best score improved in round k - 1, and leaves one row per
// memory reached for round k + 1. Bounded: only the $limit best rows (by score; the start, always first,
// besides) are kept, and each one expanded goes along only its $per_memory strongest hops (the strongest one
// to each memory it reaches). A row left out never ranks higher later (scores only grow), so the best $limit
// results are kept; and with $per_memory at $limit they are the unbounded search's (only ties at the last
// place may differ): every memory on the best path of one of them scores at least as much, so it is among the
// $limit best and reaches the next along one of its $limit strongest hops. A round so builds at most $limit *
// $per_memory paths however dense the user's graph (a memory's hops are all read to choose the strongest:
// cheap next to a path built, sorted and merged for each). No row here holds a list of all the rows: Neo4j's
// memory tracking counts such a list once for every row a sort holds (250 memories all associated with each
// other ran out of transaction memory at depth 2 that way).
WITH k, x ORDER BY x.score DESC, size(x.path) ASC, x.id ASC
LIMIT $limit + 1
CALL (k, x) {
  RETURN x AS y
  UNION ALL
  WITH k, x AS f WHERE {{depth}} >= k AND f.round = k - 1
  MATCH (a:Memory {id: f.id})
  WHERE a.tenant = $tenant AND a.user_id = $user_id
  CALL (a, f) {
    CALL (a, f) {
      MATCH (a)-[r:ASSOCIATED]-(b:Memory)
      WHERE f.score * coalesce(r.strength, 0.0) >= $min_strength AND b.id <> $memory_id
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
      WHERE b <> a AND b.id <> $memory_id AND b.tenant = $tenant AND b.user_id = $user_id
        AND ($include_history OR b.valid_to IS NULL)
      WITH b, $entity_base / sqrt(degree - 1) AS raw, e
      RETURN b, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength, 'ENTITY' AS via, e.name AS entity
    }
    WITH b, strength, via, entity ORDER BY strength DESC, via ASC, entity ASC
    WITH b, collect({strength: strength, via: via, entity: entity})[0] AS hop
    ORDER BY hop.strength DESC, b.id ASC
    LIMIT $per_memory
    RETURN b, hop.strength AS strength, hop.via AS via, hop.entity AS entity
  }
  WITH k, f, a, b, strength, via, entity, f.score * strength AS score
  WHERE score > 0.0 AND score >= $min_strength
  RETURN {id: b.id, score: score, round: k,
          path: f.path + [{from: a.id, to: b.id, via: via, strength: strength, entity: entity}]} AS y
}
// per memory the best path: the higher score, at equal scores the one found first (so "improved" is strict)
WITH k, y ORDER BY y.score DESC, y.round ASC
WITH k, y.id AS id, collect(y)[0] AS x
WITH k + 1 AS k, x
