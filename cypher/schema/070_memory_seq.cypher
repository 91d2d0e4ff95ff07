// Recall's in-process vector cache (graph/vector_cache.py) catches up on a user's memories created since
// it last looked (m.seq > the user's memory_seq it holds): this makes that a seek, not a scan.
CREATE INDEX memory_scope_seq IF NOT EXISTS FOR (m:Memory) ON (m.tenant, m.user_id, m.seq)
