// A user's conflict queue
// Conflicts still OPEN (held for review by the REVIEW strategy), each with its new and its old memory,
// oldest first; settle one with the resolveConflict mutation.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (c:Conflict)
WHERE c.tenant = $tenant AND c.user_id = $user_id AND c.status = 'OPEN'
OPTIONAL MATCH (n:Memory {id: c.new_id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
OPTIONAL MATCH (o:Memory {id: c.old_id})
WHERE o.tenant = $tenant AND o.user_id = $user_id
RETURN c.id AS conflict, c.kind AS kind, c.reason AS reason, c.created_at AS detected_at,
       n.text AS new_memory, o.text AS old_memory, n.id AS new_id, o.id AS old_id
ORDER BY detected_at, conflict
LIMIT 200
