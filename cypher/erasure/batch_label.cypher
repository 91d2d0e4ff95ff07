// forgetUser, fast path: erase up to $batch nodes of one label of one (tenant, user), with every
// relationship touching them, and report the labels and relationship types removed. The label is
// spliced from the erasure allow-list (graph/cypher_library.py), so the scope index is used.
MATCH (n:{{label}})
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n LIMIT $batch
{{> erasure/delete_nodes}}
