// Import: a remains' said_seq, in the target user's numbers (graph/knowledge_io.py _renumber_said): the seq there
// of the memory whose facts they keep, so they stand where that was said (bmam/usecases/conflicts.py). Given for
// every remains of the file, set only where the memory has none: an import cut before this statement is repaired
// by importing the file again, and a memory that has it (a second import, the user's own remains) keeps it.
UNWIND $rows AS r
MATCH (m:Memory {id: r.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.said_seq IS NULL
SET m.said_seq = r.said_seq
