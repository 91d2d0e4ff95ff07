// A batch's new turns of one user in one statement (it took three): the sessions with the time span of their
// turns, the episodes, then the NEXT chain around the new turns, one part after the other (each sees what the
// ones before it wrote).
// 1. (:User)-[:HAS_SESSION]->(:Session) for each of $sessions ({id, session_id, first_at, last_at}), created
//    or extended (started_at / last_at only ever widen, so writing the same turns again changes nothing).
// 2. (:Session)-[:HAS_EPISODE]->(:Episode) for each of $episodes, idempotent on the derived id.
// 3. NEXT in turn order for each of $links ({id, from_turn}: the session node and its lowest new turn), from
//    the episode before from_turn on: links skipping a new turn are replaced, existing ones kept.
// Times come as ISO text (graph/records.py time_param).
CALL () {
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
}
CALL () {
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
}
CALL () {
  UNWIND $links AS p
  MATCH (s:Session {id: p.id})
  WHERE s.tenant = $tenant AND s.user_id = $user_id
  CALL (s, p) {
    OPTIONAL MATCH (s)-[:HAS_EPISODE]->(before:Episode)
    WHERE before.turn < p.from_turn
    WITH s, p, max(before.turn) AS start
    MATCH (s)-[:HAS_EPISODE]->(e:Episode)
    WHERE e.turn >= coalesce(start, p.from_turn)
    WITH e ORDER BY e.turn
    WITH collect(e) AS chain
    UNWIND range(0, size(chain) - 2) AS i
    WITH chain[i] AS a, chain[i + 1] AS b
    OPTIONAL MATCH (a)-[old:NEXT]->(other)
    WHERE other <> b
    DELETE old
    MERGE (a)-[:NEXT]->(b)
  }
}
RETURN size($episodes) AS episodes
