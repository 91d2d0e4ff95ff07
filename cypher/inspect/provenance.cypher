// Where a user's memories came from
// Each memory with the conversation turn it was derived from (speaker, time, what was said, device)
// and its session, newest first; a memory stored by `remember` (no turn) with its own time and the
// source "remember".
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(e:Episode)
WHERE e.tenant = $tenant AND e.user_id = $user_id
RETURN m.text AS memory, m.type AS type, m.tier AS tier, coalesce(e.speaker, 'remember') AS speaker,
       e.text AS said, coalesce(e.at, m.created_at) AS at, coalesce(e.session_id, m.session_id) AS session,
       e.turn AS turn, coalesce(e.device_id, m.device_id) AS device, m.valid_to AS valid_to
ORDER BY at DESC, session, turn
LIMIT 200
