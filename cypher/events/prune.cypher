// Drop up to $batch events of the shared log logged before $before: the log carries events between running
// processes, it is not their history. Returns how many went.
MATCH (e:MemoryEvent)
WHERE e.logged_at < $before
WITH e LIMIT $batch
DELETE e
RETURN count(*) AS pruned
