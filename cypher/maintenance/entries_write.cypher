// Record what a maintenance run changed in one user's memories (one ChangeEntry each): the before-image
// (op 'props', reweighted: properties only; op 'full', merged or purged: labels, properties, embedding,
// relationships and triples), the after-image (the keys the run changed and their new values; whether
// the memory still exists; for a full one still there, its relationships and triples) and the apply stamp
// of this user's transaction (maintenance/applied_next), enough for undo to restore exactly what the run
// changed and to see what changed it since.
UNWIND $entries AS e
CREATE (x:ChangeEntry {changeset_id: $changeset_id, tenant: $tenant, user_id: $user_id, memory_id: e.memory_id,
                       seq: e.seq, op: e.op, reasons: e.reasons, before: e.before, created_at: $now})
SET x.after = e.after, x.applied = $applied
WITH x, e
WHERE e.embedding IS NOT NULL
SET x.embedding = e.embedding
RETURN count(x) AS written
