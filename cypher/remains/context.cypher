// What deciding a superseded memory's remains reads (bmam/usecases/remains.py), in one statement: the loser's
// text and whether it is superseded, whether its remains ($remains_id) are stored already, and the facts its
// winner states (each triple of $winner_id: subject and object names, predicate). No row when the loser is
// missing or someone else's.
MATCH (l:Memory {id: $loser_id})
WHERE l.tenant = $tenant AND l.user_id = $user_id
OPTIONAL MATCH (r:Memory {id: $remains_id})
WHERE r.tenant = $tenant AND r.user_id = $user_id
CALL () {
  OPTIONAL MATCH (s:Entity)-[t:TRIPLE {memory_id: $winner_id}]->(o:Entity)
  WHERE t.tenant = $tenant AND t.user_id = $user_id
  RETURN collect({subject: s.name, predicate: t.predicate, object: o.name}) AS winner
}
RETURN l.text AS text, l.valid_to IS NOT NULL AS superseded, r IS NOT NULL AS kept, winner
