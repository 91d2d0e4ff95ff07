// Delete one memory of one user with its edges and the triples it asserts. A locked (core)
// memory is deleted only when the user confirmed it ($confirm_locked). In the same statement:
// - What maintenance kept for undoing a run that changed it: its before-image holds its text and embedding,
//   and undo never brings back a deleted memory. The user's entries of every such run (merged-away and purged
//   memories' content included) are deleted, as forgetUser deletes them. A run of this user alone
//   (Changeset.user_id = the user) then names the memory forgotten, and graph/changesets.py refuses its undo
//   with that reason; a tenant-wide run (user_id null) is every user's, so it is left undoable for the others
//   (its undo leaves this user's memories as they are), as after forgetUser.
// - The user's conflicts that name it (a BETWEEN edge, or new_id / old_id / winner_id / loser_id), open or
//   resolved: their reason quotes its text, and an open one could never be resolved.
// - The user's entities that only it mentioned or named in its triples (memory/orphan_entities).
// The episode it came from is kept (it is the conversation's record, not this memory).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND (NOT m.locked OR $confirm_locked)
CALL (m) {
  MATCH (e:ChangeEntry {tenant: $tenant, user_id: $user_id, memory_id: m.id})
  WITH DISTINCT e.changeset_id AS changeset_id
  CALL (changeset_id) {
    MATCH (c:Changeset {id: changeset_id})
    WHERE c.tenant = $tenant AND c.user_id = $user_id
    SET c.forgotten = coalesce(c.forgotten, []) + [$id]
  }
  MATCH (x:ChangeEntry {changeset_id: changeset_id})
  WHERE x.tenant = $tenant AND x.user_id = $user_id
  DETACH DELETE x
}
CALL (m) {
  MATCH (k:Conflict)
  WHERE k.tenant = $tenant AND k.user_id = $user_id
    AND (m.id IN [k.new_id, k.old_id, k.winner_id, k.loser_id] OR EXISTS { (k)-[:BETWEEN]->(m) })
  DETACH DELETE k
  RETURN count(k) AS conflicts_removed
}
OPTIONAL MATCH (s:Entity)-[t:TRIPLE {memory_id: m.id}]->(o:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id
WITH m, conflicts_removed, collect(t) AS triples, collect(s) + collect(o) AS ends
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
WITH m, conflicts_removed, triples, ends, collect(e) AS mentioned
WITH m, conflicts_removed, triples, ends + mentioned AS entities
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id, size(triples) AS triples_removed, conflicts_removed, entities
DETACH DELETE m
WITH id, triples_removed, conflicts_removed, entities
{{> memory/orphan_entities}}
RETURN id, triples_removed, conflicts_removed, entities_removed
