// The tier state of one memory of one user (the columns of tier/memories).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.id AS id, m.tier AS tier, m.locked AS locked, m.weight AS weight, m.type AS type,
       m.passive AS passive, m.active AS active, m.preset AS preset, m.preset_kind AS preset_kind,
       m.mention_count AS mention_count, toString(m.last_mentioned_at) AS last_mentioned_at,
       toString(m.created_at) AS created_at, toString(coalesce(m.decayed_at, m.created_at)) AS decayed_at,
       toString(m.tier_since) AS tier_since,
       m.valid_to IS NOT NULL AS superseded,
       EXISTS { MATCH (c:Conflict {status: 'OPEN'})-[:BETWEEN]->(m) WHERE c.tenant = $tenant } AS in_open_conflict
