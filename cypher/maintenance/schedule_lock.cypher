// Take the write lock of one scheduled job's (:MaintenanceSchedule {name, kind}) for the rest of the
// transaction, creating it when missing: as last run $now (its first run one period after the schedule first
// started), or never when $run_new. Workers of one deployment then claim each run one at a time.
MERGE (s:MaintenanceSchedule {name: $name, kind: $kind})
  ON CREATE SET s.last_run = CASE WHEN $run_new THEN null ELSE datetime($now) END
SET s._lock = true
REMOVE s._lock
RETURN s.kind AS kind
