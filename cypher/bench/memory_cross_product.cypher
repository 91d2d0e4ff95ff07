// Bench and tests only (tests/test_related_search.py): the number of ordered 5-tuples of one user's memories, a
// cartesian product counted row by row (60 memories: ~780M rows, most of a minute), so a statement that runs
// long while holding next to no memory: what a transaction timeout stops. Never run by the service.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH collect(m.id) AS ids
UNWIND ids AS a
UNWIND ids AS b
UNWIND ids AS c
UNWIND ids AS d
UNWIND ids AS e
RETURN count(*) AS tuples
