// forgetUser, last sweep: erase up to $batch relationships stamped with one (tenant, user) that are
// still left (their nodes are gone already in any consistent graph; this makes sure).
MATCH ()-[r]->()
WHERE r.tenant = $tenant AND r.user_id = $user_id
WITH r LIMIT $batch
WITH collect(r) AS rels
WITH rels, [r IN rels | type(r)] AS rel_types
FOREACH (r IN rels | DELETE r)
RETURN size(rels) AS relationships, rel_types
