// Import: relationships from one user's (:User) node to the user's other nodes (HAS_MEMORY,
// HAS_SESSION; the end label spliced from the allow-list, the type a checked dynamic type), idempotent.
MATCH (u:User {tenant: $tenant, user_id: $user_id})
UNWIND $rows AS r
MATCH (b:{{end_label}} {id: r.end_id})
WHERE b.tenant = $tenant AND b.user_id = $user_id
MERGE (u)-[x:$(r.type)]->(b)
  ON CREATE SET x += r.props
RETURN count(x) AS written
