// Undo, step 1: cut every relationship of the given memories of one user (and the triples they assert as
// they stand now), so step 3 can put back exactly the relationships of their before-images.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant AND m.user_id = $user_id
OPTIONAL MATCH (m)-[r]-()
DELETE r
WITH DISTINCT m
OPTIONAL MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
WHERE t.tenant = $tenant AND t.user_id = $user_id
DELETE t
RETURN count(DISTINCT m) AS detached
