// The schema files applied so far.
MATCH (m:SchemaMigration) RETURN m.name AS name, m.checksum AS checksum ORDER BY name
