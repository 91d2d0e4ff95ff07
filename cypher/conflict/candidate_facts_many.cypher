// Live triples that stored memories' triples may contradict, for several stored memories of one user at once:
// asserted by another live memory (not superseded), not themselves expired. For each item {memory_id,
// subjects, predicates}, the live triples of other live memories about one of its subjects with one of its
// predicates, at most $limit per item, ordered by asserting memory and triple id.
UNWIND $items AS item
CALL (item) {
  MATCH (s:Entity)
  WHERE s.tenant = $tenant AND s.user_id = $user_id AND toLower(s.name) IN item.subjects
  MATCH (s)-[t:TRIPLE]->(o:Entity)
  WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
    AND t.memory_id <> item.memory_id AND t.predicate IN item.predicates
  MATCH (m:Memory {id: t.memory_id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  RETURN t.memory_id AS memory_id, s.name AS subject, t.predicate AS predicate, o.name AS object,
         t.polarity AS polarity, t.id AS triple_id
  ORDER BY memory_id, triple_id
  LIMIT $limit
}
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
RETURN collect({new_id: item.memory_id, memory_id: memory_id, subject: subject, predicate: predicate, object: object,
                polarity: polarity, triple_id: triple_id}) AS rows
