// Bench only (bench/scale_load.py): the entities of several users of one tenant (idempotent on id).
// Never run by the service.
UNWIND $entities AS x
MERGE (e:Entity {id: x.id})
  ON CREATE SET e.tenant = $tenant, e.user_id = x.user_id, e.name = x.name, e.kind = x.kind, e.created_at = $now
WITH e WHERE e.tenant = $tenant
RETURN count(e) AS entities
