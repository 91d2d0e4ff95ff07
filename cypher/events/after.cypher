// The log's head (the last seq committed) and, of the events after $after up to it, those of the scopes in
// $scopes that another process than $origin appended, oldest first, at most $limit. Every event up to the
// head is committed (events/append), so a reader moving its cursor to the head skips nothing it wanted.
OPTIONAL MATCH (c:EventSequence {name: 'memory_events'})
WITH coalesce(c.seq, 0) AS head
CALL (head) {
  OPTIONAL MATCH (e:MemoryEvent)
  WHERE e.seq > $after AND e.seq <= head AND e.origin <> $origin AND e.scope IN $scopes
  WITH e ORDER BY e.seq
  LIMIT $limit
  RETURN collect(e {.seq, .scope, .kind, .memory_id, .at, .detail}) AS events
}
RETURN head, events
