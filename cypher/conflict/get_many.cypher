// Several conflicts of one user by id, each with both of its memories (new and old), as conflict/get reads
// one; an unknown id has no row.
UNWIND $ids AS id
MATCH (c:Conflict {id: id})
WHERE c.tenant = $tenant AND c.user_id = $user_id
OPTIONAL MATCH (n:Memory {id: c.new_id}) WHERE n.tenant = $tenant AND n.user_id = $user_id
OPTIONAL MATCH (o:Memory {id: c.old_id}) WHERE o.tenant = $tenant AND o.user_id = $user_id
RETURN c {.*} AS conflict, n {.*, embedding: null} AS new_memory, o {.*, embedding: null} AS old_memory
