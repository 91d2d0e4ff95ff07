// Give memories ($rows: {id, key}, the key computed by graph/text_key.py) that have no text_key theirs.
// Returns how many were given one.
UNWIND $rows AS r
MATCH (m:Memory {id: r.id})
WHERE m.text_key IS NULL
SET m.text_key = r.key
RETURN count(m) AS keyed
