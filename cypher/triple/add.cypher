// Add a triple (subject)-[:TRIPLE {predicate}]->(object) asserted by one memory of one user.
// Entities are created or reused per (tenant, user, kind, name); the memory MENTIONS both.
MATCH (m:Memory {id: $memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
MERGE (s:Entity {id: $subject_id})
  ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.name = $subject_name, s.kind = $subject_kind,
                s.created_at = $now
MERGE (o:Entity {id: $object_id})
  ON CREATE SET o.tenant = $tenant, o.user_id = $user_id, o.name = $object_name, o.kind = $object_kind,
                o.created_at = $now
WITH m, s, o
WHERE s.tenant = $tenant AND s.user_id = $user_id AND o.tenant = $tenant AND o.user_id = $user_id
MERGE (s)-[t:TRIPLE {id: $triple_id}]->(o)
  ON CREATE SET t.predicate = $predicate, t.polarity = $polarity, t.memory_id = m.id,
                t.tenant = $tenant, t.user_id = $user_id, t.created_at = $now, t.valid_to = null
MERGE (m)-[:MENTIONS]->(s)
MERGE (m)-[:MENTIONS]->(o)
RETURN t.id AS id, s {.id, .name, .kind} AS subject, t.predicate AS predicate,
       o {.id, .name, .kind} AS object, t.polarity AS polarity, t.memory_id AS memory_id,
       t.created_at AS created_at, t.valid_to AS valid_to
