// Every statement filters on (tenant, user_id): these make that a seek, not a label scan.
CREATE INDEX memory_scope IF NOT EXISTS FOR (m:Memory) ON (m.tenant, m.user_id);
CREATE INDEX memory_user_id IF NOT EXISTS FOR (m:Memory) ON (m.user_id);
CREATE INDEX memory_scope_tier IF NOT EXISTS FOR (m:Memory) ON (m.tenant, m.user_id, m.tier);
CREATE INDEX entity_scope IF NOT EXISTS FOR (e:Entity) ON (e.tenant, e.user_id);
CREATE INDEX episode_scope IF NOT EXISTS FOR (e:Episode) ON (e.tenant, e.user_id);
CREATE INDEX triple_memory IF NOT EXISTS FOR ()-[t:TRIPLE]-() ON (t.memory_id)
