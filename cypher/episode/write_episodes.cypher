// One (:Episode) per conversation turn of one user, in its session: (:Session)-[:HAS_EPISODE]->(:Episode).
// Idempotent on the derived id: writing the same turn again changes nothing.
// Times come as ISO text (p.at; graph/records.py time_param).
UNWIND $episodes AS row
WITH row {.*, at: datetime(row.at)} AS p
MATCH (s:Session {id: p.session_node_id})
WHERE s.tenant = $tenant AND s.user_id = $user_id
MERGE (e:Episode {id: p.id})
  ON CREATE SET e.tenant = $tenant, e.user_id = $user_id, e.session_id = p.session_id, e.turn = p.turn,
                e.speaker = p.speaker, e.text = p.text, e.at = p.at, e.device_id = p.device_id
WITH s, e
WHERE e.tenant = $tenant AND e.user_id = $user_id
MERGE (s)-[:HAS_EPISODE]->(e)
RETURN count(*) AS episodes
