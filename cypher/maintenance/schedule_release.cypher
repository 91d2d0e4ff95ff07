// Give a claimed run back (its job failed): the last run goes back to what it was, unless another claim
// has moved it since, so the job is due again at the next tick.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
WHERE s.last_run = datetime($claimed_at)
SET s.last_run = datetime($previous)
RETURN s.kind AS kind
