// (Included by erasure/batch_session_nodes and session/held.) The nodes of one session of one (tenant, user) beside its
// turns, one row each as n: its Session node, by its derived id ($session_node) and, should one carry the session's
// id under another (an import's), through the user's HAS_SESSION; and its anti-repetition state (SessionRecall,
// $recall_node). UNION: a node found both ways is one row.
CALL () {
  MATCH (n:Session {id: $session_node})
  WHERE n.tenant = $tenant AND n.user_id = $user_id
  RETURN n
  UNION
  MATCH (:User {tenant: $tenant, user_id: $user_id})-[:HAS_SESSION]->(n:Session)
  WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.session_id = $session_id
  RETURN n
  UNION
  MATCH (n:SessionRecall {id: $recall_node})
  WHERE n.tenant = $tenant AND n.user_id = $user_id
  RETURN n
}
