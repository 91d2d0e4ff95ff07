// A memory whose after-store hooks (conflict detection, association forming) have not finished carries
// hooks_pending_at (bmam/usecases/ingest.py): this finds the few such memories without a scan of all.
CREATE INDEX memory_hooks_pending IF NOT EXISTS FOR (m:Memory) ON (m.hooks_pending_at)
