// (Included after `WITH n LIMIT $batch` by the node sweeps of erasure/: batch_label, batch_any, batch_tenant,
// batch_tenant_any.) Erase the batch's nodes with every relationship touching them, and report the labels and
// relationship types removed.
WITH collect(n) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  MATCH (n)-[r]-()
  RETURN collect(DISTINCT r) AS rels
}
WITH nodes, rels, [r IN rels | type(r)] AS rel_types,
     reduce(acc = [], n IN nodes | acc + labels(n)) AS node_labels
FOREACH (r IN rels | DELETE r)
// DETACH: a relationship another transaction committed to one of them since they were read (an ingest of the
// user racing the erasure) goes too (a plain DELETE failed the batch: "still has relationships"); uncounted
FOREACH (n IN nodes | DETACH DELETE n)
RETURN size(nodes) AS nodes, node_labels, rel_types
