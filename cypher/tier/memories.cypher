// The tier state of one user's memories in the given tiers: what the tier rules decide on.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier IN $tiers
RETURN m.id AS id, m.tier AS tier, m.locked AS locked, m.weight AS weight,
       m.last_mentioned_at AS last_mentioned_at, m.created_at AS created_at,
       m.preset_kind AS preset_kind, m.mention_count AS mention_count
