// What superseded what
// Each (winner)-[:SUPERSEDES]->(loser) of a user, with both texts, when the loser lost (its valid_to)
// and since when it had been valid, when bmam settled the conflict (settled_at: its SUPERSEDES edge's time, which
// may come later than the loser's end, e.g. a change said in a turn ingested days after), and what of the loser
// lives on (its remains, if any), the latest loss first.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (w:Memory)-[s:SUPERSEDES]->(l:Memory)
WHERE w.tenant = $tenant AND w.user_id = $user_id AND l.tenant = $tenant AND l.user_id = $user_id
OPTIONAL MATCH (r:Memory)-[:REMAINS_OF]->(l)
WHERE r.tenant = $tenant AND r.user_id = $user_id
RETURN w.text AS winner, l.text AS loser, r.text AS remains, l.valid_to AS superseded_at, s.at AS settled_at,
       l.valid_from AS loser_valid_from, l.valid_to AS loser_valid_to, w.id AS winner_id, l.id AS loser_id
ORDER BY superseded_at DESC, settled_at DESC, winner_id
LIMIT 200
