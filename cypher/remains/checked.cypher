// A superseded memory's remains were looked for (stored, or nothing remains): the sweep passes it by
// (remains/unchecked). Idempotent.
MATCH (l:Memory {id: $loser_id})
WHERE l.tenant = $tenant AND l.user_id = $user_id
SET l.remains_checked_at = datetime($now)
