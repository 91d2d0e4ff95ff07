// What the store holds for one scheduled job (operators, tests): its last finished run and the claim in
// progress, if any. No row: the job was never seen.
MATCH (s:MaintenanceSchedule {name: $name, kind: $kind})
RETURN toString(s.last_run) AS last_run, s.claimed_by AS claimed_by, toString(s.claimed_at) AS claimed_at,
       toString(s.lease_until) AS lease_until
