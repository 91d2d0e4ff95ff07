// Several memories of one user by id (conflict detection of a batch of stored memories): the id, the text
// and whether the memory is still live (not superseded). A missing id (forgotten, or someone else's) has no row.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
RETURN collect({id: m.id, text: m.text, live: m.valid_to IS NULL}) AS rows
