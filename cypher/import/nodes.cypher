// Import: create one user's nodes of one kind (entities, sessions, episodes, conflicts; label spliced
// from the allow-list) from an export, one per row, idempotent on the row's id (derived for the
// target user): a node that exists is kept as it is. Extra labels come from the file, checked in
// graph/rdf.py.
UNWIND $rows AS r
MERGE (n:{{node_label}} {id: r.id})
  ON CREATE SET n += r.props, n.tenant = $tenant, n.user_id = $user_id, n.origin_id = r.origin_id,
                n.is_new = true
WITH n, r
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n, r, coalesce(n.is_new, false) AS created
REMOVE n.is_new
WITH n, r, created
CALL (n, r, created) {
  WITH n, r WHERE created AND size(r.labels) > 0
  SET n:$(r.labels)
}
RETURN n.id AS id, created
