// Every node of one user (ChangeEntry and Changeset records left out) with its labels and properties,
// embedding included: tests compare the graph before a maintenance run and after its undo.
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id AND NOT n:ChangeEntry AND NOT n:Changeset
RETURN labels(n) AS labels, properties(n) AS props
