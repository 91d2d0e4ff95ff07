// (Included by conflict/record and conflict/settle_many.) Record the conflict of one pair of one user: given the
// new memory n, the old memory o and item {id, reverse_id, kind, reason, old_id} (its derived id and that of the
// pair the other way round), the conflict is MERGEd on item.id (idempotent; BETWEEN {role} edges to both sides)
// unless the pair is held the other way round (r: the conflict item.reverse_id, OPEN and recorded by REVIEW, or
// OPEN by any strategy when this one is not REVIEW: a locked loser's, tried again as found; while item.id is not
// held for review too): then nothing is recorded. Leaves r, c (null when held that way) and
// created; the caller answers coalesce(c, r).
OPTIONAL MATCH (r:Conflict {id: item.reverse_id})
WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.status = 'OPEN'
  AND (r.strategy = 'REVIEW' OR $strategy <> 'REVIEW')
  AND NOT EXISTS { MATCH (f:Conflict {id: item.id})
                   WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.status = 'OPEN' AND f.strategy = 'REVIEW' }
OPTIONAL CALL (n, o, item, r) {
  WITH n, o, item, r WHERE r IS NULL
  MERGE (c:Conflict {id: item.id})
    ON CREATE SET c.tenant = $tenant, c.user_id = $user_id, c.kind = item.kind, c.status = 'OPEN',
                  c.strategy = $strategy, c.reason = item.reason, c.new_id = $new_id, c.old_id = item.old_id,
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
