// A user's knowledge as triples
// (subject)-[:TRIPLE {predicate}]->(object) as currently believed (not expired, asserted by a live
// memory), each with the memory that asserts it. Negated ones ("I don't eat pork") show polarity -1.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (s:Entity)-[t:TRIPLE]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
  AND s.tenant = $tenant AND s.user_id = $user_id AND o.tenant = $tenant AND o.user_id = $user_id
MATCH (m:Memory {id: t.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
RETURN s.name AS subject, t.predicate AS predicate, t.polarity AS polarity, o.name AS object,
       CASE WHEN size(m.text) > 200 THEN left(m.text, 199) + '…' ELSE m.text END AS asserted_by,
       m.tier AS tier, m.weight AS weight
ORDER BY subject, predicate, object
LIMIT 500
