// The re-query of a forgetTenant receipt: how many nodes and relationships stamped with one tenant remain, any
// label and any type, any user or none (0 and 0 after a complete erasure). The tenant's API keys are counted
// only when $keys (an erasure that deletes them too); an app that stays keeps its keys.
CALL () {
  MATCH (n) WHERE n.tenant = $tenant AND ($keys OR NOT n:ApiKey)
  RETURN count(n) AS nodes
}
CALL () {
  MATCH ()-[r]->() WHERE r.tenant = $tenant
  RETURN count(r) AS relationships
}
RETURN nodes, relationships
