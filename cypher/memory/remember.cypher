// Store a typed memory for one user; idempotent on $id (a repeat changes nothing and says so).
// The type label is spliced from the closed MemoryType allow-list.
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u.created_at = $now
MERGE (m:Memory {id: $id})
  ON CREATE SET
    m.tenant = $tenant, m.user_id = $user_id, m.text = $text, m.type = $type, m.tier = $tier,
    m.passive = $passive, m.active = $active, m.preset = $preset, m.preset_kind = $preset_kind,
    m.weight = $passive_share * $passive + $active_share * $active + $preset_share * $preset,
    m.locked = ($tier = 'core'), m.created_at = $now, m.valid_from = $now,
    m.last_mentioned_at = $now, m.recall_count = 0, m.mention_count = 1,
    m.classified_by = $classified_by, m.confidence = $confidence,
    m.session_id = $session_id, m.turn = $turn, m.device_id = $device_id, m.episode_id = $episode_id,
    m.is_new = true
WITH u, m
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH u, m, coalesce(m.is_new, false) AS created
REMOVE m.is_new
SET m:{{type_label}}
MERGE (u)-[:HAS_MEMORY]->(m)
WITH m, created
CALL (m, created) {
  WITH m WHERE created
  CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
}
RETURN m {.*, embedding: null} AS memory, created
