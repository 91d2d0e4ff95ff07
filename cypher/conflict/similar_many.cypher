// The candidates for a negation conflict, for several stored memories of one user at once (Neo4j's
// vector.similarity.cosine is (1 + cos) / 2, mapped back to the raw cosine): for each item
// {memory_id, embedding}, the other live memories whose raw cosine to it is >= $threshold, closest first,
// at most $limit per item. The user's live memories (id, text, embedding) are read once and scanned
// exactly for every item.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL AND m.embedding IS NOT NULL
WITH collect({id: m.id, text: m.text, embedding: m.embedding}) AS mine
UNWIND $items AS item
CALL (item, mine) {
  UNWIND mine AS m
  WITH m, item WHERE m.id <> item.memory_id
  WITH m, 2.0 * vector.similarity.cosine(m.embedding, item.embedding) - 1.0 AS cosine
  WHERE cosine >= $threshold
  RETURN m.id AS memory_id, m.text AS text, cosine
  ORDER BY cosine DESC, memory_id
  LIMIT $limit
}
RETURN item.memory_id AS new_id, memory_id, text, cosine
