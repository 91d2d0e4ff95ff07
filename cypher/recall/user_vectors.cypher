// The embeddings and texts of one user's memories for the in-process vector cache: all of them
// ($since IS NULL), a page at a time in id order (keyset $after, at most $limit), or those created after
// sequence number $since. Superseded memories too: recall's filters are applied when the cached
// candidates are read back (recall/rows).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND ($since IS NULL OR m.seq > $since)
  AND ($after IS NULL OR m.id > $after) AND size(m.embedding) = $dimensions
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.text AS text, m.embedding AS embedding
