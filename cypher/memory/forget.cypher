// Delete one memory of one user with its edges and the triples it asserts. A locked (core)
// memory is deleted only when the user confirmed it ($confirm_locked).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND (NOT m.locked OR $confirm_locked)
OPTIONAL MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
WITH m, collect(t) AS triples
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id, size(triples) AS triples_removed
DETACH DELETE m
RETURN id, triples_removed
