// (Included after `WITH r LIMIT $batch` by erasure/batch_relationships and erasure/batch_tenant_relationships.)
// Erase the batch's relationships and report their types.
WITH collect(r) AS rels
WITH rels, [r IN rels | type(r)] AS rel_types
FOREACH (r IN rels | DELETE r)
RETURN size(rels) AS relationships, rel_types
