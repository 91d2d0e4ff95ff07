// (Included by memory/forget and tier/delete, after their memories are deleted.) Of `entities` (the ends of the
// deleted memories' triples and the entities they mentioned), the user's that are left with no relationship at
// all are deleted, unless a kept maintenance entry of the user names them by element id (a run's undo re-creates
// its triples and MENTIONS edges there: maintenance/restore_triples, restore_rels); entities_removed: how many.
CALL (entities) {
  UNWIND entities AS e
  WITH DISTINCT e
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND NOT EXISTS { (e)--() }
    AND NOT EXISTS { MATCH (x:ChangeEntry {tenant: $tenant, user_id: $user_id})
                     WHERE x.op = 'full' AND x.before CONTAINS ('"' + elementId(e) + '"') }
  DELETE e
  RETURN count(e) AS entities_removed
}
