// Full maintenance: refresh the statistics of every index whose sample is outdated (cheap; the planner
// relies on them). Indexes that failed are dropped and re-created instead (graph/maintenance.py).
CALL db.resampleOutdatedIndexes()
