// Live triples of one user that a new memory's triples may contradict: asserted by another live memory
// (not superseded), not themselves expired, about one of the given subjects with one of the given
// predicates. Starts from the user's entities (scope index). Each row carries the asserting memory's id.
MATCH (s:Entity)
WHERE s.tenant = $tenant AND s.user_id = $user_id AND toLower(s.name) IN $subjects
MATCH (s)-[t:TRIPLE]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
  AND t.memory_id <> $memory_id AND t.predicate IN $predicates
MATCH (m:Memory {id: t.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
RETURN t.memory_id AS memory_id, s.name AS subject, t.predicate AS predicate, o.name AS object,
       t.polarity AS polarity
ORDER BY memory_id, t.id
LIMIT $limit
