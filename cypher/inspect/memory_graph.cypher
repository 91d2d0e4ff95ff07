// A user's memory graph
// The user, their live memories (the 300 heaviest), the entities those memories mention and the associations
// between them, drawn as a graph. One row, each node and relationship once (lists of them: the Browser draws
// nodes and relationships from lists too): a row per mention x association repeated each memory, its
// embedding included, thousands of times, and the Browser's 1000-row cap cut most of the graph off.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (u:User {tenant: $tenant, user_id: $user_id})-[h:HAS_MEMORY]->(m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
WITH u, h, m ORDER BY m.weight DESC, m.id LIMIT 300
WITH u, collect(h) AS has_memory, collect(m) AS memories
CALL (memories) {
  UNWIND memories AS m
  MATCH (m)-[mention:MENTIONS]->(e:Entity)
  WHERE e.tenant = $tenant AND e.user_id = $user_id
  RETURN collect(mention) AS mentions, collect(DISTINCT e) AS entities
}
// Both ends among the memories drawn, each edge once (followed from its start only).
CALL (memories) {
  UNWIND memories AS m
  MATCH (m)-[a:ASSOCIATED]->(other:Memory)
  WHERE other IN memories
  RETURN collect(a) AS associations
}
RETURN u AS user, memories, entities, has_memory, mentions, associations
