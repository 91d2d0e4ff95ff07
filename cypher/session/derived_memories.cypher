// The memories of one user derived from one session's turns (DERIVED_FROM one of its episodes: made or mentioned
// again there; superseded history and remains too), each with whether it is locked and whether it is derived from a
// turn of another session as well (then forgetSession(memories: FORGET) keeps it). In id order.
MATCH (e:Episode)
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.session_id = $session_id
MATCH (m:Memory)-[:DERIVED_FROM]->(e)
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH DISTINCT m
RETURN m.id AS id, coalesce(m.locked, false) AS locked,
       EXISTS {
         MATCH (m)-[:DERIVED_FROM]->(other:Episode)
         WHERE other.tenant = $tenant AND other.user_id = $user_id AND other.session_id <> $session_id
       } AS shared
ORDER BY id
