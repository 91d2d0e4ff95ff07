// The after-store hooks of these memories of one user went through: they are no longer pending.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
REMOVE m.hooks_pending_at
