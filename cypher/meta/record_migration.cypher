// Record that a schema file was applied (and with which text), for /healthz and `bmam migrate`.
MERGE (m:SchemaMigration {name: $name})
SET m.checksum = $checksum, m.applied_at = $now
