// Chain each given session's episodes with NEXT in turn order, from the episode before $from_turn on
// (where new turns were added): links skipping a new turn are replaced, existing ones kept.
UNWIND $sessions AS p
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
RETURN count(*) AS sessions
