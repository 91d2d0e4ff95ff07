// forgetUser, sweep: erase up to $batch nodes of one (tenant, user) whatever their label (so labels
// added later by any feature are covered), with every relationship touching them; report what went.
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n LIMIT $batch
WITH collect(n) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  MATCH (n)-[r]-()
  RETURN collect(DISTINCT r) AS rels
}
WITH nodes, rels, [r IN rels | type(r)] AS rel_types,
     reduce(acc = [], n IN nodes | acc + labels(n)) AS node_labels
FOREACH (r IN rels | DELETE r)
FOREACH (n IN nodes | DETACH DELETE n)  // as erasure/batch_label: a relationship added since goes too
RETURN size(nodes) AS nodes, node_labels, rel_types
