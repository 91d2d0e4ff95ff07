// A page of one user's sessions, newest first: ordered by when the session's first turn was said (started_at,
// which a later batch only moves when it brings an earlier turn), then by session id, keyset after
// ($after_at, $after_id) (graph/paging.py; both null for the first page). A session without a recorded start
// (one imported from a file that gave none) sorts as the oldest. Each with its turn count (the degree of its
// HAS_EPISODE edges: no episode is read) and the span of its turns (started_at / last_at, kept by
// episode/write_batch). Reached through the user's node (HAS_SESSION): Session has no index but its id's.
MATCH (u:User {tenant: $tenant, user_id: $user_id})-[:HAS_SESSION]->(s:Session)
WHERE s.tenant = $tenant AND s.user_id = $user_id
WITH s, coalesce(s.started_at, $oldest) AS since
WHERE $after_id IS NULL OR since < $after_at OR (since = $after_at AND s.session_id < $after_id)
WITH s, since
ORDER BY since DESC, s.session_id DESC
LIMIT $limit
RETURN s.session_id AS session_id, COUNT { (s)-[:HAS_EPISODE]->() } AS turns, toString(since) AS since,
       toString(s.started_at) AS first_at, toString(s.last_at) AS last_at
ORDER BY since DESC, session_id DESC
