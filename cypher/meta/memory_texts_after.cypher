// Memories in id order after $after (the memory_id constraint's index gives the order), at most $limit:
// their texts and whether they have a text_key yet, for graph/migrations.py to give keys (graph/text_key.py)
// to those written before memories held one.
MATCH (m:Memory) WHERE m.id > $after
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.text AS text, m.text_key IS NULL AS missing
