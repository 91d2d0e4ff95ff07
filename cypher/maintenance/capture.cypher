// Memories of one user as they are, for a maintenance run's before-image of those it is about to merge or
// purge, its after-image of them at its end, and undo's look at them now: labels, properties, embedding,
// whether the user locked them, every relationship (type, direction, the other end: a memory of the user
// by id, any other node by element id, properties) and the triples each asserts (with their entities'
// element ids).
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant AND m.user_id = $user_id
OPTIONAL MATCH (m)-[r]-(x)
WITH m, collect(CASE WHEN r IS NULL THEN null ELSE {
       eid: elementId(r), type: type(r), out: startNode(r) = m, other_eid: elementId(x),
       other_memory: CASE WHEN x:Memory AND x.tenant = $tenant AND x.user_id = $user_id THEN x.id END,
       props: properties(r)} END) AS rels
OPTIONAL MATCH (s:Entity)-[t:TRIPLE {memory_id: m.id}]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id
WITH m, rels, collect(CASE WHEN t IS NULL THEN null ELSE {
       eid: elementId(t), s: elementId(s), o: elementId(o), props: properties(t)} END) AS triples
RETURN m.id AS id, labels(m) AS labels, m.locked AS locked, m {.*, embedding: null} AS props,
       m.embedding AS embedding, rels, triples
ORDER BY id
