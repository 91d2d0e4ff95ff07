// One user's graph, for tests that compare it before a maintenance run and after its undo. nodes: every node
// of the user (ChangeEntry and Changeset records left out) with its labels and properties, embedding included;
// the User node's memory_epoch left out: it is not knowledge but the stamp an undo changes on purpose, so
// recall's in-process vector cache reads the user anew (cypher/maintenance/restore_nodes.cypher).
// relationships: every relationship touching a node of the user, each once, with its type, properties and the
// stable keys of both ends (id, or user_id for the User node).
// One scan of the store finds the user's nodes (any label); the relationships are expanded from them, not
// found by filtering every relationship of the store on its ends (that scan cost ~2 s a call on the test
// suite's shared Neo4j).
MATCH (n)
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH collect(n) AS mine
CALL (mine) {
  UNWIND mine AS n
  WITH n WHERE NOT n:ChangeEntry AND NOT n:Changeset
  RETURN collect({labels: labels(n),
                  props: CASE WHEN n:User THEN n {.*, memory_epoch: null} ELSE properties(n) END}) AS nodes
}
CALL (mine) {
  UNWIND mine AS n
  MATCH (n)-[r]-()
  WITH DISTINCT r
  WITH startNode(r) AS a, r, endNode(r) AS b
  RETURN collect({a_labels: labels(a), a_key: coalesce(a.id, a.user_id), type: type(r), props: properties(r),
                  b_labels: labels(b), b_key: coalesce(b.id, b.user_id)}) AS relationships
}
RETURN nodes, relationships
