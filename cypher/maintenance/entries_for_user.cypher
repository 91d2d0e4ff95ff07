// The entries of one changeset for one user, in the order they were recorded (after and applied are null
// in entries written before undo kept after-images).
MATCH (e:ChangeEntry {changeset_id: $changeset_id})
WHERE e.tenant = $tenant AND e.user_id = $user_id
RETURN e.memory_id AS memory_id, e.op AS op, e.reasons AS reasons, e.before AS before, e.embedding AS embedding,
       e.after AS after, e.applied AS applied
ORDER BY e.seq
