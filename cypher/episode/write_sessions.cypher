// Create or extend sessions of one user: (:User)-[:HAS_SESSION]->(:Session), with the time span of
// their turns (started_at / last_at only ever widen, so writing the same turns again changes nothing).
// Times come as ISO text (p.first_at, p.last_at; graph/records.py time_param).
UNWIND $sessions AS row
WITH row {.*, first_at: datetime(row.first_at), last_at: datetime(row.last_at)} AS p
MERGE (u:User {tenant: $tenant, user_id: $user_id})
  ON CREATE SET u.created_at = p.first_at
MERGE (s:Session {id: p.id})
  ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.session_id = p.session_id,
                s.started_at = p.first_at, s.last_at = p.last_at
WITH u, s, p
WHERE s.tenant = $tenant AND s.user_id = $user_id
SET s.started_at = CASE WHEN p.first_at < s.started_at THEN p.first_at ELSE s.started_at END,
    s.last_at = CASE WHEN p.last_at > s.last_at THEN p.last_at ELSE s.last_at END
MERGE (u)-[:HAS_SESSION]->(s)
RETURN s.id AS id
