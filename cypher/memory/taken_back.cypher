// The memories a user's turn takes back ("forget what I just said", ingest/salience.py takes_back): those made from
// the user's last turn before $turn in session $session_id (the memories it created, and their remains, which carry
// its provenance), not those it only mentioned again (said before it too). Their ids, in order.
MATCH (e:Episode)
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.session_id = $session_id AND e.turn < $turn
  AND e.speaker = 'user'
WITH e ORDER BY e.turn DESC LIMIT 1
MATCH (m:Memory)-[:DERIVED_FROM]->(e)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.session_id = e.session_id AND m.turn = e.turn
RETURN m.id AS id ORDER BY id
