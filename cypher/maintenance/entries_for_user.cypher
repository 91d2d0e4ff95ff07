// The entries of one changeset for one user, in the order they were recorded.
MATCH (e:ChangeEntry {changeset_id: $changeset_id})
WHERE e.tenant = $tenant AND e.user_id = $user_id
RETURN e.memory_id AS memory_id, e.op AS op, e.reasons AS reasons, e.before AS before, e.embedding AS embedding
ORDER BY e.seq
