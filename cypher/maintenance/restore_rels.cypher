// Undo: re-create relationships of memories of one user that a run removed (from their before-images). One end is the
// restored memory; the other is another restored memory (by id) or a node that was never touched (by its
// element id at capture time), always inside the same tenant and user
// (an element id may be reused by a node created since). The type is data ($(r.type)).
UNWIND $rels AS r
MATCH (m:Memory {id: r.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
OPTIONAL MATCH (om:Memory {id: r.other_memory})
WHERE r.other_memory IS NOT NULL AND om.tenant = $tenant AND om.user_id = $user_id
OPTIONAL MATCH (oe)
WHERE r.other_memory IS NULL AND elementId(oe) = r.other_eid AND coalesce(oe.tenant, $tenant) = $tenant
  AND coalesce(oe.user_id, $user_id) = $user_id
WITH m, r, coalesce(om, oe) AS o
WHERE o IS NOT NULL
CALL (m, o, r) {
  WITH m, o, r WHERE r.out
  CREATE (m)-[x:$(r.type)]->(o)
  SET x = r.props
}
CALL (m, o, r) {
  WITH m, o, r WHERE NOT r.out
  CREATE (o)-[x:$(r.type)]->(m)
  SET x = r.props
}
RETURN count(*) AS restored
