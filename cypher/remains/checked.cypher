// Superseded memories whose remains were looked for (stored, or nothing remains): the sweep passes them by
// (remains/unchecked). Idempotent.
UNWIND $loser_ids AS loser_id
MATCH (l:Memory {id: loser_id})
WHERE l.tenant = $tenant AND l.user_id = $user_id
SET l.remains_checked_at = datetime($now)
