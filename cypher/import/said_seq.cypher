// Import: a created remains' said_seq, in the target user's numbers (graph/knowledge_io.py _renumber_said): the
// seq there of the memory whose facts they keep, so they stand where that was said (bmam/usecases/conflicts.py).
UNWIND $rows AS r
MATCH (m:Memory {id: r.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
SET m.said_seq = r.said_seq
