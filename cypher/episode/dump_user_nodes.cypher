// Every node of one user with its labels and properties (a canonical dump: tests compare the graph
// before and after an idempotent re-ingest).
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id
RETURN labels(n) AS labels, properties(n) AS props
