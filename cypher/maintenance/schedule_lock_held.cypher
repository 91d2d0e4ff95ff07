// Take the write lock of one scheduled job's node before a finish or release (same transaction) tests who
// holds its run: a claim committed meanwhile is then seen, never overwritten. Never creates the node.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
SET s._lock = true
REMOVE s._lock
RETURN s.kind AS kind
