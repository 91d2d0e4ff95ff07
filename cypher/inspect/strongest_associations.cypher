// A user's strongest associations
// The weighted ASSOCIATED edges between a user's memories (one per pair), strongest first.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (a:Memory)-[r:ASSOCIATED]->(b:Memory)
WHERE a.tenant = $tenant AND a.user_id = $user_id AND b.tenant = $tenant AND b.user_id = $user_id
RETURN a.text AS memory_a, b.text AS memory_b, r.strength AS strength, a.id AS id_a, b.id AS id_b
ORDER BY strength DESC, id_a, id_b
LIMIT 50
