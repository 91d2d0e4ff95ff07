// Tie superseded memories' remains (bmam/usecases/remains.py) to them, in the transaction that stores the
// remains: per item of $pairs ({id, loser_id}) (remains)-[:REMAINS_OF]->(loser) and remains.remains_of = the
// loser's id (read with the memory, no traversal), the loser's provenance edges (DERIVED_FROM its turns), its
// mentions and its place in the order the user said things (said_seq: the conflicts' tie-break) carried over
// (the remains were said when, as often and as last as the loser); the loser marked checked (remains/checked).
// The remains are stored with the loser's weight parts, which are decayed up to the loser's decayed_at: their
// decay clock starts there, once (from created_at, the time the loser was said, it would count those weeks twice).
// Idempotent. Returns the remains tied, as memory/get reads them (none for a pair with a memory missing or
// someone else's).
UNWIND $pairs AS pair
MATCH (r:Memory {id: pair.id}), (l:Memory {id: pair.loser_id})
WHERE r.tenant = $tenant AND r.user_id = $user_id AND l.tenant = $tenant AND l.user_id = $user_id
MERGE (r)-[e:REMAINS_OF]->(l)
  ON CREATE SET e.tenant = $tenant, e.user_id = $user_id, e.at = datetime($now),
                r.decayed_at = coalesce(l.decayed_at, l.created_at)
SET r.remains_of = l.id, r.mention_count = l.mention_count, r.last_mentioned_at = l.last_mentioned_at,
    r.said_seq = coalesce(l.said_seq, l.seq), l.remains_checked_at = datetime($now)
WITH r, l
CALL (r, l) {
  MATCH (l)-[:DERIVED_FROM]->(ep:Episode)
  WHERE ep.tenant = $tenant AND ep.user_id = $user_id
  MERGE (r)-[:DERIVED_FROM]->(ep)
}
RETURN r {.*, embedding: null} AS memory
