// Anti-repetition shared by every worker: append what one recall of a session surfaced (a JSON text) and
// keep only the newest $keep. The node is unique by id (schema 060), so concurrent first appends make one
// node; the SET reads s.turns on its right-hand side, so Neo4j write-locks the node first and concurrent
// appends are all kept. Erased with the user by forgetUser (it carries tenant and user_id).
MERGE (s:SessionRecall {id: $id})
  ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.session_id = $session_id, s.created_at = $now
WITH s
WHERE s.tenant = $tenant AND s.user_id = $user_id
SET s.turns = (coalesce(s.turns, []) + [$turn])[-$keep..], s.updated_at = $now
RETURN size(s.turns) AS kept
