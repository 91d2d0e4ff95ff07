// Store typed memories for one user, one per row of $rows (of any types, in one statement); idempotent on
// each row's id (a repeat changes nothing and says so). The type label (e.g. Factual) is the stored
// m.type's, looked up in $labels (type value -> label, from the closed MemoryType enum) and set as a
// dynamic label (Neo4j 5.26+): a repeat with another type keeps the memory's own type and label.
// A single remember is a list of one; ingest writes a batch at once.
// Times come as ISO text (p.now; graph/records.py time_param). $scope_token names the user in the full-text
// index (graph/scope_token.py); p.text_key is the text's repeat key (graph/text_key.py). $hooks_pending_at (ISO text, or null: not set) marks memories whose
// after-store hooks are still to run (ingest and remember; memory/hooks_done clears it).
UNWIND $rows AS row
WITH row {.*, now: datetime(row.now)} AS p
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u.created_at = p.now
MERGE (m:Memory {id: p.id})
  ON CREATE SET
    m.tenant = $tenant, m.user_id = $user_id, m.text = p.text, m.text_key = p.text_key, m.type = p.type, m.tier = p.tier,
    m.passive = p.passive, m.active = p.active, m.preset = p.preset, m.preset_kind = p.preset_kind,
    m.weight = $passive_share * p.passive + $active_share * p.active + $preset_share * p.preset,
    m.locked = (p.tier = 'core'), m.created_at = p.now, m.valid_from = p.now,
    m.last_mentioned_at = p.now, m.recall_count = 0, m.mention_count = 1,
    m.classified_by = p.classified_by, m.confidence = p.confidence,
    m.session_id = p.session_id, m.turn = p.turn, m.device_id = p.device_id, m.episode_id = p.episode_id,
    m.scope_token = $scope_token, m.hooks_pending_at = datetime($hooks_pending_at), m.is_new = true
WITH u, m, p
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH u, m, p, coalesce(m.is_new, false) AS created
REMOVE m.is_new
SET m:$($labels[m.type])
MERGE (u)-[:HAS_MEMORY]->(m)
WITH u, m, p, created
// A new memory takes the user's next sequence number (graph/vector_cache.py catches up by it).
CALL (u, m, created) {
  WITH u, m WHERE created
  SET u.memory_seq = coalesce(u.memory_seq, 0) + 1, u.memory_epoch = coalesce(u.memory_epoch, randomUUID())
  SET m.seq = u.memory_seq
}
WITH m, p, created
CALL (m, p, created) {
  WITH m WHERE created
  CALL db.create.setNodeVectorProperty(m, 'embedding', p.embedding)
}
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
// Without $answer only the ids (ingest reads its memories once the batch is written).
RETURN collect({memory: CASE WHEN $answer THEN m {.*, embedding: null, created_at: toString(m.created_at),
          valid_from: toString(m.valid_from), valid_to: toString(m.valid_to),
          last_mentioned_at: toString(m.last_mentioned_at), last_recalled_at: toString(m.last_recalled_at),
          decayed_at: toString(m.decayed_at), last_feedback_at: toString(m.last_feedback_at)}
          ELSE {id: m.id} END, created: created}) AS rows
