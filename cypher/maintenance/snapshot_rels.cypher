// Every relationship touching a node of one user: its type, properties and the stable keys of both ends
// (id, or user_id for the User node), for comparing the graph before a run and after its undo.
// The user's nodes first, then their relationships (each once: one between two of them is met from both
// ends): the same set as filtering every relationship of the store on its ends, without reading the whole
// store's relationships (that scan cost ~2 s a call on the test suite's shared Neo4j).
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id
MATCH (n)-[r]-()
WITH DISTINCT r
WITH startNode(r) AS a, r, endNode(r) AS b
RETURN labels(a) AS a_labels, coalesce(a.id, a.user_id) AS a_key, type(r) AS type, properties(r) AS props,
       labels(b) AS b_labels, coalesce(b.id, b.user_id) AS b_key
