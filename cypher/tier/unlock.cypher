// The user unlocks a core memory: it leaves core for mid and the system manages it again. Its decay clock
// starts again at $now: a locked memory does not decay (weights/decay), so the time it spent locked is not
// counted against it later; nor against its time in mid (tier_since: the tier rules' clocks start there).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'core'
SET m.tier = 'mid', m.locked = false, m.decayed_at = $now, m.tier_since = $now
RETURN m.id AS id
