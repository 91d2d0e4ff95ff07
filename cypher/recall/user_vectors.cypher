// The embeddings, texts and text keys of one user's memories for the in-process vector cache, in (seq, id) order:
// those after ($after_seq, $after_id) (a catch-up from a sequence number, or a full read page by page
// from 0), at most $limit. The composite index memory_scope_seq finds the rows from $after_seq on, so a
// page reads the embeddings of its own rows only (a page that filtered or sorted the whole user read
// every embedding of a 100k-memory user 25 times). The id breaks ties: one statement's memories share
// its last sequence number. Superseded memories too: recall's filters are applied when the cached
// candidates are read back (recall/rows); an embedding of another size (an older model) is skipped by
// graph/vector_cache.py.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.seq >= $after_seq
  AND (m.seq > $after_seq OR ($after_id IS NOT NULL AND m.id > $after_id))
WITH m ORDER BY m.seq, m.id LIMIT $limit
RETURN m.id AS id, m.text AS text, m.text_key AS text_key, m.embedding AS embedding, m.seq AS seq
