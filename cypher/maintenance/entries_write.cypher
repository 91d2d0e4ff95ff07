// Record the before-images of one user's memories a maintenance run changed (one ChangeEntry each):
// op 'props' (reweighted: properties only) or 'full' (merged or purged: labels, properties, embedding,
// relationships and triples), enough for undo to restore the graph exactly.
UNWIND $entries AS e
CREATE (x:ChangeEntry {changeset_id: $changeset_id, tenant: $tenant, user_id: $user_id, memory_id: e.memory_id,
                       seq: e.seq, op: e.op, reasons: e.reasons, before: e.before, created_at: $now})
WITH x, e
WHERE e.embedding IS NOT NULL
SET x.embedding = e.embedding
RETURN count(x) AS written
