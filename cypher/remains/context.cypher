// What deciding superseded memories' remains reads (bmam/usecases/remains.py), for several losers of one user
// in one statement: per item of $items ({loser_id, winner_id, remains_id}) the loser as memory/get reads it, its
// remains if they are stored already (null otherwise), and the facts its winner states (each triple of the
// winner: subject and object names, predicate, polarity) and its text, and what its settlement took from its
// active part (the
// SUPERSEDES edge's penalty; null for a settlement older than that record). No row for a loser missing or
// someone else's.
UNWIND $items AS item
MATCH (l:Memory {id: item.loser_id})
WHERE l.tenant = $tenant AND l.user_id = $user_id
OPTIONAL MATCH (r:Memory {id: item.remains_id})
WHERE r.tenant = $tenant AND r.user_id = $user_id
CALL (item) {
  OPTIONAL MATCH (s:Entity)-[t:TRIPLE {memory_id: item.winner_id}]->(o:Entity)
  WHERE t.tenant = $tenant AND t.user_id = $user_id
  RETURN collect({subject: s.name, predicate: t.predicate, object: o.name, polarity: t.polarity}) AS winner
}
CALL (item) {
  OPTIONAL MATCH (w:Memory {id: item.winner_id})
  WHERE w.tenant = $tenant AND w.user_id = $user_id
  RETURN w.text AS winner_text
}
RETURN l {.*, embedding: null} AS loser, CASE WHEN r IS NULL THEN null ELSE r {.*, embedding: null} END AS kept,
       winner, winner_text,
       [(w:Memory)-[s:SUPERSEDES]->(l) WHERE w.id = item.winner_id AND w.tenant = $tenant | s.penalty][0] AS penalty
