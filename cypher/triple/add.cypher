// Add triples (subject)-[:TRIPLE {predicate}]->(object), one per row of $rows, each asserted by one
// memory of one user. Entities are created or reused per (tenant, user, kind, name); the memory
// MENTIONS both. A single add is a list of one; ingest adds a batch at once. Each row says whether its memory is
// superseded (history: the caller refuses, rolling back).
// Times come as ISO text (p.now; graph/records.py time_param).
UNWIND $rows AS row
WITH row {.*, now: datetime(row.now)} AS p
MATCH (m:Memory {id: p.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
MERGE (s:Entity {id: p.subject_id})
  ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.name = p.subject_name, s.kind = p.subject_kind,
                s.created_at = p.now
MERGE (o:Entity {id: p.object_id})
  ON CREATE SET o.tenant = $tenant, o.user_id = $user_id, o.name = p.object_name, o.kind = p.object_kind,
                o.created_at = p.now
WITH m, s, o, p
WHERE s.tenant = $tenant AND s.user_id = $user_id AND o.tenant = $tenant AND o.user_id = $user_id
MERGE (s)-[t:TRIPLE {id: p.triple_id}]->(o)
  ON CREATE SET t.predicate = p.predicate, t.polarity = p.polarity, t.memory_id = m.id,
                t.tenant = $tenant, t.user_id = $user_id, t.created_at = p.now, t.valid_to = null
MERGE (m)-[:MENTIONS]->(s)
MERGE (m)-[:MENTIONS]->(o)
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
RETURN collect({id: t.id, subject: s {.id, .name, .kind}, predicate: t.predicate, object: o {.id, .name, .kind},
                polarity: t.polarity, memory_id: t.memory_id, created_at: toString(t.created_at),
                valid_to: toString(t.valid_to), history: m.valid_to IS NOT NULL}) AS rows
