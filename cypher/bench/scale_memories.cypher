// Bench only (bench/scale_load.py): bulk-load one batch of memories of one type for several users of one
// tenant, each with its embedding (synthetic unit vectors for filler users, real ones for the queried
// users), their User nodes and HAS_MEMORY edges. The type label is spliced from the MemoryType allow-list.
// Never run by the service.
UNWIND $users AS uid
MERGE (u:User {tenant: $tenant, user_id: uid})
  ON CREATE SET u.created_at = $now
WITH count(*) AS users
UNWIND $rows AS r
MATCH (u:User {tenant: $tenant, user_id: r.user_id})
CREATE (m:Memory:{{type_label}} {id: r.id, tenant: $tenant, user_id: r.user_id, text: r.text, text_key: r.text_key, type: r.type,
                                tier: r.tier, passive: r.passive, active: r.active, preset: 0.5,
                                preset_kind: 'default', weight: r.weight, locked: r.tier = 'core',
                                created_at: r.at, valid_from: r.at, last_mentioned_at: r.at, decayed_at: r.at,
                                recall_count: r.recalls, mention_count: 1, classified_by: 'rule',
                                confidence: 0.9, session_id: r.session_id, turn: r.turn,
                                scope_token: r.scope_token})
CREATE (u)-[:HAS_MEMORY]->(m)
SET u.memory_seq = coalesce(u.memory_seq, 0) + 1, u.memory_epoch = coalesce(u.memory_epoch, randomUUID())
SET m.seq = u.memory_seq
WITH m, r
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
RETURN count(*) AS loaded
