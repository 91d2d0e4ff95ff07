// The last $n episodes of one session of one user, newest first (rebuilds working memory).
MATCH (s:Session {id: $session})-[:HAS_EPISODE]->(e:Episode)
WHERE s.tenant = $tenant AND s.user_id = $user_id
RETURN e {.*} AS episode
ORDER BY e.turn DESC
LIMIT $n
