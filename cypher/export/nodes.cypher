// Export: one page of one user's nodes of one kind (the label is spliced from the allow-list), keyset
// on id. Each node comes with its labels and properties (the embedding left out), the relationships
// leaving it towards the user's other nodes (TRIPLE aside: export/triples reads those per memory) as
// [type, properties, far end id, far end kind], and the relationships reaching it from the user's
// (:User) node as [type, properties]. Far ends are resolved to IRIs once per page (export/refs).
MATCH (n:{{node_label}})
WHERE n.tenant = $tenant AND n.user_id = $user_id AND ($after IS NULL OR n.id > $after)
WITH n ORDER BY n.id LIMIT $limit
CALL (n) {
  MATCH (n)-[r]->(x)
  WHERE type(r) <> 'TRIPLE' AND x.tenant = $tenant AND x.user_id = $user_id
  RETURN collect([type(r), properties(r), x.id,
                  CASE WHEN x:Memory THEN 'Memory' WHEN x:Entity THEN 'Entity' WHEN x:Episode THEN 'Episode'
                       WHEN x:Session THEN 'Session' WHEN x:Conflict THEN 'Conflict' END]) AS out
}
CALL (n) {
  MATCH (u:User)-[r]->(n)
  WHERE u.tenant = $tenant AND u.user_id = $user_id
  RETURN collect([type(r), properties(r)]) AS from_user
}
RETURN labels(n) AS labels, n {.*, embedding: null} AS props, out, from_user
ORDER BY n.id
