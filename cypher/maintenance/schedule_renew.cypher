// Renew the lease of a run still in progress (bmam/scheduler.py, every third of the lease while its job runs):
// the lease now ends at $lease_until; claimed_at stays (the run's time, its last run once it finishes). Only
// while $claimed_by still holds the run: a worker whose claim was taken over (its lease ran out), finished or
// given back writes nothing, and learns from the missing row that it lost the run.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
WHERE s.claimed_by = $claimed_by
SET s.lease_until = datetime($lease_until)
RETURN s.kind AS kind
