// The conflicts of one user, newest first, optionally only those with a status (OPEN = the review queue); a
// page of them: keyset on (created_at, id) after ($after_at, $after_id) (graph/paging.py; both null for the
// first page).
MATCH (c:Conflict)
WHERE c.tenant = $tenant AND c.user_id = $user_id AND ($status IS NULL OR c.status = $status)
  AND ($after_id IS NULL
       OR c.created_at < $after_at
       OR (c.created_at = $after_at AND c.id < $after_id))
WITH c ORDER BY c.created_at DESC, c.id DESC LIMIT $limit
OPTIONAL MATCH (n:Memory {id: c.new_id}) WHERE n.tenant = $tenant AND n.user_id = $user_id
OPTIONAL MATCH (o:Memory {id: c.old_id}) WHERE o.tenant = $tenant AND o.user_id = $user_id
RETURN c {.*} AS conflict, n {.*, embedding: null} AS new_memory, o {.*, embedding: null} AS old_memory
ORDER BY c.created_at DESC, c.id DESC
