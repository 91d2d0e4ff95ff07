// Close a changeset of one tenant: status COMPLETE, when it finished and the indexes it rebuilt.
MATCH (c:Changeset {id: $id})
WHERE c.tenant = $tenant AND ($run_user_id IS NULL OR c.user_id = $run_user_id)
SET c.status = 'COMPLETE', c.finished_at = $now, c.indexes_rebuilt = $indexes_rebuilt
RETURN c {.*} AS changeset
