// Claim a run of a scheduled job, under its lock (maintenance/schedule_lock): when it last ran at or before
// $due_before (or never) its last run becomes $now and one row says when it ran before; no row: not due, or
// another worker claimed this run.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
WITH s, s.last_run AS previous
WHERE previous IS NULL OR previous <= datetime($due_before)
SET s.last_run = datetime($now)
RETURN toString(previous) AS previous
