// Full maintenance: drop a FAILED index (its name spliced from the allow-list of index names) so the
// schema files re-create it.
DROP INDEX {{index_name}} IF EXISTS
