// A user's core memories (live: superseded history, a corrected core memory, is outside the tiers)
// The locked tier: never deleted, demoted or evicted by the system (only the user changes them),
// heaviest first.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'core'
  AND m.valid_to IS NULL  // superseded history is outside the tiers (a corrected core memory keeps tier 'core')
RETURN m.id AS id, m.text AS text, m.type AS type, m.weight AS weight, m.locked AS locked,
       m.mention_count AS mentions, m.created_at AS created_at, m.valid_to AS valid_to
ORDER BY weight DESC, created_at DESC
LIMIT 200
