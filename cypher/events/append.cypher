// Append memory events to the shared log, numbered from the one EventSequence node. Its write lock is taken
// before its seq is read and held to the commit, so appends commit in seq order and the committed events are
// always a prefix of the numbers: a reader that has seen up to seq s never misses one committed later.
// $events: [{scope, kind, memory_id, at (ISO text), detail (JSON text)}]; scope is the user's scope token
// (graph/scope_token.py), never the tenant or user id: the log names nobody. $origin: the appending process.
MERGE (c:EventSequence {name: 'memory_events'})
ON CREATE SET c.seq = 0
SET c._lock = true
REMOVE c._lock
WITH c, c.seq AS base
SET c.seq = base + size($events)
WITH base
UNWIND range(0, size($events) - 1) AS i
WITH base + i + 1 AS seq, $events[i] AS e
CREATE (:MemoryEvent {seq: seq, origin: $origin, scope: e.scope, kind: e.kind, memory_id: e.memory_id,
                      at: e.at, detail: e.detail, logged_at: $now})
RETURN max(seq) AS head
