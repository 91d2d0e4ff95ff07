// Provenance: (:Memory)-[:DERIVED_FROM]->(:Episode) for each memory and the turn that created or
// repeated it, both of one user.
UNWIND $links AS l
MATCH (m:Memory {id: l.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
MATCH (e:Episode {id: l.episode_id})
WHERE e.tenant = $tenant AND e.user_id = $user_id
MERGE (m)-[:DERIVED_FROM]->(e)
RETURN count(*) AS links
