// Bench only (bench/export_rdf.py): load a batch of synthetic memories of one user, each asserting a few
// triples between synthetic entities (entities shared across memories), with the edges the export
// reads (HAS_MEMORY, MENTIONS). No embeddings: the export leaves them out.
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u.created_at = $now
WITH u
UNWIND $rows AS r
CREATE (m:Memory:Factual {id: r.id, tenant: $tenant, user_id: $user_id, scope_token: $scope_token,
                          text: r.text, text_key: r.text_key, type: 'FACTUAL',
                          tier: 'temp', passive: 0.0, active: 0.5, preset: 0.5, preset_kind: 'default',
                          weight: 0.2, locked: false, created_at: $now, valid_from: $now,
                          last_mentioned_at: $now, recall_count: 0, mention_count: 1,
                          classified_by: 'rule', confidence: 0.9, session_id: 'bench', turn: r.turn})
CREATE (u)-[:HAS_MEMORY]->(m)
WITH m, r
UNWIND r.triples AS t
MERGE (s:Entity {id: t.s_id})
  ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.name = t.s_name, s.kind = 'thing',
                s.created_at = $now
MERGE (o:Entity {id: t.o_id})
  ON CREATE SET o.tenant = $tenant, o.user_id = $user_id, o.name = t.o_name, o.kind = 'thing',
                o.created_at = $now
CREATE (s)-[:TRIPLE {id: t.id, predicate: t.p, polarity: t.polarity, memory_id: m.id, tenant: $tenant,
                     user_id: $user_id, created_at: $now}]->(o)
MERGE (m)-[:MENTIONS]->(s)
MERGE (m)-[:MENTIONS]->(o)
RETURN count(*) AS triples
