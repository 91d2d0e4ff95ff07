// Undo: delete relationships (and triples) a run added, by element id as read in this same transaction,
// each touching a node of this user and none of another tenant. Returns how many went, so undo can refuse
// when one is no longer there.
UNWIND $eids AS eid
MATCH (a)-[r]->(b)
WHERE elementId(r) = eid
  AND coalesce(a.tenant, $tenant) = $tenant AND coalesce(b.tenant, $tenant) = $tenant
  AND (a.user_id = $user_id OR b.user_id = $user_id)
DELETE r
RETURN count(*) AS deleted
