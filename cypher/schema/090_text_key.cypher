// The repeat check (episode/similar_memories_indexed) finds a user's memories with the same text key
// (graph/text_key.py) by a seek, for users too large for an exact scan.
CREATE INDEX memory_scope_text_key IF NOT EXISTS FOR (m:Memory) ON (m.tenant, m.user_id, m.text_key)
