// The tier state of one memory of one user.
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.id AS id, m.tier AS tier, m.locked AS locked, m.weight AS weight,
       m.last_mentioned_at AS last_mentioned_at, m.created_at AS created_at,
       m.preset_kind AS preset_kind, m.mention_count AS mention_count
