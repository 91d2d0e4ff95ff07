// Purge memories of one user whose weight fell below $purge_below: only live, unlocked memories that are
// not safety presets and not held in an open conflict (checked again here, inside the transaction). Their
// triples go with them, as when a memory is forgotten.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant AND m.user_id = $user_id
  AND NOT m.locked AND m.valid_to IS NULL AND m.weight < $purge_below AND m.preset_kind <> 'safety'
  AND NOT EXISTS { MATCH (c:Conflict {status: 'OPEN'})-[:BETWEEN]->(m) WHERE c.tenant = $tenant }
OPTIONAL MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
WHERE t.tenant = $tenant AND t.user_id = $user_id
WITH m, collect(t) AS triples
FOREACH (t IN triples | DELETE t)
WITH m, m.id AS id
DETACH DELETE m
RETURN id
ORDER BY id
