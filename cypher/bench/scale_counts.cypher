// Bench only (bench/scale_load.py): what one tenant holds, by kind (count store lookups where possible).
MATCH (m:Memory) WHERE m.tenant = $tenant
WITH count(m) AS memories
OPTIONAL MATCH (e:Entity) WHERE e.tenant = $tenant
WITH memories, count(e) AS entities
OPTIONAL MATCH (u:User) WHERE u.tenant = $tenant
RETURN memories, entities, count(u) AS users
