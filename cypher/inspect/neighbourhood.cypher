// A memory's neighbourhood to depth 2
// Drawn as a graph: its associations, the entities it mentions and the memories that share them, its
// triples, the turn it came from, what it superseded. Give the memory by id or by a piece of its text
// ($memory); the heaviest match is taken.
// :param tenant => 'default'
// :param user_id => 'alice'
// :param memory => '火锅'
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND (m.id = $memory OR m.text CONTAINS $memory)
WITH m ORDER BY m.weight DESC, m.id LIMIT 1
MATCH path = (m)-[:ASSOCIATED|MENTIONS|TRIPLE|SUPERSEDES|DERIVED_FROM|NEXT|HAS_EPISODE*1..2]-(x)
WHERE all(n IN nodes(path) WHERE n.tenant = $tenant AND n.user_id = $user_id)
RETURN path
LIMIT 300
