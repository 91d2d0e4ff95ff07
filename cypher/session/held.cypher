// What is stored of one session of one (tenant, user): its turns (Episode nodes carrying the session's id) and its
// other nodes (erasure/session_nodes: the Session node, the anti-repetition state). forgetSession reads it before
// erasing (NOT_FOUND when both are 0) and after (the receipt's proof: 0 and 0 once the session is erased).
CALL () {
  MATCH (e:Episode)
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.session_id = $session_id
  RETURN count(e) AS turns
}
CALL () {
  {{> erasure/session_nodes}}
  RETURN count(n) AS nodes
}
RETURN turns, nodes
