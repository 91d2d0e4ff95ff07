// The embeddings, texts and text keys of one user's memories that carry no sequence number (written before
// numbering existed, or by bulk loads), a page at a time in id order (keyset $after, at most $limit),
// for the in-process vector cache. The embedding is read only for the page's own rows.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.seq IS NULL AND ($after IS NULL OR m.id > $after)
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.text AS text, m.text_key AS text_key, m.embedding AS embedding
