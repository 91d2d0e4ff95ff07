// Full maintenance: drop a constraint whose backing index FAILED (its name spliced from the allow-list of
// index names) so the schema files re-create it.
DROP CONSTRAINT {{index_name}} IF EXISTS
