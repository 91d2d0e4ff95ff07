// Delete one memory of one user with its edges and the triples it asserts. A locked (core)
// memory is deleted only when the user confirmed it ($confirm_locked).
// What maintenance kept for undoing a run that changed it goes too: its before-image holds its text and
// embedding, and such a run can no longer be undone anyway (undo never brings back a deleted memory), so the
// user's entries of that run (merged-away and purged memories' content included) are deleted and the
// changeset names the memory forgotten (graph/changesets.py then refuses its undo with that reason).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND (NOT m.locked OR $confirm_locked)
CALL (m) {
  MATCH (e:ChangeEntry {tenant: $tenant, user_id: $user_id, memory_id: m.id})
  WITH DISTINCT e.changeset_id AS changeset_id
  MATCH (c:Changeset {id: changeset_id})
  WHERE c.tenant = $tenant
  SET c.forgotten = coalesce(c.forgotten, []) + [m.id]
  WITH changeset_id
  MATCH (x:ChangeEntry {changeset_id: changeset_id})
  WHERE x.tenant = $tenant AND x.user_id = $user_id
  DETACH DELETE x
}
OPTIONAL MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
WITH m, collect(t) AS triples
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id, size(triples) AS triples_removed
DETACH DELETE m
RETURN id, triples_removed
