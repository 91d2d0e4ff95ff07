// The embeddings and texts of one user's memories for the in-process vector cache: all of them
// ($since IS NULL), or those created after sequence number $since. Superseded memories too: recall's
// filters are applied when the cached candidates are read back (recall/rows).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND ($since IS NULL OR m.seq > $since)
  AND size(m.embedding) = $dimensions
RETURN m.id AS id, m.text AS text, m.embedding AS embedding
