// A claimed run finished: it becomes the job's last run and the lease ends. The last run is the claim's time
// (the period counts from one start to the next: the schedule does not drift by the jobs' length). Only while
// $claimed_by still holds the run: a worker that overran its lease and lost the run to another writes nothing.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
WHERE s.claimed_by = $claimed_by
SET s.last_run = s.claimed_at
REMOVE s.claimed_by, s.claimed_at, s.lease_until
RETURN s.kind AS kind
