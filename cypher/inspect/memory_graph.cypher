// A user's memory graph
// The user, their live memories, the entities those memories mention and the associations between
// memories, drawn as a graph (the 300 heaviest memories).
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (u:User {tenant: $tenant, user_id: $user_id})-[h:HAS_MEMORY]->(m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
WITH u, h, m ORDER BY m.weight DESC LIMIT 300
OPTIONAL MATCH (m)-[mention:MENTIONS]->(e:Entity)
WHERE e.tenant = $tenant AND e.user_id = $user_id
OPTIONAL MATCH (m)-[a:ASSOCIATED]-(other:Memory)
WHERE other.tenant = $tenant AND other.user_id = $user_id AND other.valid_to IS NULL
RETURN u, h, m, mention, e, a, other
