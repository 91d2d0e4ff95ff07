// The user unlocks a core memory: it leaves core for mid and the system manages it again.
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'core'
SET m.tier = 'mid', m.locked = false
RETURN m.id AS id
