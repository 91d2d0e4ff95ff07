// What conflict detection reads of one user for several stored memories at once, in one round trip (it took
// two), collected in one row: the results in lists (the driver handles each record in Python, ~12 us a row).
// 1. current: the memories $ids by id, with the text and whether each is still live (not superseded); a
//    missing id (forgotten, or someone else's) is left out.
// 2. facts: live triples that the stored memories' triples may contradict, asserted by another live memory (not
//    superseded), not themselves expired. For each of $items {memory_id, subjects, predicates}, the live
//    triples of other live memories about one of its subjects with one of its predicates, at most $limit per
//    item, ordered by asserting memory and triple id. The live triples about any item's subjects with any
//    item's predicates are read once (walking the user's entities and their TRIPLE edges again for every item
//    took ~65k db hits for 512 turns, now ~6k); each item then picks its own from that list.
CALL () {
  UNWIND $ids AS id
  MATCH (m:Memory {id: id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id
  RETURN collect({id: m.id, text: m.text, live: m.valid_to IS NULL}) AS current
}
CALL () {
  WITH reduce(a = [], item IN $items | a + item.subjects) AS subjects,
       reduce(a = [], item IN $items | a + item.predicates) AS predicates
  CALL (subjects, predicates) {
    MATCH (s:Entity)
    WHERE size(subjects) > 0 AND s.tenant = $tenant AND s.user_id = $user_id AND toLower(s.name) IN subjects
    MATCH (s)-[t:TRIPLE]->(o:Entity)
    WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL AND t.predicate IN predicates
    MATCH (m:Memory {id: t.memory_id})
    WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
    RETURN collect({key: toLower(s.name), memory_id: t.memory_id, subject: s.name, predicate: t.predicate,
                    object: o.name, polarity: t.polarity, triple_id: t.id}) AS pool
  }
  UNWIND $items AS item
  CALL (item, pool) {
    UNWIND pool AS f
    WITH item, f
    WHERE f.key IN item.subjects AND f.predicate IN item.predicates AND f.memory_id <> item.memory_id
    RETURN f.memory_id AS memory_id, f.subject AS subject, f.predicate AS predicate, f.object AS object,
           f.polarity AS polarity, f.triple_id AS triple_id
    ORDER BY memory_id, triple_id
    LIMIT $limit
  }
  RETURN collect({new_id: item.memory_id, memory_id: memory_id, subject: subject, predicate: predicate, object: object,
                  polarity: polarity, triple_id: triple_id}) AS facts
}
RETURN current, facts
