// Bench only (bench/recall_latency.py): bulk-load filler memories of one user with given embeddings,
// one batch of $rows per call. Never run by the service.
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u.created_at = $now
WITH u
UNWIND $rows AS r
CREATE (m:Memory:Semantic {id: r.id, tenant: $tenant, user_id: $user_id, scope_token: $scope_token,
                          text: r.text, text_key: r.text_key, type: 'SEMANTIC',
                          tier: 'temp', passive: 0.0, active: 0.5, preset: 0.5, preset_kind: 'default',
                          weight: 0.2, locked: false, created_at: r.created_at, valid_from: r.created_at,
                          last_mentioned_at: r.created_at, recall_count: 0, mention_count: 1,
                          classified_by: 'user', confidence: 1.0, session_id: r.session_id})
CREATE (u)-[:HAS_MEMORY]->(m)
SET u.memory_seq = coalesce(u.memory_seq, 0) + 1, u.memory_epoch = coalesce(u.memory_epoch, randomUUID())
SET m.seq = u.memory_seq
WITH m, r
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
RETURN count(*) AS loaded
