// The last episode of each given session of one user (where an appended turn without index goes).
UNWIND $sessions AS sid
MATCH (s:Session {id: sid})-[:HAS_EPISODE]->(e:Episode)
WHERE s.tenant = $tenant AND s.user_id = $user_id
WITH s, e ORDER BY e.turn DESC
WITH s, collect(e)[0] AS last
RETURN s.id AS session, last.id AS id, last.turn AS turn, last.speaker AS speaker, last.text AS text,
       last.at AS at
