// Where a user's memories came from
// Each memory with the conversation turn it was derived from (speaker, time, what was said, device)
// and its session, newest turn first.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (m:Memory)-[:DERIVED_FROM]->(e:Episode)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND e.tenant = $tenant AND e.user_id = $user_id
RETURN m.text AS memory, m.type AS type, m.tier AS tier, e.speaker AS speaker, e.text AS said,
       e.at AS at, e.session_id AS session, e.turn AS turn, e.device_id AS device, m.valid_to AS valid_to
ORDER BY at DESC, session, turn
LIMIT 200
