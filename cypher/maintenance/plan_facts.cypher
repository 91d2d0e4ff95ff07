// The live triples of one user's live memories (to keep maintenance from merging two memories that
// contradict each other). Starts from the user's entities (scope index), never from all triples.
MATCH (s:Entity)
WHERE s.tenant = $tenant AND s.user_id = $user_id
MATCH (s)-[t:TRIPLE]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
RETURN t.memory_id AS memory_id, s.name AS subject, t.predicate AS predicate, o.name AS object,
       t.polarity AS polarity
ORDER BY memory_id, t.id
