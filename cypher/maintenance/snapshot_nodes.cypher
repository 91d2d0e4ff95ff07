// Every node of one user (ChangeEntry and Changeset records left out) with its labels and properties,
// embedding included: tests compare the graph before a maintenance run and after its undo. The user's
// memory_epoch is left out: it is not knowledge but the stamp an undo changes on purpose, so recall's
// in-process vector cache reads the user anew (cypher/maintenance/restore_nodes.cypher).
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id AND NOT n:ChangeEntry AND NOT n:Changeset
RETURN labels(n) AS labels, CASE WHEN n:User THEN n {.*, memory_epoch: null} ELSE properties(n) END AS props
