// The re-query of a forgetUser receipt: how many nodes and relationships of one (tenant, user)
// remain, any label and any type (0 and 0 after a complete erasure).
CALL () {
  MATCH (n) WHERE n.tenant = $tenant AND n.user_id = $user_id
  RETURN count(n) AS nodes
}
CALL () {
  MATCH ()-[r]->() WHERE r.tenant = $tenant AND r.user_id = $user_id
  RETURN count(r) AS relationships
}
RETURN nodes, relationships
