// Import: relationships between two of one user's nodes (both labels spliced from the allow-list; the
// type is a parameter, a dynamic type checked against ^[A-Z][A-Z0-9_]*$ in graph/rdf.py), one per row,
// idempotent: an existing relationship of that type between the two is kept as it is. History is never linked:
// an association with a memory superseded (in the store, since the file was written, or in the file) is left out.
UNWIND $rows AS r
MATCH (a:{{start_label}} {id: r.start_id})
WHERE a.tenant = $tenant AND a.user_id = $user_id
MATCH (b:{{end_label}} {id: r.end_id})
WHERE b.tenant = $tenant AND b.user_id = $user_id
  AND NOT (r.type = 'ASSOCIATED' AND (a.valid_to IS NOT NULL OR b.valid_to IS NOT NULL))
MERGE (a)-[x:$(r.type)]->(b)
  ON CREATE SET x += r.props, x.tenant = $tenant, x.user_id = $user_id
RETURN count(x) AS written
