// Give a claimed run back (its job failed, or stopped before its end at a shutdown): the lease ends and the
// last run stays, so the job is due again at the next tick. Only while $claimed_by still holds the run:
// another worker's claim is left alone.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
WHERE s.claimed_by = $claimed_by
REMOVE s.claimed_by, s.claimed_at, s.lease_until
RETURN s.kind AS kind
