// The conflicts of one user, newest first, optionally only those with a status (OPEN = the review queue).
MATCH (c:Conflict)
WHERE c.tenant = $tenant AND c.user_id = $user_id AND ($status IS NULL OR c.status = $status)
WITH c ORDER BY c.created_at DESC, c.id DESC LIMIT $limit
OPTIONAL MATCH (n:Memory {id: c.new_id}) WHERE n.tenant = $tenant AND n.user_id = $user_id
OPTIONAL MATCH (o:Memory {id: c.old_id}) WHERE o.tenant = $tenant AND o.user_id = $user_id
RETURN c {.*} AS conflict, n {.*, embedding: null} AS new_memory, o {.*, embedding: null} AS old_memory
ORDER BY c.created_at DESC, c.id DESC
