// Some of one user's memories by id (the ones the in-process vector cache found like a candidate turn,
// graph/episodes.py): what repetition and engagement need of each, whether it is live (not superseded)
// and, for the rows asking for them ($rows: {id, triples}) and live, the triples it asserts. A memory
// deleted since the cache read it is simply not found.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.id AS id, m.text AS text, m.tier AS tier, m.locked AS locked, m.mention_count AS mention_count,
       m.valid_to IS NULL AS live,
       CASE WHEN row.triples AND m.valid_to IS NULL
            THEN [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant
                  | [s.name, t.predicate, o.name, t.polarity]]
            ELSE [] END AS triples
