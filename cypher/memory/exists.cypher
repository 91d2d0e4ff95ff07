// Whether a memory id exists for this user, and whether it is locked (to explain a refused forget).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.locked AS locked
