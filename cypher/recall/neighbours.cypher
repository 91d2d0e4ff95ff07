// One seed's neighbours for recall's graph expansion (included by recall/expand and recall/rows_checked,
// after `seed_id` is bound: the id of one seed hit). See recall/expand for what a neighbour is.
MATCH (s:Memory {id: seed_id})
WHERE s.tenant = $tenant AND s.user_id = $user_id
CALL (s) {
  CALL (s) {
    MATCH (s)-[r:ASSOCIATED]-(m:Memory)
    WHERE r.strength >= $min_strength AND m.tenant = $tenant AND m.user_id = $user_id
    RETURN m, r.strength AS strength, 'ASSOCIATED' AS via, null AS entity
    UNION
    MATCH (s)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH s, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
    WITH s, e, $entity_base / sqrt(degree - 1) AS raw
    WITH s, e, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength
    WHERE strength >= $min_strength
    MATCH (e)<-[:MENTIONS]-(m:Memory)
    WHERE m <> s AND m.tenant = $tenant AND m.user_id = $user_id
    RETURN m, strength, 'ENTITY' AS via, e.name AS entity
  }
  WITH m, strength, via, entity
  WHERE {{> recall/visible}}
  WITH m, strength, via, entity
  ORDER BY strength DESC, via, entity
  WITH m, collect({strength: strength, via: via, entity: entity})[0] AS best
  ORDER BY best.strength DESC, m.id
  LIMIT $per_seed
  RETURN m, best
}
RETURN seed_id, m.id AS id, m.text AS text, 
       {{> recall/weight_now}}
       AS weight,
       coalesce(m.last_mentioned_at, m.created_at).epochMillis AS seen, best.strength AS strength, best.via AS via,
       best.entity AS entity, [(m)-[:MENTIONS]->(x:Entity) WHERE x.tenant = $tenant | x.name] AS names,
       CASE WHEN $with_sim AND size(m.embedding) = size($embedding)
            THEN vector.similarity.cosine(m.embedding, $embedding) END AS sim
