// What recall needs to know of one user before reading candidates: how many memories the user has and
// how many there are in all (the cost of the exact scan vs the vector index), and the user's memory
// sequence and epoch (whether the in-process vector cache holds every memory the user has).
OPTIONAL MATCH (u:User {tenant: $tenant, user_id: $user_id})
CALL () { MATCH (any_memory:Memory) RETURN count(any_memory) AS total }
RETURN CASE WHEN u IS NULL THEN 0 ELSE COUNT { (u)-[:HAS_MEMORY]->() } END AS mine, total,
       coalesce(u.memory_seq, 0) AS seq, u.memory_epoch AS epoch
