// One page (keyset on id) of the live, unlocked memories of one user with what planning a full
// maintenance needs: weight parts and counts (to predict decay and purge), type, tier, preset kind, text and
// embedding (to cluster near-duplicates), whether the memory is held in an open conflict, and durable: whether it
// states a live triple with one of $durable_predicates (tier/durable: the user's lasting knowledge, never purged,
// as the tier sweep never deletes it).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked AND m.valid_to IS NULL
  AND ($after_id IS NULL OR m.id > $after_id)
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.text AS text, m.type AS type, m.tier AS tier, m.preset_kind AS preset_kind, m.passive AS passive,
       m.active AS active, m.preset AS preset, m.weight AS weight,
       coalesce(m.decayed_at, m.created_at) AS decayed_at, m.created_at AS created_at,
       coalesce(m.mention_count, 0) AS mention_count, m.embedding AS embedding,
       EXISTS { MATCH (c:Conflict {status: 'OPEN'})-[:BETWEEN]->(m) WHERE c.tenant = $tenant } AS in_open_conflict,
       {{> tier/durable}} AS durable
ORDER BY id
