// Claim a run of a scheduled job, under its lock (maintenance/schedule_lock): due when it last finished at or
// before $due_before (or never) and no live lease holds it (none, or one that ran out: its worker died or
// overran it). The claim is a lease, $claimed_by holding the run until $lease_until; last_run moves only when
// the run finishes (maintenance/schedule_finish), so a worker killed mid-job does not skip a period. One row
// (the claim whose lease ran out, if any, for the log); no row: not due, or another worker holds this run.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
WHERE (s.last_run IS NULL OR s.last_run <= datetime($due_before))
  AND (s.lease_until IS NULL OR s.lease_until <= datetime($now))
WITH s, s.claimed_by AS taken_from
SET s.claimed_by = $claimed_by, s.claimed_at = datetime($now), s.lease_until = datetime($lease_until)
RETURN taken_from
