// Some of one user's memories by id (the ones the in-process vector cache found like a candidate turn,
// graph/episodes.py): what repetition and engagement need of each, whether it is live (not superseded)
// and, for the rows asking for them ($rows: {id, triples}) and live, the triples it asserts. A memory
// deleted since the cache read it is simply not found.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
RETURN collect({id: m.id, text: m.text, tier: m.tier, locked: m.locked, mention_count: m.mention_count,
                live: m.valid_to IS NULL, temporary: m.preset_kind = 'temporary',
                triples: CASE WHEN row.triples AND m.valid_to IS NULL
                              THEN [(s:Entity)-[t:TRIPLE]->(o:Entity) WHERE t.memory_id = m.id AND t.tenant = $tenant
                                    | [s.name, t.predicate, o.name, t.polarity]]
                              ELSE [] END}) AS rows
