// The memories one recall chose, of one user, as memory/get reads them, in $ids order: contextPrompt fits
// them to its character budget before the recall records their use (recall/use: what the prompt leaves out
// is not counted as recalled). A memory gone since it was ranked is left out.
UNWIND range(0, size($ids) - 1) AS i
MATCH (m:Memory {id: $ids[i]})
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m {.*, embedding: null} AS memory
ORDER BY i
