// After an import: the user's OPEN conflicts of which a memory is no longer live (the file held the conflict
// open; here one of its memories was superseded since) are closed as moot (resolved_by 'superseded', no winner),
// as a settlement closes its loser's other open conflicts (conflict/settle_pair): the review queue holds no
// conflict that resolveConflict could only refuse. Returns how many were closed.
MATCH (c:Conflict)-[:BETWEEN]->(m:Memory)
WHERE c.tenant = $tenant AND c.user_id = $user_id AND c.status = 'OPEN'
  AND m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NOT NULL
WITH DISTINCT c
SET c.status = 'RESOLVED', c.resolved_at = $now, c.resolved_by = 'superseded'
RETURN count(c) AS closed
