// A memory's neighbourhood to depth 2
// Drawn as a graph: its associations, the entities it mentions and the memories that share them, its
// triples, the turn it came from, what it superseded. Give the memory by id or by a piece of its text
// ($memory); the heaviest match is taken. Not through the user themself (the entity 'user' of every "I ..."
// memory) nor a hub (an entity more than $max_degree memories mention), as related search: through them
// every memory of the user was a neighbour. History is left out, expired triples and superseded memories,
// but for what the memory superseded or was superseded by (one SUPERSEDES hop); `history` names a path's
// superseded memories (the start too, when given one).
// :param tenant => 'default'
// :param user_id => 'alice'
// :param memory => '火锅'
// :param max_degree => 50
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND (m.id = $memory OR m.text CONTAINS $memory)
WITH m ORDER BY m.weight DESC, m.id LIMIT 1
MATCH path = (m)-[:ASSOCIATED|MENTIONS|TRIPLE|SUPERSEDES|DERIVED_FROM|NEXT|HAS_EPISODE*1..2]-(x)
WHERE all(n IN nodes(path) WHERE n.tenant = $tenant AND n.user_id = $user_id
            AND NOT (n:Entity AND (n.name = 'user' OR n.kind = 'user')))
  AND all(r IN relationships(path) WHERE r.valid_to IS NULL)
  AND all(n IN tail(nodes(path)) WHERE n.valid_to IS NULL
            OR (length(path) = 1 AND type(relationships(path)[0]) = 'SUPERSEDES'))
  AND all(n IN nodes(path) WHERE NOT n:Entity OR COUNT { (n)<-[:MENTIONS]-() } <= $max_degree)
RETURN path, [n IN nodes(path) WHERE n:Memory AND n.valid_to IS NOT NULL | n.text] AS history
LIMIT 300
