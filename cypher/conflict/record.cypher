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
WITH n, o, {id: $id, reverse_id: $reverse_id, kind: $kind, reason: $reason, old_id: $old_id} AS item
{{> conflict/record_item}}
WITH coalesce(c, r) AS c, coalesce(created, false) AS created
WHERE c IS NOT NULL
RETURN c {.*, created_at: toString(c.created_at), resolved_at: toString(c.resolved_at)} AS conflict, created
