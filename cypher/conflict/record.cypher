// Record a conflict between a new and an old memory of one user (idempotent on the derived id: detecting
// the same pair twice changes nothing). (:Conflict)-[:BETWEEN {role}]->(:Memory) for both sides.
// Both memories are write-locked first, in id order, as weights/lock locks them (so settling the conflict
// next in the same transaction needs no lock statement of its own); nothing of them is changed.
// A pair held for review the other way round (the conflict $reverse_id, of (old, new), OPEN and recorded by REVIEW)
// is held: nothing is recorded and that conflict is returned as it is (created false), unless the pair's own
// conflict $id is held for review too (then it is). Read under both memories' locks, which recording either way
// takes: no concurrent recording of the pair slips in between.
MATCH (n:Memory {id: $new_id}), (o:Memory {id: $old_id})
WHERE n.tenant = $tenant AND n.user_id = $user_id AND o.tenant = $tenant AND o.user_id = $user_id
CALL (n, o) {
  UNWIND CASE WHEN n.id <= o.id THEN [n, o] ELSE [o, n] END AS m
  SET m._lock = true
  REMOVE m._lock
}
OPTIONAL MATCH (r:Conflict {id: $reverse_id})
WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.status = 'OPEN' AND r.strategy = 'REVIEW'
  AND NOT EXISTS { MATCH (f:Conflict {id: $id})
                   WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.status = 'OPEN' AND f.strategy = 'REVIEW' }
OPTIONAL CALL (n, o, r) {
  WITH n, o, r WHERE r IS NULL
  MERGE (c:Conflict {id: $id})
    ON CREATE SET c.tenant = $tenant, c.user_id = $user_id, c.kind = $kind, c.status = 'OPEN',
                  c.strategy = $strategy, c.reason = $reason, c.new_id = $new_id, c.old_id = $old_id,
                  c.created_at = $now, c.is_new = true
  WITH c, n, o
  WHERE c.tenant = $tenant AND c.user_id = $user_id
  WITH c, n, o, coalesce(c.is_new, false) AS created
  REMOVE c.is_new
  MERGE (c)-[rn:BETWEEN {role: 'new'}]->(n)
    ON CREATE SET rn.tenant = $tenant, rn.user_id = $user_id
  MERGE (c)-[ro:BETWEEN {role: 'old'}]->(o)
    ON CREATE SET ro.tenant = $tenant, ro.user_id = $user_id
  RETURN c, created
}
WITH coalesce(c, r) AS c, coalesce(created, false) AS created
WHERE c IS NOT NULL
RETURN c {.*, created_at: toString(c.created_at), resolved_at: toString(c.resolved_at)} AS conflict, created
