// A page of one session's stored turns (its episodes) in turn order, keyset after $after_turn (graph/paging.py
// turn cursor; null for the first page), each with the ids of the user's live memories DERIVED_FROM it (made or
// mentioned again by that turn; superseded ones left out). One row; `known` tells an unknown session (no Session
// node of the user by that id: another user's or tenant's is none) from one with no turn after the cursor. `at` is
// null for a turn imported without its time.
// Reached through the Session node (HAS_EPISODE), as episode/recent reads a session's last turns.
OPTIONAL MATCH (s:Session {id: $session})
WHERE s.tenant = $tenant AND s.user_id = $user_id
CALL (s) {
  MATCH (s)-[:HAS_EPISODE]->(e:Episode)
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND ($after_turn IS NULL OR e.turn > $after_turn)
  WITH e
  ORDER BY e.turn
  LIMIT $limit
  RETURN collect({id: e.id, turn: e.turn, speaker: e.speaker, text: e.text, at: toString(e.at),
                  device_id: e.device_id, memories: COLLECT {
    MATCH (m:Memory)-[:DERIVED_FROM]->(e)
    WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
    RETURN m.id
  }}) AS turns
}
RETURN s IS NOT NULL AS known, turns
