// Superseded memories whose remains were never looked for (bmam/usecases/remains.py sweep): the loser of each
// SUPERSEDES edge without remains_checked_at (set when its remains were stored or found to be nothing), of one
// user, one tenant ($user_id null: all its users) or every tenant ($tenant null), oldest supersession first,
// with the winner. The rest of a settlement that a stopped process did not finish; the first run after an
// upgrade looks at every loser once.
MATCH (w:Memory)-[s:SUPERSEDES]->(l:Memory)
WHERE l.remains_checked_at IS NULL AND ($tenant IS NULL OR l.tenant = $tenant)
  AND ($user_id IS NULL OR l.user_id = $user_id) AND w.tenant = l.tenant AND w.user_id = l.user_id
RETURN l.tenant AS tenant, l.user_id AS user_id, l.id AS loser_id, w.id AS winner_id
ORDER BY s.at, l.id
LIMIT $limit
