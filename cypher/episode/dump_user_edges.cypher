// Every relationship leaving a node of one user: its type, properties and the keys of both ends.
MATCH (a)-[r]->(b)
WHERE a.tenant = $tenant AND a.user_id = $user_id
RETURN labels(a) AS a_labels, coalesce(a.id, a.user_id) AS a_key, type(r) AS type, properties(r) AS props,
       labels(b) AS b_labels, coalesce(b.id, b.user_id) AS b_key
