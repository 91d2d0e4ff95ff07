// One node per scheduled maintenance job of a deployment (bmam/scheduler.py, graph/schedule.py): concurrent
// first claims by several workers MERGE one node, not several.
CREATE CONSTRAINT maintenance_schedule_key IF NOT EXISTS FOR (s:MaintenanceSchedule) REQUIRE (s.name, s.kind) IS UNIQUE
